/**
 * One index run: scan → diff against the manifest → parse on workers →
 * write everything in one transaction → publish. Readers keep seeing the
 * previous index until the commit, and a crash at any point rolls back to it.
 * Requires `--allow-read` on the repository and grammars, `--allow-write` on
 * the store, `--allow-run=git` for git repositories.
 */
import { contentHash } from "../core/ids.ts";
import { CruxeError } from "../core/errors.ts";
import { IndexWriter, type ManifestEntry } from "../state/project_index.ts";
import { nowIso } from "../state/db.ts";
import { readRepoFile } from "../io/safe_open.ts";
import { keepSkipVerdict, keptSkipVerdict } from "./skip_verdicts.ts";
import { type ScannedFile, scanRepository, type ScanResult } from "./scan.ts";
import { scanPaths } from "./scan_paths.ts";
import { languageForPath, languageForShebang, languagesWithNewRules, rulesVersions } from "./languages/registry.ts";
import { textLanguageForPath } from "../core/languages.ts";
import { outsideSandbox } from "../io/workspace_dir.ts";
import { RECYCLE_AFTER_BYTES, type SpawnParser, WorkerPool } from "./worker_pool.ts";
import { stageMessage, stagePercent } from "./progress.ts";
import type { IndexSummary, ProgressEvent, Stage } from "../state/jobs.ts";

/** What an index run needs to know. */
export interface IndexOptions {
  root: string;
  projectDir: string;
  ref: string;
  vcsMode: "git" | "plain";
  /** Re-process every file, ignoring the manifest (and replace an incompatible store). */
  force: boolean;
  /** Files larger than this are not indexed at all. */
  maxFileBytes: number;
  /** Files larger than this give symbols and references only (no chunks, no full text). Default: no limit. */
  maxFullTextBytes?: number;
  workers: number;
  workerRecycleFiles: number;
  /** Checked between files; when true the run stops and rolls back. */
  cancelled?: () => boolean;
  /** Where parse workers come from (default: spawned by this thread). */
  spawnParser?: SpawnParser;
  /** Parse workers kept by the caller between runs (warm grammars); the run neither creates nor closes its own. */
  pool?: WorkerPool;
  /**
   * Sync only these repository-relative paths (and what the index holds
   * below them) instead of scanning the whole tree: what a watcher reported.
   * Ignored (the whole tree is scanned) without a published index, with
   * `force`, or when one of them is a directory now.
   */
  paths?: string[];
  /** The project's registry facts, recorded in the index so `cruxe doctor --repair` can rebuild the registry. */
  project?: { id: string; name: string; autoDiscovered: boolean };
}

/**
 * Where an index run's files come from: by default the working tree on disk
 * (the scan, then reads through the safe open); a ref index reads a
 * commit's tree from git objects instead.
 */
export interface FileSource {
  scan(): Promise<ScanResult>;
  /** True for the working tree on disk (a watcher's named paths can be stat'ed alone). */
  disk?: boolean;
  /** The bytes of `path`, at most `maxBytes`; throws when it cannot be read. */
  read(path: string, maxBytes: number): Uint8Array;
  /**
   * True when the source knows the content of `path` differs from the
   * manifest's (a blob whose id differs from the base's; it has no mtime to
   * compare): the diff neither compares its stat nor reads it ahead, and the
   * parse reads it (so its bytes wait in the source, not in the diff).
   */
  knownChanged?(path: string): boolean;
}

/** What an in-process caller can add to a run (not cloneable, so not part of `IndexOptions`). */
interface RunHooks {
  /** Replaces the working tree as the source of files. */
  source?: FileSource;
  /** Writes more rows inside the publishing transaction, after the files and before the meta. */
  beforePublish?: (writer: IndexWriter) => void;
  /** Opens the writer to write through (default: the project index of `opts.projectDir`). */
  openWriter?: () => IndexWriter;
}

/** The working tree of `opts.root` as a file source. */
function diskSource(opts: IndexOptions): FileSource {
  return {
    disk: true,
    scan: () => scanRepository(opts.root, { maxFileBytes: opts.maxFileBytes, useGit: opts.vcsMode === "git" }),
    read: (path, maxBytes) => readRepoFile(opts.root, path, { maxBytes }).bytes,
  };
}

/** The first line of a file (for `#!` detection), at most 200 bytes of it. */
export function firstLine(bytes: Uint8Array): string {
  let end = bytes.indexOf(0x0a);
  if (end < 0 || end > 200) end = Math.min(bytes.length, 200);
  return new TextDecoder().decode(bytes.subarray(0, end));
}

/** True when the file is binary: a NUL byte in its first 8 KiB (such files are skipped). */
export function isBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

/** Progress counters of one run, reported through `emit`. */
interface Counters {
  filesScanned: number;
  filesIndexed: number;
  filesTotal: number;
  symbols: number;
}

/**
 * A changed file waiting for its parse; `bytes` moves to the parse worker
 * (then null). A read deferred until the parse has `bytes` null and `hash` "".
 */
interface ParseItem {
  file: ScannedFile;
  bytes: Uint8Array | null;
  hash: string;
  language: string;
}

/** What the diff found: files to parse, files whose stat moved but content did not, and what was skipped. */
interface FileDiff {
  toParse: ParseItem[];
  touched: ScannedFile[];
  /** Paths still present and indexable (everything else of the previous manifest is deleted). */
  seen: Set<string>;
  unchanged: number;
  unreadable: number;
  binary: number;
}

/** Where an index run's time went, in ms (see `IndexSummary.timings`). */
type Timings = IndexSummary["timings"];

/** A stopwatch that adds the time since its last lap to a phase. */
function phaseClock(): { lap: (phase: keyof Timings) => void; rounded: () => Timings } {
  const timings: Timings = { scan: 0, diff: 0, parse_wait: 0, write: 0, indexes: 0, names: 0, commit: 0 };
  let mark = performance.now();
  return {
    lap: (phase) => {
      const now = performance.now();
      timings[phase] += now - mark;
      mark = now;
    },
    rounded: () => Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, Math.round(v)])) as Timings,
  };
}

/** The workspace root must be a readable directory; anything else is `project_not_found` (or outside the sandbox). */
function checkRoot(root: string): void {
  let stat: Deno.FileInfo;
  try {
    stat = Deno.statSync(root);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw outsideSandbox(root);
    throw new CruxeError("project_not_found", `Workspace ${root} cannot be read: ${(e as Error).message}`);
  }
  if (!stat.isDirectory) throw new CruxeError("project_not_found", `Workspace ${root} is not a directory`);
}

/** A progress reporter over `counters`: at most one event per 250 ms per stage unless forced. */
function progressEmitter(counters: Counters, onProgress: (e: ProgressEvent) => void) {
  let lastEmit = 0;
  return (stage: Stage, force = false) => {
    const now = performance.now();
    if (!force && now - lastEmit < 250) return;
    lastEmit = now;
    const done = stage === "discovery" ? counters.filesScanned : counters.filesIndexed;
    onProgress({
      stage,
      ...counters,
      percentage: stagePercent(stage, done, stage === "discovery" ? Math.max(done, 1) : counters.filesTotal),
      message: stageMessage(stage, counters),
    });
  };
}

/**
 * Diff of the scanned files against `manifest`: cheap stat comparison first,
 * content hash only when stat moved. Unreadable and binary files are
 * skipped; a file with no language by name gets one from its `#!` line or
 * is skipped. Raw bytes travel to the parse workers by transfer (no copy).
 * With nothing to compare against (a cold index, a forced rebuild), a file of
 * a known language is read only when it goes to a parser: holding every
 * file's bytes from here to there costs the size of the whole tree in memory.
 */
function diffFiles(
  files: ScannedFile[],
  manifest: Map<string, ManifestEntry>,
  opts: IndexOptions,
  source: FileSource,
): FileDiff {
  const d: FileDiff = { toParse: [], touched: [], seen: new Set(), unchanged: 0, unreadable: 0, binary: 0 };
  const deferReads = manifest.size === 0;
  for (const f of files) {
    let language = languageForPath(f.path)?.id ?? textLanguageForPath(f.path);
    const old = manifest.get(f.path);
    const changed = source.knownChanged?.(f.path) ?? false;
    // An indexed file whose stat holds is unchanged; one with no extension was indexed by its `#!` line.
    const judged = language !== undefined || !hasExtension(f.path);
    if (old && judged && !changed && old.size === f.size && old.mtime_ms === f.mtimeMs) {
      d.seen.add(f.path);
      d.unchanged++;
      continue;
    }
    if (!language && !mayBeIndexed(f.path)) continue;
    // Read when parsed: a cold run's files, and those the source knows changed (their hash is then unknown here,
    // so a rename among them is counted as an add and a delete).
    if ((deferReads || changed) && language) {
      d.seen.add(f.path);
      d.toParse.push({ file: f, bytes: null, hash: "", language });
      continue;
    }
    // A file of the working tree read and left out before, with the same stat, is not read again.
    const kept = source.disk && !old && !opts.force ? keptSkipVerdict(opts.root, f) : null;
    if (kept) {
      if (kept === "binary") d.binary++;
      continue;
    }
    let bytes: Uint8Array;
    try {
      // The safe open refuses a file that became (or moved below) a symlink since the scan.
      bytes = source.read(f.path, opts.maxFileBytes);
    } catch {
      d.unreadable++;
      continue;
    }
    if (isBinary(bytes)) {
      d.binary++;
      if (source.disk) keepSkipVerdict(opts.root, f, "binary");
      continue;
    }
    if (!language) {
      language = bytes[0] === 0x23 && bytes[1] === 0x21 ? languageForShebang(firstLine(bytes))?.id : undefined;
      if (!language) {
        if (source.disk) keepSkipVerdict(opts.root, f, "no_language");
        continue;
      }
    }
    d.seen.add(f.path);
    const hash = contentHash(bytes);
    if (old && old.hash === hash) {
      d.touched.push(f);
      d.unchanged++;
      continue;
    }
    d.toParse.push({ file: f, bytes, hash, language });
  }
  return d;
}

/** True when the file name (not a leading dot) has an extension: `a/b.txt` yes, `a/run` and `a/.bashrc` no. */
function hasExtension(path: string): boolean {
  return path.lastIndexOf(".") > path.lastIndexOf("/") + 1;
}

/**
 * Build files named without an extension that are never code by a `#!`
 * line (a makefile's names `make` at most, which no language claims): a
 * tree like the kernel's has thousands, and reading each on every sync to
 * learn that cost seconds.
 */
const BUILD_FILE_NAMES = new Set(["Makefile", "makefile", "GNUmakefile", "Kbuild"]);

/**
 * False when the name alone says the file is never indexed: an extension no
 * language claims (only a name without one may be code by its `#!` line),
 * or a build file's name (`BUILD_FILE_NAMES`). Such a file is never read.
 */
export function mayBeIndexed(path: string): boolean {
  if (languageForPath(path) !== undefined || textLanguageForPath(path) !== undefined) return true;
  return !hasExtension(path) && !BUILD_FILE_NAMES.has(path.slice(path.lastIndexOf("/") + 1));
}

/**
 * The files a run considers: the named paths when `opts.paths` is given, the
 * source is the working tree and they can be judged alone (`absent`: named
 * paths that are no indexable file now), else everything the source lists
 * (`absent` null).
 */
async function scanFor(
  opts: IndexOptions,
  source: FileSource,
  named: boolean,
): Promise<{ files: ScannedFile[]; skipped: ScanResult["skipped"]; absent: string[] | null }> {
  if (named && opts.paths && source.disk) {
    const some = scanPaths(opts.root, opts.paths, { maxFileBytes: opts.maxFileBytes });
    if (some) return some;
  }
  const all = await source.scan();
  return { files: all.files, skipped: all.skipped, absent: null };
}

/**
 * What a run will do: the scan (of the named paths when an incremental run
 * has them, else of the source's tree), the manifest rows it is compared
 * with, the diff, the deleted paths, how the changes divide, and whether
 * the index is rebuilt whole (`--force`, or new extraction rules for most
 * of its files). `scanned` (with the number of files found) is called
 * between the scan and the diff.
 */
async function planRun(
  opts: IndexOptions,
  writer: IndexWriter,
  source: FileSource,
  mode: "full" | "incremental",
  scanned: (files: number) => void,
) {
  const scan = await scanFor(opts, source, mode === "incremental");
  scanned(scan.files.length);
  // A sync of named paths compares them (and what was below them) only; the whole manifest otherwise.
  const previous = scan.absent
    ? writer.manifestOf([...scan.files.map((f) => f.path), ...scan.absent])
    : writer.manifest();
  // Files of a language whose extraction rules changed since the store was built are parsed again. When they
  // are most of a whole-tree run's files, the index is rebuilt whole, as `--force` does: replacing most rows one
  // file at a time costs more than loading them all.
  const stale = opts.force ? new Set<string>() : staleRules(writer);
  const kept = withoutLanguages(previous, stale);
  const rebuild = previous.size > 0 && (opts.force || (!scan.absent && kept.size * 2 < previous.size));
  // A rebuild re-processes every file: compare against nothing (as with force on an empty index).
  const diff = diffFiles(scan.files, rebuild ? new Map<string, ManifestEntry>() : kept, opts, source);
  const deletedPaths = [...previous.keys()].filter((p) => !diff.seen.has(p));
  const changes = classifyChanges(
    diff.toParse.map((t) => ({ path: t.file.path, hash: t.hash })),
    previous,
    deletedPaths,
  );
  return { scan, previous, diff, deletedPaths, rebuild, ...changes };
}

/** Meta key: the extraction rules' version per language the published index was built with (`rulesVersions`). */
const RULES_VERSIONS = "rules_versions";

/** The languages whose extraction rules changed since `writer`'s index was built. */
function staleRules(writer: IndexWriter): Set<string> {
  let recorded: Record<string, unknown> = {};
  try {
    recorded = JSON.parse(writer.getMeta(RULES_VERSIONS) ?? "{}") ?? {};
  } catch { /* unreadable: as if built before versions were recorded */ }
  return languagesWithNewRules(recorded);
}

/** `manifest` without the files indexed as one of `languages`. */
function withoutLanguages(manifest: Map<string, ManifestEntry>, languages: Set<string>): Map<string, ManifestEntry> {
  if (!languages.size) return manifest;
  return new Map([...manifest].filter(([, e]) => e.language === undefined || !languages.has(e.language)));
}

/**
 * How the changed files divide: `modified` (path indexed before), `renamed`
 * (new path whose content hash a deleted path had), `added` (the rest).
 */
export function classifyChanges(
  changed: readonly { path: string; hash: string }[],
  previous: ReadonlyMap<string, { hash: string }>,
  deletedPaths: readonly string[],
): { added: number; modified: number; renamed: number } {
  const oldHashes = new Set(deletedPaths.map((p) => previous.get(p)!.hash));
  let renamed = 0;
  let added = 0;
  let modified = 0;
  for (const t of changed) {
    if (previous.has(t.path)) modified++;
    else if (oldHashes.has(t.hash)) renamed++;
    else added++;
  }
  return { added, modified, renamed };
}

/**
 * Reads a file whose read was deferred (counting it in `diff` when it turned
 * out unreadable or binary); false when it is skipped.
 */
function loadDeferred(
  t: ParseItem,
  opts: IndexOptions,
  source: FileSource,
  diff: FileDiff,
  counters: Counters,
): boolean {
  if (t.bytes) return true;
  try {
    t.bytes = source.read(t.file.path, opts.maxFileBytes);
  } catch {
    diff.unreadable++;
  }
  if (t.bytes && isBinary(t.bytes)) {
    diff.binary++;
    t.bytes = null;
  }
  if (!t.bytes) {
    counters.filesTotal--;
    return false;
  }
  t.hash = contentHash(t.bytes);
  return true;
}

/** What the write step works with: the parser pool, the open writer, the job's options and progress. */
interface WriteContext {
  pool: WorkerPool;
  writer: IndexWriter;
  opts: IndexOptions;
  source: FileSource;
  counters: Counters;
  emit: (s: Stage, force?: boolean) => void;
  lap: (phase: keyof Timings) => void;
}

/**
 * Parses the diff's files on the pool and writes each file as its parse
 * returns, with a bounded number of files in flight, at most one of them
 * large (over RECYCLE_AFTER_BYTES; the others wait their turn while smaller
 * files go ahead), so memory stays flat.
 * `existing`: paths whose old rows must be deleted first. Checks `cancelled`
 * between files. Returns how many files had parse problems.
 */
async function parseAndWrite(
  ctx: WriteContext,
  diff: FileDiff,
  existing: Map<string, ManifestEntry>,
): Promise<number> {
  const { pool, writer, opts, source, counters, emit, lap } = ctx;
  const { toParse } = diff;
  let parseErrors = 0;
  const inflight = new Map<number, Promise<{ i: number; r: Awaited<ReturnType<WorkerPool["parse"]>> }>>();
  const window = Math.max(4, opts.workers * 8);
  let next = 0;
  let stage: Stage = "parsing";
  // One large file in flight at a time: each holds a parser heap many times its size until that parser retires.
  const large = (i: number) => toParse[i].file.size > RECYCLE_AFTER_BYTES;
  let largeInFlight = 0;
  const largeWaiting: number[] = [];
  const launch = () => {
    while (inflight.size < window) {
      let i: number;
      if (largeInFlight === 0 && largeWaiting.length) i = largeWaiting.shift()!;
      else if (next < toParse.length) i = next++;
      else break;
      if (large(i) && largeInFlight > 0) {
        largeWaiting.push(i);
        continue;
      }
      const t = toParse[i];
      if (!loadDeferred(t, opts, source, diff, counters)) {
        // Known changed and now binary or unreadable: its earlier version is not kept.
        if (existing.has(t.file.path)) writer.deleteFile(t.file.path);
        continue;
      }
      if (large(i)) largeInFlight++;
      const facts = {
        path: t.file.path,
        hash: t.hash,
        size: t.file.size,
        mtimeMs: t.file.mtimeMs,
        language: t.language,
        lineCount: 0, // counted by the worker
        parseError: null,
      };
      const fullText = t.file.size <= (opts.maxFullTextBytes ?? Infinity);
      inflight.set(i, pool.parse({ id: i, facts, bytes: t.bytes!, fullText }).then((r) => ({ i, r })));
      t.bytes = null; // transferred to the worker
    }
  };
  launch();
  lap("write");
  while (inflight.size) {
    if (opts.cancelled?.()) throw new CruxeError("internal_error", "index job cancelled");
    const { i, r } = await Promise.race(inflight.values());
    lap("parse_wait");
    inflight.delete(i);
    if (large(i)) largeInFlight--;
    if (r.problem) parseErrors++;
    if (existing.has(r.rows.path)) writer.deleteFile(r.rows.path);
    writer.insertFile(r.rows);
    counters.filesIndexed++;
    counters.symbols += r.rows.symbols.length;
    if (next >= toParse.length && !largeWaiting.length && stage === "parsing") {
      stage = "indexing";
      emit(stage, true);
    }
    emit(stage);
    launch();
    lap("write");
  }
  return parseErrors;
}

/**
 * Records what the published index describes (ref, root, project facts, time, totals, and for a whole-tree
 * run what its scan skipped, by reason, and the extraction rules it parsed with); returns the totals.
 */
function writeIndexMeta(
  writer: IndexWriter,
  opts: IndexOptions,
  skipped: Record<string, number> | null,
): { files: number; symbols: number } {
  const totals = writer.totals();
  // A whole-tree run compared every file, so every file is parsed with the rules of this build.
  if (skipped) {
    writer.setMeta("skipped", JSON.stringify(skipped));
    writer.setMeta(RULES_VERSIONS, JSON.stringify(rulesVersions()));
  }
  writer.setMeta("ref", opts.ref);
  writer.setMeta("repo_root", opts.root);
  writer.setMeta("vcs_mode", opts.vcsMode);
  if (opts.project) {
    writer.setMeta("project_id", opts.project.id);
    writer.setMeta("project_name", opts.project.name);
    writer.setMeta("auto_discovered", opts.project.autoDiscovered ? "1" : "0");
  }
  writer.setMeta("last_indexed_at", nowIso());
  // Millisecond publish time: tells two publishes within one second apart (freshness, caches).
  writer.setMeta("published_at_ms", String(Date.now()));
  writer.setMeta("file_count", String(totals.files));
  writer.setMeta("symbol_count", String(totals.symbols));
  return totals;
}

/** The skip counts the parse step adds to the scan's: files found binary or unreadable when read. */
function skippedByReading(scan: { unreadable: number }, diff: FileDiff): { unreadable: number; binary: number } {
  return { unreadable: scan.unreadable + diff.unreadable, binary: diff.binary };
}

/**
 * The write step, in one transaction (rolled back on any failure, so readers
 * keep the previous index): a forced rebuild empties the tables, deleted
 * files go, touched files get their new stat, changed files are parsed and
 * written, then secondary indexes, names and meta; then the commit publishes.
 */
async function writeChanges(
  ctx: WriteContext,
  diff: FileDiff,
  plan: { previous: Map<string, ManifestEntry>; deletedPaths: string[]; rebuild: boolean },
  hooks: RunHooks,
  wholeTree: boolean,
  scanSkipped: ScanResult["skipped"],
): Promise<{ parseErrors: number; totals: { files: number; symbols: number } }> {
  const { pool, writer, opts, emit, lap } = ctx;
  const { previous, deletedPaths } = plan;
  const { toParse } = diff;
  writer.begin();
  try {
    // A rebuild empties the tables whole and loads like a cold index (readers see the old rows
    // until the commit) instead of deleting and re-inserting file by file.
    const { rebuild } = plan;
    if (rebuild) writer.truncateAll();
    const existing = rebuild ? new Map<string, ManifestEntry>() : previous;
    // A cold bulk load is faster with indexes built once at the end.
    const bulk = existing.size === 0 && wholeTree && toParse.length > 500;
    if (bulk) writer.beginBulkLoad();
    if (!rebuild) { for (const p of deletedPaths) writer.deleteFile(p); }
    for (const f of diff.touched) writer.touchFile(f.path, f.mtimeMs, f.size);
    emit("parsing", true);
    if (toParse.length > 4) pool.grow(Math.max(1, opts.workers));
    const parseErrors = await parseAndWrite(ctx, diff, existing);
    // Every file is parsed: the parsers' heaps go before the writer's own peak (full-text merges, index builds);
    // a pool the caller keeps keeps one warm parser.
    if (opts.pool) pool.shrink(1);
    else pool.close();
    emit("finalizing", true);
    if (bulk) writer.endBulkLoad();
    lap("indexes");
    // The name tables before the secondary indexes: a whole rebuild frees pages the index builds then reuse.
    writer.publishNames();
    lap("names");
    if (bulk) writer.createSecondaryIndexes();
    lap("indexes");
    hooks.beforePublish?.(writer);
    // Binary and unreadable files are known once the parse step has read them.
    const skipped = { ...scanSkipped, ...skippedByReading(scanSkipped, diff) };
    const totals = writeIndexMeta(writer, opts, wholeTree ? skipped : null);
    writer.commit();
    if (toParse.length > 200 || deletedPaths.length > 200) writer.checkpoint();
    lap("commit");
    return { parseErrors, totals };
  } catch (e) {
    writer.rollback();
    throw e;
  }
}

/**
 * Runs one index job to completion (or throws, leaving the previous index
 * intact): check the root, scan, diff against the manifest, then in one
 * write transaction delete, touch, parse and insert, record the meta and
 * publish by commit.
 */
export async function runIndex(
  opts: IndexOptions,
  onProgress: (e: ProgressEvent) => void,
  hooks: RunHooks = {},
): Promise<IndexSummary> {
  const t0 = performance.now();
  const clock = phaseClock();
  checkRoot(opts.root);
  const counters: Counters = { filesScanned: 0, filesIndexed: 0, filesTotal: 0, symbols: 0 };
  const emit = progressEmitter(counters, onProgress);

  // One parser starts now, while the scan and diff run; more join once the work is known.
  const pool = opts.pool ?? new WorkerPool(1, opts.workerRecycleFiles, opts.spawnParser);
  let writer: IndexWriter | null = null;
  try {
    emit("discovery", true);
    const source = hooks.source ?? diskSource(opts);
    writer = hooks.openWriter?.() ?? IndexWriter.open(opts.projectDir, opts.force);
    const hadIndex = writer.getMeta("last_indexed_at") !== null;
    const mode: "full" | "incremental" = opts.force || !hadIndex ? "full" : "incremental";
    const { scan, previous, diff, deletedPaths, rebuild, added, modified, renamed } = await planRun(
      opts,
      writer,
      source,
      mode,
      (files) => {
        counters.filesScanned = files;
        emit("discovery", true);
        clock.lap("scan");
      },
    );
    const { toParse } = diff;
    counters.filesTotal = toParse.length;
    clock.lap("diff");

    const ctx = { pool, writer, opts, source, counters, emit, lap: clock.lap };
    const { parseErrors, totals } = await writeChanges(
      ctx,
      diff,
      { previous, deletedPaths, rebuild },
      hooks,
      !scan.absent,
      scan.skipped,
    );
    return {
      mode: rebuild ? "full" : mode,
      scope: scan.absent ? "paths" : "tree",
      filesScanned: scan.files.length,
      filesIndexed: counters.filesIndexed,
      changedFiles: toParse.length + deletedPaths.length - renamed,
      added,
      modified,
      deleted: deletedPaths.length - renamed,
      renamed,
      unchanged: diff.unchanged,
      symbols: counters.symbols,
      parseErrors,
      skipped: { ...scan.skipped, ...skippedByReading(scan.skipped, diff) },
      durationMs: Math.round(performance.now() - t0),
      totalFiles: Number(totals.files),
      totalSymbols: Number(totals.symbols),
      timings: clock.rounded(),
    };
  } finally {
    if (!opts.pool) pool.close();
    writer?.close();
  }
}
