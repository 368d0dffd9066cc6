/**
 * Indexing a git ref from the object store, never from the working tree:
 * the commit's tree is listed with `ls-tree` and its blobs read with
 * `cat-file --batch` (both through `./git.ts`: no filter, textconv or hook
 * runs), so nothing is checked out and the working tree, `HEAD` and the git
 * index are untouched. Symlink entries (mode 120000) and submodule gitlinks
 * (160000) are never read; blobs over the size limit, binary blobs and
 * ignored paths follow the working tree's rules.
 *
 * Refs share what is the same: a new ref store starts as a consistent copy
 * of the nearest store already built (another ref's, compared by git blob
 * id per path, or the working tree's), and the ordinary incremental run then
 * parses only the files whose blobs differ. From another ref store no
 * unchanged blob is even read; from the working tree's store every blob is
 * read once and compared by content hash. Requires what the indexer requires,
 * plus `--allow-run=git`.
 */
import { existsSync, mkdirSync } from "node:fs";
import { contentHash } from "../core/ids.ts";
import { CruxeError } from "../core/errors.ts";
import { debug } from "../core/log.ts";
import { textLanguageForPath } from "../core/languages.ts";
import { indexPath, IndexWriter, type ManifestEntry, openIndexForRead } from "../state/project_index.ts";
import { fileBlobIds } from "../state/read/file_blobs.ts";
import {
  copyStore,
  evictRefStores,
  listRefStores,
  maxRefStores,
  refBuildDir,
  refStoreDir,
  removeAbandonedBuilds,
  removeDir,
} from "../state/ref_stores.ts";
import { openDb } from "../state/db.ts";
import type { IndexSummary, ProgressEvent } from "../state/jobs.ts";
import { gitBlobSizes, gitListTree, gitReadBlobs, type ResolvedRef, type TreeEntry } from "../state/git.ts";
import { builtinSkip, IgnoreFile, IgnoreStack } from "./ignore_rules.ts";
import { type FileSource, type IndexOptions, runIndex } from "./indexer.ts";
import { languageForPath } from "./languages/registry.ts";
import type { ScannedFile, ScanResult } from "./scan.ts";

/** A ref index run: the working tree's options plus the resolved ref. */
interface RefIndexOptions extends IndexOptions {
  gitRef: ResolvedRef;
  /** Store directories of the repository's other worktrees, whose ref stores may serve as the base. */
  shareDirs?: string[];
}

/** What a ref index answers besides the usual summary: the commit and which store it started from. */
interface RefIndexSummary extends IndexSummary {
  commit: string;
  /** `working_tree`, `ref:<commit>` or `none` (a cold build). */
  base: string;
  /**
   * Time before the index run, in ms: `tree` (listing the commit's tree), `copy` (the base store's copy),
   * `blobs` (reading blobs and, against the working tree's store, hashing them), `publish` (rename, eviction).
   */
  refTimings: { tree: number; copy: number; blobs: number; publish: number };
}

/** The store a new ref store starts from. */
interface Base {
  label: string;
  path: string;
  /** Blob ids of the base's files; null for the working tree's store (compared by content instead). */
  blobs: Map<string, string> | null;
}

/** Share of a ref's files a ref store must hold with the same blob to be preferred over the working tree's store. */
const MIN_SHARED = 0.5;

/**
 * The nearest usable store for `entries`: the ref store (this worktree's,
 * or another worktree's of the same repository: the same commit there is a
 * whole match) sharing the most blobs, unless it shares under half of them
 * and the working tree's store exists; null when there is neither (a cold build).
 */
function chooseBase(projectDir: string, shareDirs: string[], entries: TreeEntry[], exclude: string): Base | null {
  let best: Base | null = null;
  let bestShared = -1;
  const own = listRefStores(projectDir).filter((s) => s.commit !== exclude);
  for (const s of [...own, ...shareDirs.flatMap((d) => listRefStores(d))]) {
    let blobs: Map<string, string>;
    const db = openDb(indexPath(s.dir), { readOnly: true });
    try {
      blobs = fileBlobIds(db);
    } finally {
      db.close();
    }
    const shared = entries.filter((e) => blobs.get(e.path) === e.oid).length;
    if (shared > bestShared) [best, bestShared] = [{ label: `ref:${s.commit}`, path: indexPath(s.dir), blobs }, shared];
  }
  const wt = openIndexForRead(projectDir);
  const wtUsable = wt.db !== null && wt.status === "compatible";
  wt.db?.close();
  if (wtUsable && (!best || bestShared < entries.length * MIN_SHARED)) {
    return { label: "working_tree", path: indexPath(projectDir), blobs: null };
  }
  return best;
}

/** The ref's `.cruxeignore` (from its own tree), or an empty stack. */
async function treeIgnore(root: string, entries: TreeEntry[]): Promise<IgnoreStack> {
  const e = entries.find((x) => x.path === ".cruxeignore" && x.type === "blob" && x.mode !== "120000");
  if (!e || ((await gitBlobSizes(root, [e.oid]))?.get(e.oid) ?? Infinity) > 8 * 1024 * 1024) return new IgnoreStack();
  let text: string | null = null;
  await gitReadBlobs(root, [e.oid], (_, b) => text = b ? new TextDecoder().decode(b) : null);
  return new IgnoreStack().with(text ? new IgnoreFile("", text) : null);
}

/** A tree's files as a scan, plus the blob id of each and the files whose bytes must be read. */
interface TreePlan {
  scan: ScanResult;
  blobs: Map<string, string>;
  toRead: ScannedFile[];
}

/**
 * Sorts the tree's entries like a scan of the same files on disk: symlink
 * entries and submodules skipped, ignore rules applied (the size limit is
 * applied when blobs are read, see `readPlanned`). A
 * file whose blob the base store holds at the same path (with a language
 * known by name) is marked unchanged by giving it the base's size and
 * mtime, and one the base skipped is left out; every other file must be read.
 */
function planTree(
  entries: TreeEntry[],
  ignore: IgnoreStack,
  manifest: Map<string, ManifestEntry>,
  base: Base | null,
): TreePlan {
  const skipped = { ignored: 0, tooLarge: 0, symlinks: 0, unreadable: 0 };
  const files: ScannedFile[] = [];
  const blobs = new Map<string, string>();
  const toRead: ScannedFile[] = [];
  for (const e of entries) {
    if (e.mode === "120000") {
      skipped.symlinks++; // its target may be anywhere: never read, like a symlink on disk
      continue;
    }
    if (e.type !== "blob" || builtinSkip(e.path) || ignore.ignored(e.path, false)) {
      skipped.ignored++; // a submodule (gitlink) is another repository's commit, not a file
      continue;
    }
    blobs.set(e.path, e.oid);
    const old = manifest.get(e.path);
    const named = languageForPath(e.path) ?? textLanguageForPath(e.path);
    const sameBlob = base?.blobs?.get(e.path) === e.oid;
    if (old && named && sameBlob) {
      files.push({ path: e.path, size: old.size, mtimeMs: old.mtime_ms });
      continue;
    }
    // The same blob the base skipped (binary, or no language by name or `#!`) is skipped again unread.
    if (!old && sameBlob) continue;
    const f = { path: e.path, size: 0, mtimeMs: 0 }; // its blob's size when it is read
    files.push(f);
    toRead.push(f);
  }
  return { scan: { files, skipped, vcs: "git" }, blobs, toRead };
}

/**
 * Reads the blobs of `toRead`: their sizes first (`cat-file --batch-check`;
 * a blob over `maxFileBytes` is skipped unread), then their bytes (one
 * `cat-file --batch`). Against the working
 * tree's store, a blob whose content hash equals the stored file's is
 * unchanged: the file takes the stored size and mtime and its bytes are
 * dropped, so memory holds only what will be parsed.
 */
async function readPlanned(
  root: string,
  plan: TreePlan,
  manifest: Map<string, ManifestEntry>,
  compareContent: boolean,
  maxFileBytes: number,
): Promise<Map<string, Uint8Array>> {
  const byOid = new Map<string, ScannedFile[]>();
  for (const f of plan.toRead) {
    const oid = plan.blobs.get(f.path)!;
    const list = byOid.get(oid);
    if (list) list.push(f);
    else byOid.set(oid, [f]);
  }
  const sizes = await gitBlobSizes(root, [...byOid.keys()]);
  if (!sizes) throw new CruxeError("internal_error", `git could not read the blob sizes of ${root}`);
  const tooLarge = new Set<string>();
  for (const [oid, files] of byOid) {
    const size = sizes.get(oid) ?? Infinity;
    if (size <= maxFileBytes) {
      for (const f of files) f.size = size;
      continue;
    }
    // Over the limit: never read (like a file that size on disk), counted and left out of the scan.
    for (const f of files) tooLarge.add(f.path);
    byOid.delete(oid);
  }
  if (tooLarge.size) {
    plan.scan.skipped.tooLarge += tooLarge.size;
    plan.scan.files = plan.scan.files.filter((f) => !tooLarge.has(f.path));
    for (const p of tooLarge) plan.blobs.delete(p);
  }
  const bytes = new Map<string, Uint8Array>();
  const ok = await gitReadBlobs(root, [...byOid.keys()], (oid, b) => {
    if (!b) return;
    const hash = compareContent ? contentHash(b) : "";
    for (const f of byOid.get(oid) ?? []) {
      const old = manifest.get(f.path);
      if (compareContent && old && old.hash === hash && (languageForPath(f.path) || textLanguageForPath(f.path))) {
        f.size = old.size;
        f.mtimeMs = old.mtime_ms;
      } else bytes.set(f.path, b);
    }
  });
  if (!ok) throw new CruxeError("internal_error", `git could not read the blobs of ${root}`);
  return bytes;
}

/** The planned files as an index source: the scan as planned, reads from the blobs read. */
function treeSource(plan: TreePlan, bytes: Map<string, Uint8Array>): FileSource {
  return {
    scan: () => Promise.resolve(plan.scan),
    read: (path, maxBytes) => {
      const b = bytes.get(path);
      if (!b || b.length > maxBytes) throw new Error(`${path}: no blob read`);
      bytes.delete(path); // read once, by the diff or the parse
      return b;
    },
  };
}

/**
 * Builds the store of `opts.gitRef.commit` (see the module comment):
 * list the tree, copy the nearest store, plan, read the differing blobs,
 * run the incremental index on the copy, record blob ids and the ref, and
 * publish by renaming the build directory into place; then evict ref stores
 * past the cap. An already published store of the commit is kept as is
 * unless `force` (a no-op run answers `mode: "incremental"` with nothing changed).
 */
export async function runRefIndex(
  opts: RefIndexOptions,
  onProgress: (e: ProgressEvent) => void,
): Promise<RefIndexSummary> {
  const { commit } = opts.gitRef;
  const finalDir = refStoreDir(opts.projectDir, commit);
  const buildDir = refBuildDir(opts.projectDir, commit);
  const t0 = performance.now();
  let mark = t0;
  const lap = () => Math.round(-mark + (mark = performance.now()));
  const entries = await gitListTree(opts.root, commit);
  const tree = lap();
  if (!entries) throw new CruxeError("internal_error", `git could not list the tree of ${commit} in ${opts.root}`);
  removeDir(buildDir);
  mkdirSync(buildDir, { recursive: true });
  try {
    const base = opts.force ? null : chooseBase(opts.projectDir, opts.shareDirs ?? [], entries, commit);
    if (base) await copyStore(base.path, indexPath(buildDir), base.blobs !== null);
    const copy = lap();
    let manifest = new Map<string, ManifestEntry>();
    if (base) {
      const w = IndexWriter.open(buildDir, false);
      try {
        manifest = w.manifest();
      } finally {
        w.close();
      }
    }
    const plan = planTree(entries, await treeIgnore(opts.root, entries), manifest, base);
    const compareContent = base !== null && base.blobs === null;
    const bytes = await readPlanned(opts.root, plan, manifest, compareContent, opts.maxFileBytes);
    const blobs = lap();
    debug(`ref ${opts.gitRef.ref} (${commit}): base ${base?.label ?? "none"}, ${bytes.size} blobs to index`);
    const summary = await runIndex(
      { ...opts, projectDir: buildDir, ref: opts.gitRef.ref, force: false },
      onProgress,
      {
        source: treeSource(plan, bytes),
        scratchStore: true,
        beforePublish: (w) => {
          w.writeBlobIds(plan.blobs);
          w.setMeta("ref_name", opts.gitRef.ref);
          w.setMeta("ref_kind", opts.gitRef.kind);
          w.setMeta("ref_commit", commit);
        },
      },
    );
    lap();
    // A forced rebuild replaces the published store: moved aside first, so a query never meets a missing one
    // for longer than between two renames.
    const aside = `${finalDir}.replaced`;
    if (existsSync(finalDir)) {
      removeDir(aside);
      Deno.renameSync(finalDir, aside);
    }
    Deno.renameSync(buildDir, finalDir);
    removeDir(aside);
    evictRefStores(opts.projectDir, maxRefStores(), commit);
    removeAbandonedBuilds(opts.projectDir);
    const refTimings = { tree, copy, blobs, publish: lap() };
    // The whole run, preparation included (the index run's own time is in `timings`).
    return {
      ...summary,
      durationMs: Math.round(performance.now() - t0),
      commit,
      base: base?.label ?? "none",
      refTimings,
    };
  } catch (e) {
    removeDir(buildDir);
    throw e;
  }
}
