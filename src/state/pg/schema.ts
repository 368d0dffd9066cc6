/**
 * The PostgreSQL store's schema, in the schema `cruxe`: registered
 * repositories, index jobs with their leases, one snapshot per published
 * build of a ref (its file list, and its shard: the build's SQLite index,
 * compressed and cut into parts, which replicas copy and read), the head each
 * ref reads, and the blobs files are read from (shared by every snapshot). Each migration moves the store from version
 * N-1 to N in one transaction, under an advisory lock so two processes
 * starting at once migrate once.
 */
import { CruxeError } from "../../core/errors.ts";
import type { PgPool, PgQuerier } from "./pg_pool.ts";

/** Migrations; index i brings the store to version i + 1. */
export const PG_MIGRATIONS: string[] = [
  `CREATE SCHEMA IF NOT EXISTS cruxe;
   CREATE TABLE cruxe.meta (key text PRIMARY KEY, value text NOT NULL);
   CREATE TABLE cruxe.repos (
     id bigserial PRIMARY KEY,
     name text NOT NULL UNIQUE,
     path text NOT NULL UNIQUE,
     ref_patterns text[] NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE cruxe.jobs (
     id bigserial PRIMARY KEY,
     repo_id bigint NOT NULL REFERENCES cruxe.repos ON DELETE CASCADE,
     ref text NOT NULL,
     commit_id text NOT NULL,
     status text NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
     attempts integer NOT NULL DEFAULT 0,
     lease_owner text,
     lease_until timestamptz,
     error text,
     created_at timestamptz NOT NULL DEFAULT now(),
     started_at timestamptz,
     finished_at timestamptz
   );
   CREATE UNIQUE INDEX jobs_open ON cruxe.jobs (repo_id, ref, commit_id) WHERE status IN ('queued', 'running');
   CREATE INDEX jobs_claimable ON cruxe.jobs (id) WHERE status IN ('queued', 'running');
   CREATE TABLE cruxe.job_events (
     job_id bigint NOT NULL REFERENCES cruxe.jobs ON DELETE CASCADE,
     worker text NOT NULL,
     event text NOT NULL,
     at timestamptz NOT NULL DEFAULT clock_timestamp()
   );
   CREATE INDEX job_events_job ON cruxe.job_events (job_id);
   CREATE TABLE cruxe.snapshots (
     id bigserial PRIMARY KEY,
     repo_id bigint NOT NULL REFERENCES cruxe.repos ON DELETE CASCADE,
     ref text NOT NULL,
     commit_id text NOT NULL,
     file_count integer NOT NULL,
     symbol_count integer NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE cruxe.ref_heads (
     repo_id bigint NOT NULL REFERENCES cruxe.repos ON DELETE CASCADE,
     ref text NOT NULL,
     snapshot_id bigint NOT NULL REFERENCES cruxe.snapshots,
     commit_id text NOT NULL,
     published_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (repo_id, ref)
   );
   CREATE TABLE cruxe.blobs (oid text PRIMARY KEY, content bytea NOT NULL);
   CREATE TABLE cruxe.files (
     snapshot_id bigint NOT NULL REFERENCES cruxe.snapshots ON DELETE CASCADE,
     path text NOT NULL,
     blob_oid text,
     language text NOT NULL,
     line_count integer NOT NULL,
     symbol_count integer NOT NULL,
     PRIMARY KEY (snapshot_id, path)
   );
   CREATE TABLE cruxe.symbols (
     snapshot_id bigint NOT NULL REFERENCES cruxe.snapshots ON DELETE CASCADE,
     id bigint NOT NULL,
     path text NOT NULL,
     name text NOT NULL,
     name_lower text NOT NULL,
     qualified_name text NOT NULL,
     kind text NOT NULL,
     language text NOT NULL,
     signature text NOT NULL,
     line_start integer NOT NULL,
     line_end integer NOT NULL,
     parent_id bigint,
     symbol_id text NOT NULL,
     PRIMARY KEY (snapshot_id, id)
   );
   CREATE INDEX symbols_name ON cruxe.symbols (snapshot_id, name_lower);
   CREATE INDEX symbols_path ON cruxe.symbols (snapshot_id, path, line_start);
   CREATE TABLE cruxe.chunks (
     snapshot_id bigint NOT NULL REFERENCES cruxe.snapshots ON DELETE CASCADE,
     path text NOT NULL,
     line_start integer NOT NULL,
     line_end integer NOT NULL,
     language text NOT NULL,
     symbol_name text,
     content text NOT NULL,
     terms tsvector NOT NULL
   );
   CREATE INDEX chunks_terms ON cruxe.chunks USING gin (terms);
   CREATE INDEX chunks_snapshot ON cruxe.chunks (snapshot_id);`,
  // 2: a published build is its SQLite index (a shard, compressed in parts) that replicas read whole; the
  // snapshot's own rows are gone, so version 1's snapshots are dropped and their refs queued again by workers.
  `DROP TABLE cruxe.chunks;
   DROP TABLE cruxe.symbols;
   DELETE FROM cruxe.ref_heads;
   DELETE FROM cruxe.snapshots;
   DELETE FROM cruxe.jobs WHERE status = 'done';
   CREATE TABLE cruxe.shards (
     id bigserial PRIMARY KEY,
     digest text NOT NULL,
     bytes bigint NOT NULL,
     stored_bytes bigint NOT NULL,
     ref_id integer NOT NULL,
     schema_version integer NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE cruxe.shard_parts (
     shard_id bigint NOT NULL REFERENCES cruxe.shards ON DELETE CASCADE,
     seq integer NOT NULL,
     data bytea NOT NULL,
     PRIMARY KEY (shard_id, seq)
   );
   ALTER TABLE cruxe.snapshots ADD COLUMN shard_id bigint NOT NULL REFERENCES cruxe.shards;
   CREATE INDEX snapshots_shard ON cruxe.snapshots (shard_id);
   CREATE INDEX files_blob ON cruxe.files (blob_oid);`,
  // 3: a client's request that a ref be (re)indexed now, answered by a worker with the commit it published.
  `CREATE TABLE cruxe.refresh_requests (
     id bigserial PRIMARY KEY,
     repo_id bigint NOT NULL REFERENCES cruxe.repos ON DELETE CASCADE,
     ref text NOT NULL,
     requested_at timestamptz NOT NULL DEFAULT now(),
     commit_id text,
     answered_at timestamptz,
     error text
   );
   CREATE INDEX refresh_requests_open ON cruxe.refresh_requests (id) WHERE answered_at IS NULL;`,
];

/** The schema version this build reads and writes. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;

/** An arbitrary constant: the advisory lock key migrations hold. */
const MIGRATION_LOCK = 0x6372757865;

/**
 * Brings the store at `pool` to `PG_SCHEMA_VERSION` (creating it when
 * empty); needs a role that may create in the database (the owner, or the
 * setup role). Returns the version found before.
 */
export async function migratePgStore(pool: PgPool): Promise<number> {
  return await pool.transaction(async (q) => {
    await q.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    const version = await storedVersion(q);
    if (version === PG_MIGRATIONS.length) return version; // current: nothing to write (a writer role may not)
    if (version > PG_MIGRATIONS.length) throw newerSchema(version);
    for (let v = version; v < PG_MIGRATIONS.length; v++) await q.query(PG_MIGRATIONS[v]);
    await q.query(
      `INSERT INTO cruxe.meta (key, value) VALUES ('schema_version', $1)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [String(PG_MIGRATIONS.length)],
    );
    return version;
  });
}

/** The schema version the store records (0: no Cruxe schema). */
async function storedVersion(q: PgQuerier): Promise<number> {
  const exists = await q.query("SELECT to_regclass('cruxe.meta') IS NOT NULL AS ok");
  if (!exists[0].ok) return 0;
  const r = await q.query("SELECT value FROM cruxe.meta WHERE key = 'schema_version'");
  return r.length ? Number(r[0].value) : 0;
}

/** Fails unless the store's schema is this build's. */
export async function checkPgSchema(pool: PgPool): Promise<void> {
  const v = await storedVersion(pool);
  if (v === PG_SCHEMA_VERSION) return;
  if (v === 0) {
    throw new CruxeError(
      "storage_unavailable",
      "The PostgreSQL store has no Cruxe schema yet: run `cruxe store-setup --store URL` (or any writer) first.",
      { reason: "not_initialised" },
    );
  }
  if (v > PG_SCHEMA_VERSION) throw newerSchema(v);
  throw new CruxeError(
    "index_incompatible",
    `The PostgreSQL store has schema ${v}; this Cruxe reads schema ${PG_SCHEMA_VERSION}. Run a writer of this ` +
      "version (cruxe store-setup --store URL) to migrate it.",
    { schema_status: "reindex_required", found: v, expected: PG_SCHEMA_VERSION },
  );
}

/** The error for a store a newer Cruxe migrated. */
function newerSchema(v: number): CruxeError {
  return new CruxeError(
    "index_incompatible",
    `The PostgreSQL store has schema ${v}, newer than this Cruxe's ${PG_SCHEMA_VERSION}: upgrade Cruxe to use it.`,
    { schema_status: "newer", found: v, expected: PG_SCHEMA_VERSION },
  );
}
