/**
 * Where the indexes of git refs live: one store per indexed commit, beside
 * the working tree's store, at `<project store>/refs/<commit id>/index.db`.
 * A ref store is an immutable snapshot of its commit's tree: it is built in
 * `<commit id>.building/` and renamed into place when its job publishes, so
 * a reader never sees a half-built one. Each store records, besides the usual
 * meta, the ref name it was asked for (`ref_name`), its kind and commit, and
 * the git blob id of every file (`file_blobs`), which is what lets the next
 * ref start from this one and re-read only the blobs that differ.
 * At most `maxRefStores()` stores are kept per project (least recently used
 * first out). Requires `--allow-read`/`--allow-write` on the project store.
 */
import { backup } from "node:sqlite";
import { join } from "node:path";
import { closeQuietly, type Db, getMeta, openDb } from "./db.ts";
import { isCommitId } from "./git.ts";
import { indexPath } from "./project_index.ts";

/** Directory holding a project's ref stores. */
function refsDir(projectDir: string): string {
  return join(projectDir, "refs");
}

/** The store directory of one indexed commit. */
export function refStoreDir(projectDir: string, commit: string): string {
  return join(refsDir(projectDir), commit);
}

/** Where the store of `commit` is built before it is renamed into place. */
export function refBuildDir(projectDir: string, commit: string): string {
  return join(refsDir(projectDir), `${commit}.building`);
}

/** Default number of ref stores kept per project (`CRUXE_MAX_REF_STORES` overrides it). */
const DEFAULT_MAX_REF_STORES = 8;

/** How many ref stores a project keeps: `CRUXE_MAX_REF_STORES` (1..1000) or `DEFAULT_MAX_REF_STORES`. */
export function maxRefStores(): number {
  let raw: string | undefined;
  try {
    raw = Deno.env.get("CRUXE_MAX_REF_STORES");
  } catch { /* no env permission: the default */ }
  const n = Number(raw);
  return raw && Number.isInteger(n) && n >= 1 && n <= 1000 ? n : DEFAULT_MAX_REF_STORES;
}

/** What `list_refs` and the base choice know about one ref store. */
export interface RefStoreInfo {
  commit: string;
  dir: string;
  /** The ref name it was indexed for (the last one, when several names point at the commit). */
  refName: string | null;
  kind: string | null;
  fileCount: number;
  symbolCount: number;
  lastIndexedAt: string | null;
  /** Last use (indexed or queried), ms since the epoch: the eviction order. */
  lastUsedMs: number;
  /** The store's schema version: one older than this build's is rebuilt, not read. */
  schemaVersion: number;
}

/** The published ref stores of a project, most recently used first (unreadable ones are left out). */
export function listRefStores(projectDir: string): RefStoreInfo[] {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(refsDir(projectDir))];
  } catch {
    return [];
  }
  const out: RefStoreInfo[] = [];
  for (const e of entries) {
    if (!e.isDirectory || !isCommitId(e.name)) continue;
    const dir = join(refsDir(projectDir), e.name);
    const info = readRefStoreInfo(dir, e.name);
    if (info) out.push(info);
  }
  return out.sort((a, b) => b.lastUsedMs - a.lastUsedMs);
}

/** The facts of the published store of `commit` in `dir` (a ref store directory); null when unreadable. */
export function readRefStoreInfo(dir: string, commit: string): RefStoreInfo | null {
  let db: Db | null = null;
  try {
    db = openDb(indexPath(dir), { readOnly: true });
    const meta = (k: string) => getMeta(db!, k);
    return {
      commit,
      dir,
      refName: meta("ref_name"),
      kind: meta("ref_kind"),
      fileCount: Number(meta("file_count") ?? 0),
      symbolCount: Number(meta("symbol_count") ?? 0),
      lastIndexedAt: meta("last_indexed_at"),
      schemaVersion: Number(meta("schema_version") ?? 0),
      lastUsedMs: Deno.statSync(dir).mtime?.getTime() ?? 0,
    };
  } catch {
    return null;
  } finally {
    closeQuietly(db);
  }
}

/** True when a build of `commit` has been started and not published (it may be running or abandoned). */
export function refBuildExists(projectDir: string, commit: string): boolean {
  try {
    return Deno.statSync(refBuildDir(projectDir, commit)).isDirectory;
  } catch {
    return false;
  }
}

/** Records a use of a ref store (its directory's mtime is the eviction order). Best effort. */
export function touchRefStore(dir: string): void {
  try {
    const now = new Date();
    Deno.utimeSync(dir, now, now);
  } catch { /* read-only home: eviction order is only a preference */ }
}

/**
 * A consistent copy of the store at `from` into the new file `to`. A live
 * store (`immutable` false: the working tree's, which a sync may write
 * meanwhile) is copied through SQLite's online backup, whole pages in one
 * step so it never restarts half way. A published ref store is never
 * written again (a forced rebuild renames a new file into place), and its
 * writer folded the WAL into the file when it closed, so the file alone is
 * the whole store: it is copied by the file system (in-kernel, a reflink
 * where the file system has them), several times faster.
 */
export async function copyStore(from: string, to: string, immutable: boolean): Promise<void> {
  if (immutable && walSize(from) === 0) {
    await Deno.copyFile(from, to);
    return;
  }
  const src = openDb(from, { readOnly: true });
  try {
    await backup(src, to, { rate: 1 << 30 });
  } finally {
    src.close();
  }
}

/** Size of a store's `-wal` file (0 when there is none: everything is in the main file). */
function walSize(path: string): number {
  try {
    return Deno.statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

/** Removes one directory tree, quietly when it is already gone. */
export function removeDir(dir: string): void {
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
}

/** A build directory untouched this long is a crash's leftover (a build writes its store continuously). */
const ABANDONED_BUILD_MS = 24 * 3600_000;

/** Removes build directories left by a process that stopped mid-build (untouched for a day); returns how many. */
export function removeAbandonedBuilds(projectDir: string, now = Date.now()): number {
  let n = 0;
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(refsDir(projectDir))];
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (!e.isDirectory || !e.name.endsWith(".building")) continue;
    const dir = join(refsDir(projectDir), e.name);
    try {
      const st = Deno.statSync(join(dir, "index.db"));
      if (now - (st.mtime?.getTime() ?? now) < ABANDONED_BUILD_MS) continue;
    } catch { /* no store file yet: judged by the directory */ }
    try {
      if (now - (Deno.statSync(dir).mtime?.getTime() ?? now) < ABANDONED_BUILD_MS) continue;
      removeDir(dir);
      n++;
    } catch { /* gone meanwhile */ }
  }
  return n;
}

/**
 * Removes the least recently used ref stores past `keep` (never the one
 * named by `protect`); returns the commits removed.
 */
export function evictRefStores(projectDir: string, keep: number, protect?: string): string[] {
  const stores = listRefStores(projectDir);
  const removed: string[] = [];
  for (const s of stores.slice(keep).reverse()) {
    if (s.commit === protect) continue;
    try {
      removeDir(s.dir);
      removed.push(s.commit);
    } catch { /* held open elsewhere (Windows): kept until the next eviction */ }
  }
  return removed;
}
