/**
 * The SQL functions a project index's schema uses (the `symbols` view's
 * handles, the name index's key): every connection to a store registers
 * them (`openDb` does), or reads of the view and writes of symbols fail.
 */
import type { DatabaseSync } from "node:sqlite";
import { registerHandleFunctions } from "./symbol_keys.ts";
import { registerNameKeyFunction } from "./name_key.ts";

/** Registers every SQL function a project index's schema uses on connection `db`. */
export function registerStoreFunctions(db: DatabaseSync): void {
  registerHandleFunctions(db);
  registerNameKeyFunction(db);
}
