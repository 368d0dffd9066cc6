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
import { readRepoFile } from "../state/safe_open.ts";
import { type ScannedFile, scanRepository } from "./scan.ts";
import { languageForPath, languageForShebang } from "./languages/registry.ts";
import { textLanguageForPath } from "./text_languages.ts";
import { outsideSandbox } from "./project_setup.ts";
import { type SpawnParser, WorkerPool } from "./worker_pool.ts";
import { type ProgressEvent, type Stage, stageMessage, stagePercent } from "./progress.ts";

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
  /** The project's registry facts, recorded in the index so `cruxe doctor --repair` can rebuild the registry. */
  project?: { id: string; name: string; autoDiscovered: boolean };
}

/** What an index run did. */
export interface IndexSummary {
  mode: "full" | "incremental";
  filesScanned: number;
  filesIndexed: number;
  changedFiles: number;
  added: number;
  modified: number;
  deleted: number;
  renamed: number;
  unchanged: number;
  symbols: number;
  parseErrors: number;
  skipped: Record<string, number>;
  durationMs: number;
  totalFiles: number;
  totalSymbols: number;
  /**
   * Where the time went, in ms: `scan` (walk), `diff` (stat, read, hash), `parse_wait` (the writer idle,
   * waiting on parse workers), `write` (row inserts), `indexes` (secondary indexes after a bulk load),
   * `names` (name lookup tables), `commit` (commit and checkpoint).
   */
  timings: Record<"scan" | "diff" | "parse_wait" | "write" | "indexes" | "names" | "commit", number>;
}

/** The first line of a file (for `#!` detection), at most 200 bytes of it. */
function firstLine(bytes: Uint8Array): string {
  let end = bytes.indexOf(0x0a);
  if (end < 0 || end > 200) end = Math.min(bytes.length, 200);
  return new TextDecoder().decode(bytes.subarray(0, end));
}

function isBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

/** Runs one index job to completion (or throws, leaving the previous index intact). */
export async function runIndex(opts: IndexOptions, onProgress: (e: ProgressEvent) => void): Promise<IndexSummary> {
  const t0 = performance.now();
  let stat: Deno.FileInfo;
  try {
    stat = Deno.statSync(opts.root);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw outsideSandbox(opts.root);
    throw new CruxeError("project_not_found", `Workspace ${opts.root} cannot be read: ${(e as Error).message}`);
  }
  if (!stat.isDirectory) throw new CruxeError("project_not_found", `Workspace ${opts.root} is not a directory`);

  const counters = { filesScanned: 0, filesIndexed: 0, filesTotal: 0, symbols: 0 };
  let lastEmit = 0;
  const emit = (stage: Stage, force = false) => {
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

  // One parser starts now, while the scan and diff run; more join once the work is known.
  const pool = new WorkerPool(1, opts.workerRecycleFiles, opts.spawnParser);
  let writer: IndexWriter | null = null;
  try {
    emit("discovery", true);
    const timings: IndexSummary["timings"] = {
      scan: 0,
      diff: 0,
      parse_wait: 0,
      write: 0,
      indexes: 0,
      names: 0,
      commit: 0,
    };
    let mark = performance.now();
    /** Adds the time since the last mark to `phase`. */
    const lap = (phase: keyof IndexSummary["timings"]) => {
      const now = performance.now();
      timings[phase] += now - mark;
      mark = now;
    };
    const scan = await scanRepository(opts.root, { maxFileBytes: opts.maxFileBytes, useGit: opts.vcsMode === "git" });
    counters.filesScanned = scan.files.length;
    emit("discovery", true);
    lap("scan");

    writer = openWriter(opts.projectDir, opts.force);
    const previous = writer.manifest();
    // With force every file is re-processed: compare against nothing.
    const manifest = opts.force ? new Map<string, ManifestEntry>() : previous;
    const hadIndex = writer.getMeta("last_indexed_at") !== null;
    const mode: "full" | "incremental" = opts.force || !hadIndex ? "full" : "incremental";

    // Diff: cheap stat comparison first, content hash only when stat moved.
    // Raw bytes travel to the parse workers by transfer (no copy); they decode them.
    const toParse: { file: ScannedFile; bytes: Uint8Array | null; hash: string; language: string }[] = [];
    const touched: ScannedFile[] = [];
    const seen = new Set<string>();
    let unchanged = 0;
    let unreadable = 0;
    let binary = 0;
    // With nothing to compare against (a cold index, a forced rebuild), a file of a known language is read
    // only when it is handed to a parser: holding every file's bytes from here to there costs the size of
    // the whole tree in memory.
    const deferReads = manifest.size === 0;
    for (const f of scan.files) {
      let language = languageForPath(f.path)?.id ?? textLanguageForPath(f.path);
      const old = manifest.get(f.path);
      if (old && language && old.size === f.size && old.mtime_ms === f.mtimeMs) {
        seen.add(f.path);
        unchanged++;
        continue;
      }
      if (deferReads && language) {
        seen.add(f.path);
        toParse.push({ file: f, bytes: null, hash: "", language });
        continue;
      }
      let bytes: Uint8Array;
      try {
        // The safe open refuses a file that became (or moved below) a symlink since the scan.
        bytes = readRepoFile(opts.root, f.path, { maxBytes: opts.maxFileBytes }).bytes;
      } catch {
        unreadable++;
        continue;
      }
      if (isBinary(bytes)) {
        binary++;
        continue;
      }
      if (!language) {
        language = bytes[0] === 0x23 && bytes[1] === 0x21 ? languageForShebang(firstLine(bytes))?.id : undefined;
        if (!language) continue;
      }
      seen.add(f.path);
      const hash = contentHash(bytes);
      if (old && old.hash === hash) {
        touched.push(f);
        unchanged++;
        continue;
      }
      toParse.push({ file: f, bytes, hash, language });
    }
    const deletedPaths = [...previous.keys()].filter((p) => !seen.has(p));
    const oldHashes = new Map<string, string>();
    for (const p of deletedPaths) oldHashes.set(previous.get(p)!.hash, p);
    let renamed = 0;
    let added = 0;
    let modified = 0;
    for (const t of toParse) {
      if (previous.has(t.file.path)) modified++;
      else if (oldHashes.has(t.hash)) renamed++;
      else added++;
    }
    counters.filesTotal = toParse.length;
    lap("diff");

    writer.begin();
    let parseErrors = 0;
    try {
      // A forced rebuild empties the tables whole and loads like a cold index (readers see the old rows
      // until the commit) instead of deleting and re-inserting file by file.
      const rebuild = opts.force && previous.size > 0;
      if (rebuild) writer.truncateAll();
      const existing = rebuild ? new Map<string, ManifestEntry>() : previous;
      // A cold bulk load is faster with indexes built once at the end.
      const bulk = existing.size === 0 && toParse.length > 500;
      if (bulk) writer.dropSecondaryIndexes();
      if (!rebuild) { for (const p of deletedPaths) writer.deleteFile(p); }
      for (const f of touched) writer.touchFile(f.path, f.mtimeMs, f.size);
      emit("parsing", true);
      if (toParse.length > 4) pool.grow(Math.max(1, opts.workers));
      // Keep a bounded number of files in flight so memory stays flat.
      const inflight = new Map<number, Promise<{ i: number; r: Awaited<ReturnType<WorkerPool["parse"]>> }>>();
      const window = Math.max(4, opts.workers * 8);
      let next = 0;
      let stage: Stage = "parsing";
      /** Reads a file whose read was deferred; false when it turned out unreadable or binary (skipped). */
      const load = (t: (typeof toParse)[number]): boolean => {
        if (t.bytes) return true;
        try {
          t.bytes = readRepoFile(opts.root, t.file.path, { maxBytes: opts.maxFileBytes }).bytes;
        } catch {
          unreadable++;
        }
        if (t.bytes && isBinary(t.bytes)) {
          binary++;
          t.bytes = null;
        }
        if (!t.bytes) {
          counters.filesTotal--;
          return false;
        }
        t.hash = contentHash(t.bytes);
        return true;
      };
      const launch = () => {
        while (next < toParse.length && inflight.size < window) {
          const i = next++;
          const t = toParse[i];
          if (!load(t)) continue;
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
        if (r.problem) parseErrors++;
        if (existing.has(r.rows.path)) writer.deleteFile(r.rows.path);
        writer.insertFile(r.rows);
        counters.filesIndexed++;
        counters.symbols += r.rows.symbols.length;
        if (next >= toParse.length && stage === "parsing") {
          stage = "indexing";
          emit(stage, true);
        }
        emit(stage);
        launch();
        lap("write");
      }
      emit("finalizing", true);
      if (bulk) writer.createSecondaryIndexes();
      lap("indexes");
      writer.publishNames();
      lap("names");
      const totals = writer.db.prepare("SELECT (SELECT count(*) FROM files) AS f, (SELECT count(*) FROM symbols) AS s")
        .get() as { f: number; s: number };
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
      writer.setMeta("file_count", String(totals.f));
      writer.setMeta("symbol_count", String(totals.s));
      writer.commit();
      if (toParse.length > 200 || deletedPaths.length > 200) writer.checkpoint();
      lap("commit");
      const summary: IndexSummary = {
        mode,
        filesScanned: scan.files.length,
        filesIndexed: counters.filesIndexed,
        changedFiles: toParse.length + deletedPaths.length - renamed,
        added,
        modified,
        deleted: deletedPaths.length - renamed,
        renamed,
        unchanged,
        symbols: counters.symbols,
        parseErrors,
        skipped: { ...scan.skipped, unreadable: scan.skipped.unreadable + unreadable, binary },
        durationMs: Math.round(performance.now() - t0),
        totalFiles: Number(totals.f),
        totalSymbols: Number(totals.s),
        timings: Object.fromEntries(
          Object.entries(timings).map(([k, v]) => [k, Math.round(v)]),
        ) as IndexSummary["timings"],
      };
      return summary;
    } catch (e) {
      writer.rollback();
      throw e;
    }
  } finally {
    pool.close();
    writer?.close();
  }
}

/**
 * Opens the index for writing; with `force`, an index this build cannot use is
 * replaced instead of refused (a damaged one is moved aside, never deleted).
 */
function openWriter(projectDir: string, force: boolean): IndexWriter {
  return IndexWriter.open(projectDir, force);
}
