/**
 * Where the indexes of git refs live: a refs store, `<project
 * store>/refs/index.db`, holding every indexed commit and sharing what is the
 * same between them; the registered worktrees of one repository share the
 * one any of them has (`refsHomeFor` in `./project_refs.ts`).
 *
 * The refs store has the project-index schema with `files` holding file
 * versions: one row per (path, content) any indexed commit has, with its
 * symbols, edges, chunks, references and full-text rows keyed by its id as
 * usual. Each published commit has a row in `ref_commits`, the list of its
 * versions in `ref_files` and its own meta (ref name, kind, counts, times) in
 * `ref_meta`; `version_blobs` records each version's git blob id, which is
 * how the next commit finds the versions it shares and re-reads only the
 * blobs that differ. So a commit that differs from an indexed one by 50
 * files adds those 50 versions and a list of file ids.
 *
 * A reader sees one commit: `scopeToRef` gives its connection TEMP views of
 * `files`, `symbols`, `edges`, `chunks`, `refs` and `meta` holding only that
 * commit's rows, so every query reads a commit exactly as it reads the
 * working tree's index. What stays store-wide: the full-text statistics
 * (BM25 counts the versions of other commits too) and the name tables'
 * definition counts (prefix and fuzzy lookups may propose a name that only
 * another commit defines; it then finds nothing).
 *
 * A commit is published by the commit of its write transaction (a reader
 * never sees half of a build); one writer at a time holds `refsWriteLock`.
 * Versions no commit lists are deleted when a commit is published or
 * evicted (a query that was reading an evicted or rebuilt commit at that
 * moment may miss rows of it; the next one reads the new state). Version
 * ids are never reused. At most
 * `maxRefStores` (config) commits are kept, the least recently used out first.
 * Requires `--allow-read`/`--allow-write` on the project store.
 */
import { join } from "node:path";
import { closeQuietly, type Db, getMeta, openDb, tableNames } from "./db.ts";
import { isCommitId } from "../io/git.ts";
import { damagedMarker, indexPath } from "./project_index.ts";
import { refScopeSql } from "./schema.ts";

/** Directory of a project's refs store. */
export function refsDir(projectDir: string): string {
  return join(projectDir, "refs");
}

/** The refs store file of a project. */
export function refsStorePath(projectDir: string): string {
  return indexPath(refsDir(projectDir));
}

/** Size of a project's refs store, its journal included (0 when absent). */
export function refsStoreBytes(projectDir: string): number {
  let n = 0;
  for (const f of [refsStorePath(projectDir), `${refsStorePath(projectDir)}-wal`]) {
    try {
      n += Deno.statSync(f).size;
    } catch { /* absent */ }
  }
  return n;
}

/** What `list_refs`, the router and the base choice know about one indexed commit. */
export interface RefStoreInfo {
  commit: string;
  /** The refs store's directory (this project's, or another worktree's). */
  dir: string;
  /** The commit's id in the refs store (a new one per build). */
  refId: number;
  /** The ref name it was indexed for (the last one, when several names point at the commit). */
  refName: string | null;
  kind: string | null;
  fileCount: number;
  symbolCount: number;
  lastIndexedAt: string | null;
  /** Last use (indexed or queried), ms since the epoch: the eviction order. */
  lastUsedMs: number;
  /** The refs store's schema version: one other than this build's is rebuilt, not read. */
  schemaVersion: number;
}

/** The ref meta keys `RefStoreInfo` reads. */
const INFO_KEYS = ["ref_name", "ref_kind", "file_count", "symbol_count", "last_indexed_at", "published_at_ms"];

/**
 * The published commits of the refs store open as `db` (in `dir`), most
 * recently used first; empty for a store without the refs tables.
 */
export function readRefStores(db: Db, dir: string): RefStoreInfo[] {
  if (!tableNames(db).has("ref_commits")) return [];
  const schemaVersion = Number(getMeta(db, "schema_version") ?? 0);
  const rows = db.prepare(
    `SELECT c.id AS id, c.commit_id AS commit_id, m.key AS key, m.value AS value FROM main.ref_commits c
     LEFT JOIN main.ref_meta m ON m.ref_id = c.id AND m.key IN (${INFO_KEYS.map(() => "?").join(", ")})`,
  ).all(...INFO_KEYS) as { id: number; commit_id: string; key: string | null; value: string | null }[];
  const byId = new Map<number, { commit: string; meta: Map<string, string> }>();
  for (const r of rows) {
    const e = byId.get(r.id) ?? { commit: r.commit_id, meta: new Map<string, string>() };
    if (r.key !== null) e.meta.set(r.key, r.value ?? "");
    byId.set(r.id, e);
  }
  const out: RefStoreInfo[] = [];
  for (const [refId, { commit, meta }] of byId) {
    out.push({
      commit,
      dir,
      refId,
      refName: meta.get("ref_name") ?? null,
      kind: meta.get("ref_kind") ?? null,
      fileCount: Number(meta.get("file_count") ?? 0),
      symbolCount: Number(meta.get("symbol_count") ?? 0),
      lastIndexedAt: meta.get("last_indexed_at") ?? null,
      lastUsedMs: lastUsed(dir, commit) ?? Number(meta.get("published_at_ms") ?? 0),
      schemaVersion,
    });
  }
  return out.sort((a, b) => b.lastUsedMs - a.lastUsedMs);
}

/**
 * The published commits of a project's refs store, most recently used first
 * (none when it cannot be read or was found damaged: they are rebuilt on demand).
 */
export function listRefStores(projectDir: string): RefStoreInfo[] {
  const dir = refsDir(projectDir);
  if (damagedMarker(dir)) return [];
  let db: Db | null = null;
  try {
    db = openDb(indexPath(dir), { readOnly: true });
    return readRefStores(db, dir);
  } catch {
    return [];
  } finally {
    closeQuietly(db);
  }
}

/** The published index of `commit` in a project's refs store, if there is one. */
export function findRefStore(projectDir: string, commit: string): RefStoreInfo | undefined {
  if (!isCommitId(commit)) return undefined;
  return listRefStores(projectDir).find((s) => s.commit === commit);
}

/** Connections scoped to one commit (`scopeToRef`). */
const scoped = new WeakSet<Db>();

/**
 * Makes the connection `db` to a refs store read as the index of the commit
 * `refId` (see the module comment), its list and meta read in one
 * transaction. Once per connection. False (the connection unchanged) when
 * no commit has that id any more: it was rebuilt or evicted meanwhile.
 */
export function scopeToRef(db: Db, refId: number): boolean {
  db.exec("PRAGMA temp_store=MEMORY");
  db.exec("BEGIN");
  try {
    if (!db.prepare("SELECT 1 FROM main.ref_commits WHERE id = ?").get(refId)) {
      db.exec("ROLLBACK");
      return false;
    }
    db.exec(refScopeSql(refId));
    db.exec("COMMIT");
  } catch (e) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw e;
  }
  scoped.add(db);
  return true;
}

/** True for a connection that reads one commit of a refs store (full-text ranks must then join its rows). */
export function isRefScoped(db: Db): boolean {
  return scoped.has(db);
}

/** The id the refs store gives `commit` now (null: not published there), read through an open connection. */
export function publishedRefId(db: Db, commit: string): number | null {
  const r = db.prepare("SELECT id FROM main.ref_commits WHERE commit_id = ?").get(commit) as { id: number } | undefined;
  return r ? Number(r.id) : null;
}

/** Marker files whose mtime records a commit's last use. */
function usedMarker(dir: string, commit: string): string {
  return join(dir, "used", commit);
}

function lastUsed(dir: string, commit: string): number | null {
  try {
    return Deno.statSync(usedMarker(dir, commit)).mtime?.getTime() ?? null;
  } catch {
    return null;
  }
}

/** Records a use of an indexed commit (the eviction order). Best effort. */
export function touchRefStore(dir: string, commit: string): void {
  if (!isCommitId(commit)) return;
  const p = usedMarker(dir, commit);
  try {
    const now = new Date();
    try {
      Deno.utimeSync(p, now, now);
    } catch {
      Deno.mkdirSync(join(dir, "used"), { recursive: true });
      Deno.writeFileSync(p, new Uint8Array());
    }
  } catch { /* read-only home: eviction order is only a preference */ }
}

/** Forgets the use marker of an evicted commit. */
export function forgetRefUse(dir: string, commit: string): void {
  try {
    Deno.removeSync(usedMarker(dir, commit));
  } catch { /* none */ }
}

/**
 * The commits to evict so that, with `adding` published, at most `keep`
 * remain: the least recently used of `published` first.
 */
export function commitsToEvict(published: RefStoreInfo[], keep: number, adding: string): string[] {
  const others = published.filter((s) => s.commit !== adding); // most recently used first
  return others.slice(Math.max(0, keep - 1)).map((s) => s.commit);
}

/**
 * Holds the refs store's write lock (one ref build at a time per project,
 * across processes) until the returned file is closed. Waits for it.
 */
export async function refsWriteLock(projectDir: string): Promise<Deno.FsFile> {
  const dir = refsDir(projectDir);
  Deno.mkdirSync(dir, { recursive: true });
  const f = await Deno.open(join(dir, "write.lock"), { create: true, write: true });
  try {
    await f.lock(true);
  } catch (e) {
    f.close();
    throw e;
  }
  return f;
}

/** Removes one directory tree, quietly when it is already gone. */
export function removeDir(dir: string): void {
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
}

/** An earlier layout's store unused this long is no other Cruxe's (it recorded each use in the directory's mtime). */
const OLD_STORE_IDLE_MS = 24 * 3600_000;

/** The directories in a project's refs directory, as full paths with their names (none when it is absent). */
function refsSubdirs(projectDir: string): { name: string; dir: string }[] {
  try {
    return [...Deno.readDirSync(refsDir(projectDir))].filter((e) => e.isDirectory)
      .map((e) => ({ name: e.name, dir: join(refsDir(projectDir), e.name) }));
  } catch {
    return [];
  }
}

/**
 * Removes the stores of the earlier layout (one whole store per commit,
 * `refs/<commit>/` and `refs/<commit>.building/`) left unused for a day (an
 * older Cruxe still running on the same home keeps using its own).
 */
export function removeOldRefStores(projectDir: string, now = Date.now()): void {
  for (const { name, dir } of refsSubdirs(projectDir)) {
    if (!isCommitId(name.replace(/\.building$/, ""))) continue;
    try {
      if (now - (Deno.statSync(dir).mtime?.getTime() ?? now) >= OLD_STORE_IDLE_MS) removeDir(dir);
    } catch { /* held open elsewhere, or gone: removed by a later run */ }
  }
}

/** Name prefix of a ref build's stash directory (see `BlobStash`) in the refs directory. */
export const STASH_PREFIX = "stash-";

/** Removes stash directories a stopped build left (call under the write lock: no build is running then). */
export function removeStashes(projectDir: string): void {
  for (const { name, dir } of refsSubdirs(projectDir)) if (name.startsWith(STASH_PREFIX)) removeDir(dir);
}
