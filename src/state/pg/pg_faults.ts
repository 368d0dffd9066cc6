/**
 * The one place where a failure of the PostgreSQL store is told apart from a
 * bug: the server down, restarting or unreachable, the connection lost, a
 * login or privilege refused, the database full or read-only. Each becomes
 * `storage_unavailable` with `data.reason` and the store URL without its
 * password; anything else is returned unchanged (a bug stays a bug).
 */
import { CruxeError } from "../../core/errors.ts";
import { redactedStoreUrl } from "./store_url.ts";

/** Why the PostgreSQL store cannot be used. */
export type PgFaultReason =
  | "unreachable"
  | "connection_lost"
  | "shutting_down"
  | "login_refused"
  | "permission_denied"
  | "read_only"
  | "disk_full";

/** SQLSTATE codes (or their class, two characters) by reason. */
const SQLSTATES: [RegExp, PgFaultReason][] = [
  [/^08/, "connection_lost"], // connection exception
  [/^57P0[1-3]$/, "shutting_down"], // admin_shutdown, crash_shutdown, cannot_connect_now
  [/^28/, "login_refused"], // invalid authorization
  [/^3D000$/, "login_refused"], // no such database
  [/^42501$/, "permission_denied"], // insufficient_privilege
  [/^25006$/, "read_only"], // read_only_sql_transaction (a replica, or a read-only role's transaction)
  [/^53100$/, "disk_full"],
];

/** Socket-level error codes of the client (no SQLSTATE). */
const SOCKET_CODES: Record<string, PgFaultReason> = {
  ECONNREFUSED: "unreachable",
  ENOTFOUND: "unreachable",
  EHOSTUNREACH: "unreachable",
  ETIMEDOUT: "unreachable",
  ECONNRESET: "connection_lost",
  EPIPE: "connection_lost",
};

/** Messages of the client that carry no code at all. */
const MESSAGES: [RegExp, PgFaultReason][] = [
  [/Connection terminated|connection timeout|Client has encountered a connection error/i, "connection_lost"],
  [/timeout exceeded when trying to connect/i, "unreachable"],
  [/terminating connection|the database system is (starting up|shutting down)/i, "shutting_down"],
];

/** The reason `e` is a store fault, or null when it is not one. */
export function pgFaultReason(e: unknown): PgFaultReason | null {
  if (!(e instanceof Error)) return null;
  const code = String((e as { code?: unknown }).code ?? "");
  for (const [re, reason] of SQLSTATES) if (re.test(code)) return reason;
  if (SOCKET_CODES[code]) return SOCKET_CODES[code];
  for (const [re, reason] of MESSAGES) if (re.test(e.message)) return reason;
  // An aggregate of connection attempts (IPv4 and IPv6): the first one's reason.
  const errors = (e as { errors?: unknown[] }).errors;
  return Array.isArray(errors) && errors.length ? pgFaultReason(errors[0]) : null;
}

/**
 * `e` as the error a caller sees: `storage_unavailable` naming the store
 * (password hidden) and the reason when it is a store fault, else `e` as it is.
 */
export function pgFault(e: unknown, url: string): unknown {
  if (e instanceof CruxeError) return e;
  const reason = pgFaultReason(e);
  if (!reason) return e;
  const store = redactedStoreUrl(url);
  return new CruxeError(
    "storage_unavailable",
    `The PostgreSQL store ${store} cannot be used (${reason}): ${(e as Error).message}. ` +
      "Nothing was changed; retry when the database is reachable again (cruxe status --store URL shows it).",
    { reason, store },
  );
}
