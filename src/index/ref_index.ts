/**
 * Indexing a git ref from the object store, never from the working tree:
 * the commit's tree is listed with `ls-tree` and its blobs read with
 * `cat-file --batch` (both through `./git.ts`: no filter, textconv or hook
 * runs), so nothing is checked out and the working tree, `HEAD` and the git
 * index are untouched. Symlink entries (mode 120000) and submodule gitlinks
 * (160000) are never read; blobs over the size limit, binary blobs and
 * ignored paths follow the working tree's rules.
 *
 * Refs share what is the same (layout: `../state/ref_stores.ts`): a new
 * commit starts from the list of the indexed commit sharing the most blobs
 * with it (compared by git blob id per path, so no unchanged blob is read),
 * takes any other file whose (path, blob) another commit already has, and
 * the ordinary incremental run then parses and stores only the rest. The project's first commit starts from a copy of the
 * working tree's index (every blob read once and compared by content hash).
 * Requires what the indexer requires, plus `--allow-run=git`.
 */
import { contentHash } from "../core/ids.ts";
import { CruxeError } from "../core/errors.ts";
import { debug } from "../core/log.ts";
import { textLanguageForPath } from "../core/languages.ts";
import {
  damagedMarkerPath,
  indexPath,
  type ManifestEntry,
  markDamaged,
  openIndexForRead,
} from "../state/project_index.ts";
import { isCorruption, storageReason } from "../state/storage_errors.ts";
import {
  commitsToEvict,
  forgetRefUse,
  readRefStores,
  refsDir,
  refsStoreBytes,
  refsStorePath,
  type RefStoreInfo,
  refsWriteLock,
  removeDir,
  removeOldRefStores,
  removeStashes,
  STASH_PREFIX,
  touchRefStore,
} from "../state/ref_stores.ts";
import { RefStoreWriter, SEED_REF } from "../state/write/ref_store_writer.ts";
import { hasList, listedBlobIds, skippedBlobKeys, versionWithBlob } from "../state/read/file_blobs.ts";
import { closeQuietly, type Db } from "../state/db.ts";
import type { IndexSummary, ProgressEvent } from "../state/jobs.ts";
import { gitBlobSizes, gitListTree, gitReadBlobs, type ResolvedRef, type TreeEntry } from "../io/git.ts";
import { builtinSkip, IgnoreFile, IgnoreStack } from "./ignore_rules.ts";
import { storeSeedChunkText } from "../state/write/ref_seed_text.ts";
import { type FileSource, type IndexOptions, mayBeIndexed, runIndex } from "./indexer.ts";
import { languageForPath } from "./languages/registry.ts";
import { type ScannedFile, type ScanResult, warnRuleProblems } from "./scan.ts";
import { backup } from "node:sqlite";
import { join } from "node:path";
import { BlobStash } from "./blob_stash.ts";
import { existsSync } from "node:fs";

/** A ref index run: the working tree's options plus the resolved ref. */
interface RefIndexOptions extends IndexOptions {
  gitRef: ResolvedRef;
  /**
   * The project store directory whose refs store the build writes: another
   * worktree's of the same repository when that one holds the repository's
   * refs store (default: `projectDir`, whose working-tree index seeds a new one).
   */
  refsHome?: string;
  /** Indexed commits the refs store keeps (the config's `maxRefStores`); the least recently used go first. */
  maxRefStores: number;
}

/** What a ref index answers besides the usual summary: the commit and which list it started from. */
interface RefIndexSummary extends IndexSummary {
  commit: string;
  /** `working_tree` (the seeded copy), `ref:<commit>` or `none` (every file parsed). */
  base: string;
  /**
   * Time outside the index run, in ms: `tree` (listing the commit's tree), `wait` (for another ref build of the
   * project to end), `copy` (seeding the refs store from the working tree's index, the first time), `blobs`
   * (planning, reading blobs and, against the seed, hashing them), `publish` (after the index run).
   */
  refTimings: { tree: number; wait: number; copy: number; blobs: number; publish: number };
  /** Bytes the refs store file grew by (negative: it shrank), so what this commit cost in storage. */
  storeGrowthBytes: number;
}

/** The list a new commit starts from. */
interface Base {
  label: string;
  refId: number;
  /** Blob ids of the base's files; null for the seed (compared by content instead). */
  blobs: Map<string, string> | null;
}

/**
 * The list `entries` start from: the published commit sharing the most blobs
 * with them, else the seed list (a store just seeded from the working tree's
 * index), else none. `db` is a connection to the refs store and
 * `published` its commits.
 */
function chooseBase(db: Db, published: RefStoreInfo[], entries: TreeEntry[], exclude: string): Base | null {
  let best: Base | null = null;
  let bestShared = -1;
  for (const s of published) {
    if (s.commit === exclude) continue;
    const blobs = listedBlobIds(db, s.refId);
    const shared = entries.filter((e) => blobs.get(e.path) === e.oid).length;
    if (shared > bestShared) [best, bestShared] = [{ label: `ref:${s.commit}`, refId: s.refId, blobs }, shared];
  }
  if (best) return best;
  return hasList(db, SEED_REF) ? { label: "working_tree", refId: SEED_REF, blobs: null } : null;
}

/**
 * Versions the refs store already holds (another commit's) of the entries
 * whose blob the base does not have at that path: path → file id. Against
 * the seed (no blob ids) there are none.
 */
function versionsToAdopt(db: Db, files: TreeEntry[], base: Base | null): Map<string, number> {
  const out = new Map<string, number>();
  if (!base?.blobs) return out;
  for (const e of files) {
    if (base.blobs.get(e.path) === e.oid) continue;
    const id = versionWithBlob(db, e.path, e.oid);
    if (id !== null) out.set(e.path, id);
  }
  return out;
}

/** Why a tree entry is not a file to index, as the scan counts it; null when it is one. */
function notIndexed(e: TreeEntry, ignore: IgnoreStack): "symlinks" | "ignored" | "unnamed" | null {
  // A symlink's target may be anywhere: never read, like a symlink on disk.
  if (e.mode === "120000") return "symlinks";
  // A submodule (gitlink) is another repository's commit, not a file.
  if (e.type !== "blob" || builtinSkip(e.path) || ignore.ignored(e.path, false)) return "ignored";
  // An extension no language claims: never read, as the indexer never reads it.
  return mayBeIndexed(e.path) ? null : "unnamed";
}

/** Removes the refs store of a project (its file, journal, damage marker and use markers). */
function removeRefsStore(projectDir: string): void {
  const p = refsStorePath(projectDir);
  for (const f of [p, `${p}-wal`, `${p}-shm`, `${p}-journal`, damagedMarkerPath(refsDir(projectDir))]) {
    try {
      Deno.removeSync(f);
    } catch { /* absent */ }
  }
  removeDir(`${refsDir(projectDir)}/used`);
}

/**
 * Makes the refs store in `home` ready to write: one this build cannot use
 * (damaged, another schema) is removed (its commits are an index of git
 * objects, rebuilt on demand); when there is none, it is seeded with a copy
 * of the working-tree index of `projectDir` if that is usable.
 */
async function prepareRefsStore(home: string, projectDir: string): Promise<void> {
  const p = refsStorePath(home);
  if (existsSync(p)) {
    const open = openIndexForRead(refsDir(home), { refs: true });
    open.db?.close();
    if (open.status !== "corrupt_manifest" && open.status !== "reindex_required") return;
    debug(`refs store ${p} is ${open.status} (${open.problem ?? ""}): rebuilt`);
    removeRefsStore(home);
  }
  const wt = openIndexForRead(projectDir);
  try {
    if (!wt.db || wt.status !== "compatible") return;
    // A consistent copy of the live index (a sync may write it meanwhile), whole pages in one step.
    await backup(wt.db, p, { rate: 1 << 30 });
    storeSeedChunkText(p);
  } catch (e) {
    // The working tree's index could not be copied: no seed (the build parses every file), and a damaged
    // index is marked as the working tree's own, not blamed on the refs store.
    removeRefsStore(home);
    if (isCorruption(e)) markDamaged(projectDir, (e as Error).message);
    else if (!storageReason(e)) throw e;
    debug(`refs store not seeded from ${indexPath(projectDir)}: ${(e as Error).message}`);
  } finally {
    closeQuietly(wt.db);
  }
}

/** Blob bytes a build keeps in memory before it stashes the rest on disk (see `BlobStash`). */
const STASH_MEMORY_BYTES = 256 * 1024 * 1024;

/** The ref's `.cruxeignore` (from its own tree), or an empty stack. */
async function treeIgnore(root: string, entries: TreeEntry[]): Promise<IgnoreStack> {
  const e = entries.find((x) => x.path === ".cruxeignore" && x.type === "blob" && x.mode !== "120000");
  if (!e || ((await gitBlobSizes(root, [e.oid]))?.get(e.oid) ?? Infinity) > 8 * 1024 * 1024) return new IgnoreStack();
  let text: string | null = null;
  await gitReadBlobs(root, [e.oid], (_, b) => text = b ? new TextDecoder().decode(b) : null);
  const file = text ? new IgnoreFile("", text) : null;
  if (file) warnRuleProblems(file, ".cruxeignore of the indexed commit");
  return new IgnoreStack().with(file);
}

/** A tree's files as a scan, plus the blob id of each and the files whose bytes must be read. */
interface TreePlan {
  scan: ScanResult;
  blobs: Map<string, string>;
  toRead: ScannedFile[];
}

/**
 * Sorts the commit's files (the tree's entries `notIndexed` lets through)
 * like a scan of the same files on disk (the size limit is applied when
 * blobs are read, see `readPlanned`). A file whose blob the base holds at
 * the same path, or that is `adopted` (another commit's version, already in
 * `manifest`), with a language known by name, is marked unchanged by giving
 * it the manifest's size and mtime; a blob read and skipped before at that
 * path is left out; every other file must be read.
 */
function planTree(
  files: TreeEntry[],
  skipped: TreePlan["scan"]["skipped"],
  manifest: Map<string, ManifestEntry>,
  base: Base | null,
  adopted: ReadonlyMap<string, number>,
  skippedBefore: ReadonlySet<string>,
): TreePlan {
  const scanned: ScannedFile[] = [];
  const blobs = new Map<string, string>();
  const toRead: ScannedFile[] = [];
  for (const e of files) {
    if (skippedBefore.has(`${e.path}\0${e.oid}`)) continue;
    blobs.set(e.path, e.oid);
    const old = manifest.get(e.path);
    const named = languageForPath(e.path) ?? textLanguageForPath(e.path);
    const sameBlob = base?.blobs?.get(e.path) === e.oid || adopted.has(e.path);
    if (old && named && sameBlob) {
      scanned.push({ path: e.path, size: old.size, mtimeMs: old.mtime_ms });
      continue;
    }
    const f = { path: e.path, size: 0, mtimeMs: 0 }; // its blob's size when it is read
    scanned.push(f);
    toRead.push(f);
  }
  return { scan: { files: scanned, skipped, vcs: "git" }, blobs, toRead };
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
  bytes: BlobStash,
): Promise<void> {
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
  let stashFailure: unknown = null;
  const ok = await gitReadBlobs(root, [...byOid.keys()], (oid, b) => {
    if (!b || stashFailure) return;
    const hash = compareContent ? contentHash(b) : "";
    let given = false;
    for (const f of byOid.get(oid) ?? []) {
      const old = manifest.get(f.path);
      if (compareContent && old && old.hash === hash && (languageForPath(f.path) || textLanguageForPath(f.path))) {
        f.size = old.size;
        f.mtimeMs = old.mtime_ms;
      } else {
        // Each file owns its bytes: they are handed over (transferred) to a parser, which would leave another
        // path of the same blob holding a detached buffer.
        try {
          bytes.put(f.path, given ? b.slice() : b);
        } catch (e) {
          stashFailure = e; // a full disk, say: said as what it is, not as a failed git read
        }
        given = true;
      }
    }
  });
  if (stashFailure) throw stashFailure;
  if (!ok) throw new CruxeError("internal_error", `git could not read the blobs of ${root}`);
}

/** The planned files as an index source: the scan as planned, reads from the blobs read (`taken`: the paths read). */
function treeSource(plan: TreePlan, bytes: BlobStash, taken: Set<string>): FileSource {
  const read = new Set(bytes.paths());
  return {
    scan: () => Promise.resolve(plan.scan),
    // A blob read differs from the base's version (a size equal to it proves nothing): parsed, read then.
    knownChanged: (path) => read.has(path),
    read: (path, maxBytes) => {
      const b = bytes.take(path); // read once, by the diff or the parse
      if (!b || b.length > maxBytes) throw new Error(`${path}: no blob read`);
      taken.add(path);
      return b;
    },
  };
}

/** What a build starts from: its base list, the plan of its files, the commits its publish evicts. */
interface PlannedBuild {
  base: Base | null;
  plan: TreePlan;
  evicted: string[];
}

/**
 * Plans the build of `opts.gitRef.commit` on `writer`: chooses the base list
 * and the commits to evict, lists the commit's files, adopts versions other
 * commits have, and reads the blobs to parse into `bytes`.
 */
async function planBuild(
  opts: RefIndexOptions,
  writer: RefStoreWriter,
  entries: TreeEntry[],
  bytes: BlobStash,
): Promise<PlannedBuild> {
  const { commit } = opts.gitRef;
  const published = readRefStores(writer.db, refsDir(opts.refsHome ?? opts.projectDir));
  const base = opts.force ? null : chooseBase(writer.db, published, entries, commit);
  const evicted = commitsToEvict(published, opts.maxRefStores, commit);
  const ignore = await treeIgnore(opts.root, entries);
  const skipped = { ignored: 0, tooLarge: 0, symlinks: 0, unreadable: 0 };
  const files = entries.filter((e) => {
    const why = notIndexed(e, ignore);
    if (why === "symlinks" || why === "ignored") skipped[why]++;
    return why === null;
  });
  const adopt = versionsToAdopt(writer.db, files, base);
  writer.startFrom({ baseRefId: base?.refId ?? null, evict: evicted, adopt });
  const manifest = writer.manifest();
  const plan = planTree(files, skipped, manifest, base, adopt, skippedBlobKeys(writer.db));
  await readPlanned(opts.root, plan, manifest, base?.blobs === null, opts.maxFileBytes, bytes);
  return { base, plan, evicted };
}

/**
 * Indexes `opts.gitRef.commit` into the project's refs store (see the module
 * comment): list the tree, seed the store the first time, choose the base
 * list, plan, read the differing blobs, then run the incremental index on the
 * base's list, which publishes the commit (evicting the least recently used
 * past the cap) in one transaction. One ref build at a time per project.
 */
export async function runRefIndex(
  opts: RefIndexOptions,
  onProgress: (e: ProgressEvent) => void,
): Promise<RefIndexSummary> {
  const { commit } = opts.gitRef;
  const t0 = performance.now();
  let mark = t0;
  const lap = () => Math.round(-mark + (mark = performance.now()));
  const entries = await gitListTree(opts.root, commit);
  const tree = lap();
  if (!entries) throw new CruxeError("internal_error", `git could not list the tree of ${commit} in ${opts.root}`);
  const home = opts.refsHome ?? opts.projectDir;
  const lock = await refsWriteLock(home);
  const wait = lap();
  try {
    removeOldRefStores(opts.projectDir);
    const bytesBefore = refsStoreBytes(home);
    await prepareRefsStore(home, opts.projectDir);
    const writer = RefStoreWriter.openRefs(home, commit);
    const copy = lap();
    // Blobs to parse wait in memory up to STASH_MEMORY_BYTES, on disk past it (a whole tree's would not fit).
    removeStashes(home);
    const bytes = new BlobStash(join(refsDir(home), `${STASH_PREFIX}${commit}`), STASH_MEMORY_BYTES);
    let planned: PlannedBuild;
    try {
      planned = await planBuild(opts, writer, entries, bytes);
    } catch (e) {
      writer.close();
      bytes.close();
      throw e;
    }
    const { base, plan, evicted } = planned;
    const blobs = lap();
    debug(`ref ${opts.gitRef.ref} (${commit}): base ${base?.label ?? "none"}, ${bytes.size} blobs to index`);
    let summary: IndexSummary;
    const taken = new Set<string>();
    try {
      summary = await runIndex(
        { ...opts, ref: opts.gitRef.ref, force: false },
        onProgress,
        {
          source: treeSource(plan, bytes, taken),
          openWriter: () => writer,
          beforePublish: (w) => {
            writer.recordBlobs(plan.blobs, taken);
            w.setMeta("ref_name", opts.gitRef.ref);
            w.setMeta("ref_kind", opts.gitRef.kind);
            w.setMeta("ref_commit", commit);
          },
        },
      );
    } catch (e) {
      writer.close(); // when the run failed before it took the writer over (closing twice is harmless)
      throw e;
    } finally {
      bytes.close();
    }
    lap(); // the index run's own time is in `timings`
    const dir = refsDir(home);
    for (const c of evicted) forgetRefUse(dir, c);
    touchRefStore(dir, commit);
    const refTimings = { tree, wait, copy, blobs, publish: lap() };
    // The whole run, preparation included (the index run's own time is in `timings`).
    return {
      ...summary,
      durationMs: Math.round(performance.now() - t0),
      commit,
      base: base?.label ?? "none",
      refTimings,
      storeGrowthBytes: refsStoreBytes(home) - bytesBefore,
    };
  } finally {
    lock.close();
  }
}
