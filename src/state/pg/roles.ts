/**
 * Least privilege in the PostgreSQL store: two group roles (NOLOGIN) that
 * login roles join. The reader may only read Cruxe's schema (and its
 * sessions are read-only by default): what query replicas connect with. The
 * writer may read and write the rows of Cruxe's tables and nothing else (no
 * DDL, no other schema): what workers and `repo add` connect with. Creating
 * the schema and these roles needs the database owner, once
 * (`cruxe store-setup`). Role names are checked against a strict pattern and
 * quoted by the server (`format('%I')`), never pasted into SQL text.
 */
import { CruxeError } from "../../core/errors.ts";
import type { PgQuerier } from "./pg_pool.ts";

/** Role names accepted: lower-case letters, digits and `_`, starting with a letter or `_`. */
const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The group roles' default names. */
export const DEFAULT_ROLES = { reader: "cruxe_reader", writer: "cruxe_writer" } as const;

/**
 * Statement templates for each role (`%I` is the role, quoted by the
 * server). Each is idempotent, so setup can run again after an upgrade
 * (tables added since are granted too).
 */
const READER_GRANTS = [
  "GRANT USAGE ON SCHEMA cruxe TO %I",
  "GRANT SELECT ON ALL TABLES IN SCHEMA cruxe TO %I",
  "ALTER ROLE %I SET default_transaction_read_only = on",
];
const WRITER_GRANTS = [
  "REVOKE CREATE ON SCHEMA cruxe FROM %I",
  "GRANT USAGE ON SCHEMA cruxe TO %I",
  "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA cruxe TO %I",
  "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA cruxe TO %I",
];

/** `name` checked as a role name; `invalid_input` naming `field` otherwise. */
export function checkRoleName(name: string, field: string): string {
  if (ROLE_NAME.test(name)) return name;
  throw new CruxeError(
    "invalid_input",
    `${field} must be a role name of lower-case letters, digits and _ (got ${JSON.stringify(name.slice(0, 80))})`,
    { field },
  );
}

/** Runs `template` with `role` quoted by the server. */
async function grant(q: PgQuerier, template: string, role: string): Promise<void> {
  const [{ sql }] = await q.query("SELECT format($1, $2::text) AS sql", [template, role]);
  await q.query(String(sql));
}

/** Creates (when absent) the reader and writer group roles and grants each its rights on Cruxe's schema. */
export async function setupRoles(q: PgQuerier, roles: { reader: string; writer: string }): Promise<void> {
  const reader = checkRoleName(roles.reader, "--reader-role");
  const writer = checkRoleName(roles.writer, "--writer-role");
  for (const role of [reader, writer]) {
    const exists = await q.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role]);
    if (!exists.length) await grant(q, "CREATE ROLE %I NOLOGIN", role);
  }
  for (const t of READER_GRANTS) await grant(q, t, reader);
  for (const t of WRITER_GRANTS) await grant(q, t, writer);
}
