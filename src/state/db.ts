/**
 * Opening SQLite files (`node:sqlite`, WAL). Requires `--allow-read` and
 * `--allow-write` on the store directory.
 */
import { DatabaseSync } from "node:sqlite";

export type Db = DatabaseSync;

/** Opens (creating if needed) a database in WAL mode with a busy timeout. */
export function openDb(path: string, opts: { readOnly?: boolean } = {}): Db {
  const db = new DatabaseSync(path, { readOnly: opts.readOnly ?? false, timeout: 5000 });
  if (!opts.readOnly) {
    db.exec("PRAGMA journal_mode=WAL");
    db.exec("PRAGMA synchronous=NORMAL");
  }
  db.exec("PRAGMA foreign_keys=OFF");
  db.exec("PRAGMA temp_store=MEMORY");
  db.exec("PRAGMA cache_size=-32000");
  return db;
}

/** Runs `fn` inside one transaction; rolls back on any throw. */
export function transaction<T>(db: Db, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const out = fn();
    db.exec("COMMIT");
    return out;
  } catch (e) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw e;
  }
}

/** Reads a `meta` table key. */
export function getMeta(db: Db, key: string): string | null {
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
  return row?.value ?? null;
}

/** Writes a `meta` table key. */
export function setMeta(db: Db, key: string, value: string): void {
  db.prepare("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
    .run(key, value);
}

/** The current UTC time as ISO 8601 without milliseconds. */
export function nowIso(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}
