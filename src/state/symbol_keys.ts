/**
 * A symbol's two handles as the store keeps them: the hex digits of a
 * `sym_…` id (12 bytes) and of a `b3:…` stable id (16 bytes) as blobs, less
 * than half their text. The `symbols` view spells them back with
 * `SYMBOL_ID_SQL` and `STABLE_ID_SQL`; a lookup by handle binds its key.
 */
import { CruxeError } from "../core/errors.ts";

const SYMBOL_ID = /^sym_([0-9a-f]{24})$/;
const STABLE_ID = /^b3:([0-9a-f]{32})$/;

/** SQL spelling the `sym_` handle of the symbol key in column `col` (NULL for NULL: `hex` would give ''). */
export const SYMBOL_ID_SQL = (col: string): string => `'sym_' || lower(nullif(hex(${col}), ''))`;
/** SQL spelling the `b3:` stable id of the stable key in column `col` (NULL for NULL). */
export const STABLE_ID_SQL = (col: string): string => `'b3:' || lower(nullif(hex(${col}), ''))`;

function bytesOfHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The stored key of a `sym_` handle; null when the text is no such handle (no symbol has it). */
export function symbolKey(symbolId: string): Uint8Array | null {
  const m = SYMBOL_ID.exec(symbolId);
  return m ? bytesOfHex(m[1]) : null;
}

/** The stored keys of a symbol the indexer made (its handles always have their shape; anything else is a bug). */
export function storedKeys(symbolId: string, stableId: string): { symbol: Uint8Array; stable: Uint8Array } {
  const symbol = symbolKey(symbolId);
  const stable = STABLE_ID.exec(stableId);
  if (!symbol || !stable) throw new CruxeError("internal_error", `malformed symbol handles ${symbolId} ${stableId}`);
  return { symbol, stable: bytesOfHex(stable[1]) };
}
