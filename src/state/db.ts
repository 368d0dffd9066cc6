/**
 * Opening SQLite files (`node:sqlite`, WAL). Requires `--allow-read` and
 * `--allow-write` on the store directory.
 */
import { existsSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { type StorageReason, storageReasonAt } from "./storage_errors.ts";
import { requireKind } from "./store_kind.ts";
import { registerStoreFunctions } from "./store_functions.ts";

export type Db = DatabaseSync;

/** The page cap of stores this thread opens for writing (`capStorePages`); null: none. */
let pageCap: number | null = null;

/**
 * Caps every store this thread opens for writing from now on at `pages` (`PRAGMA max_page_count`; null: no cap),
 * so a test can make SQLite report a full disk without filling a real one. Set from the configuration
 * (`CruxeConfig.testMaxPageCount`) by whoever opens stores: the CLI context and the job worker.
 */
export function capStorePages(pages: number | null): void {
  pageCap = pages;
}

/**
 * Opens (creating if needed) a database in WAL mode with a busy timeout.
 * `snapshot` reads an existing file into memory and opens that copy
 * read-only (`query_only`): how a store in a directory this process cannot
 * write is still read, since SQLite cannot open a WAL database there (it
 * would need to create the `-shm` file). It costs the file's size in memory.
 * A read-only connection, or one opened `forQueries`, gets a small page cache
 * (QUERY_CACHE_KIB); a writing one a larger one. Something other than a
 * regular file at `path` or its `-wal`/`-shm` (a directory, a FIFO) is
 * `storage_unavailable` (`not_a_file`), never opened.
 */
export function openDb(
  path: string,
  opts: { readOnly?: boolean; snapshot?: boolean; forQueries?: boolean } = {},
): Db {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) requireKind(file, "file");
  if (opts.snapshot) return openSnapshot(path);
  const readOnly = opts.readOnly ?? false;
  const cacheKiB = readOnly || opts.forQueries ? QUERY_CACHE_KIB : WRITE_CACHE_KIB;
  const db = new DatabaseSync(path, { readOnly, timeout: 5000 });
  try {
    if (!readOnly) {
      db.exec("PRAGMA journal_mode=WAL");
      db.exec("PRAGMA synchronous=NORMAL");
      if (pageCap !== null) db.exec(`PRAGMA max_page_count=${pageCap}`);
    }
    tune(db, cacheKiB);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/**
 * Failures of opening a store that an in-memory snapshot gets past: its
 * directory cannot be written, or its disk has no room for the `-shm`/`-wal`.
 */
const SNAPSHOT_REASONS: ReadonlySet<StorageReason> = new Set([
  "read_only",
  "permission_denied",
  "cannot_open",
  "disk_full",
]);

/**
 * Opens the store at `path` for writing and passes it to `ready` (migrations,
 * checks). When that fails because the directory cannot be written (reason
 * `read_only`, `permission_denied` or `cannot_open`) or its disk is full
 * (`disk_full`) and the file exists, an
 * in-memory snapshot of it is opened instead (see `openDb`), passed to
 * `ready`, and the reason returned as `snapshot`. Any other failure is
 * thrown with the database closed. `forQueries`: see `openDb`.
 */
export function openOrSnapshot(
  path: string,
  ready: (db: Db, snapshot: boolean) => void = () => {},
  opts: { forQueries?: boolean } = {},
): { db: Db; snapshot: StorageReason | null } {
  let db: Db | null = null;
  let reason: StorageReason | null;
  try {
    db = openDb(path, opts);
    ready(db, false);
    return { db, snapshot: null };
  } catch (e) {
    db?.close();
    reason = storageReasonAt(e, path);
    if (!reason || !SNAPSHOT_REASONS.has(reason) || !existsSync(path)) throw e;
  }
  const copy = openDb(path, { snapshot: true });
  try {
    ready(copy, true);
  } catch (e) {
    copy.close();
    throw e;
  }
  return { db: copy, snapshot: reason };
}

/** Closes `db` if it is open; a connection never opened or already closed is no error. */
export function closeQuietly(db: Db | null | undefined): void {
  try {
    db?.close();
  } catch { /* already closed */ }
}

/**
 * SQLite page cache of a connection that writes (KiB): the registry and the
 * vectors store. The index writer sets its own, larger one (bulk loads and
 * syncs revisit their pages).
 */
const WRITE_CACHE_KIB = 32_000;
/**
 * Page cache of a connection that only answers queries (KiB). The main thread
 * and every reader worker hold one per open index, and the OS page cache
 * keeps the file's hot pages anyway; kept small, server memory stays flat in
 * the size of the index and grows little with the number of workers.
 */
const QUERY_CACHE_KIB = 8_000;

function tune(db: Db, cacheKiB: number): void {
  registerStoreFunctions(db); // the symbols view spells handles with them
  db.exec("PRAGMA foreign_keys=OFF");
  db.exec("PRAGMA temp_store=MEMORY");
  db.exec(`PRAGMA cache_size=-${cacheKiB}`);
}

function openSnapshot(path: string): Db {
  const bytes = Deno.readFileSync(path);
  // Bytes 18-19 say "WAL"; an in-memory copy has no -wal/-shm, so it is read as a rollback-journal file.
  if (bytes.length >= 100) bytes[18] = bytes[19] = 1;
  const db = new DatabaseSync(":memory:");
  try {
    db.deserialize(bytes);
    db.exec("PRAGMA query_only=ON");
    tune(db, QUERY_CACHE_KIB);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/** The names of the tables of a database (cheap: reads only the schema page). */
export function tableNames(db: Db): Set<string> {
  const rows = db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").all() as { name: string }[];
  return new Set(rows.map((r) => r.name));
}

/**
 * SQLite's `quick_check`: "ok", or the first problems it found (at most
 * `limit`). Reads every page, so its cost grows with the file.
 */
export function quickCheck(db: Db, limit = 5): string {
  const rows = db.prepare(`PRAGMA quick_check(${limit})`).all() as Record<string, string>[];
  const lines = rows.map((r) => String(Object.values(r)[0]));
  return lines.length === 1 && lines[0] === "ok" ? "ok" : lines.join("; ");
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

/** Writes a compacted copy of the database open as `db` (a read connection will do) to the new file `path`. */
export function compactCopy(db: Db, path: string): void {
  db.prepare("VACUUM INTO ?").run(path);
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

/**
 * Renames a store file and its `-wal`/`-shm` to `<path>.corrupt-<timestamp>`
 * (a damaged store is kept for inspection, never deleted). Returns the new path.
 */
export function moveAside(path: string): string {
  const dest = `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      Deno.renameSync(path + suffix, dest + suffix);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }
  return dest;
}

/** The current UTC time as ISO 8601 without milliseconds. */
export function nowIso(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}
