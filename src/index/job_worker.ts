/**
 * Worker entry for index jobs, so the serving thread never blocks on
 * parsing or on the write transaction. Reports progress to the registry
 * (for `index_status`) and to the parent (for notifications). A worker the
 * runner keeps warm runs one job after another (never two at once) and keeps
 * its parse workers, grammars loaded, between them (`warm` on the start message).
 */
/// <reference lib="deno.worker" />
import { type IndexOptions, runIndex } from "./indexer.ts";
import { runRefIndex } from "./ref_index.ts";
import type { ResolvedRef } from "../io/git.ts";
import { type JobProgress, Registry } from "../state/registry.ts";
import { capStorePages, nowIso } from "../state/db.ts";
import { CruxeError, toCruxeError } from "../core/errors.ts";
import { warn } from "../core/log.ts";
import { asStorageError, corruptRefsStore, isCorruption } from "../state/storage_errors.ts";
import { refsDir, refsStorePath } from "../state/ref_stores.ts";
import { indexRefFix } from "../state/project_refs.ts";
import { indexPath, markDamaged } from "../state/project_index.ts";
import type { ProgressEvent } from "../state/jobs.ts";
import {
  type ParserEndpoint,
  type ParseResultMessage,
  postTask,
  receiveResult,
  type SpawnParser,
  WorkerPool,
} from "./worker_pool.ts";

/** Messages the job runner sends. */
export type JobWorkerIn =
  | {
    type: "start";
    jobId: string;
    home: string;
    /** With `gitRef`, the job indexes that commit's tree from git objects into the project's refs store. */
    options: Omit<IndexOptions, "cancelled" | "spawnParser" | "pool"> & {
      gitRef?: ResolvedRef;
      /** Indexed commits a refs store keeps (used with `gitRef`). */
      refsHome?: string;
      maxRefStores: number;
    };
    /** Stores this job opens for writing are capped at this many pages (`capStorePages`; tests only). */
    storePageCap: number | null;
    /** Keep the parse workers for the next job of this worker (working-tree jobs only). */
    warm?: boolean;
  }
  | { type: "cancel" }
  | { type: "parser"; slot: number; port: MessagePort }
  | { type: "parser-crashed"; slot: number; message: string };

/** Messages the worker sends back. */
export type JobWorkerOut =
  | { type: "progress"; event: ProgressEvent }
  | { type: "done"; summary: Awaited<ReturnType<typeof runIndex>> }
  | { type: "error"; code: string; message: string; data?: Record<string, unknown> }
  | { type: "spawn-parser"; slot: number }
  | { type: "kill-parser"; slot: number };

let cancelled = false;
let nextSlot = 0;
/** The parse workers kept between the jobs of a warm worker. */
let warmPool: WorkerPool | null = null;
const pendingSpawns = new Map<number, (ep: ParserEndpoint) => void>();
const endpoints = new Map<number, ParserEndpoint>();

/** Parse workers are created by the main thread and reached over a MessagePort. */
const spawnViaParent: SpawnParser = () => {
  const slot = nextSlot++;
  return new Promise((resolve) => {
    pendingSpawns.set(slot, resolve);
    self.postMessage({ type: "spawn-parser", slot } satisfies JobWorkerOut);
  });
};

function portEndpoint(slot: number, port: MessagePort): ParserEndpoint {
  const ep: ParserEndpoint = {
    post: (t) => postTask(port, t),
    onResult: () => {},
    onCrash: () => {},
    close: () => {
      endpoints.delete(slot);
      port.close();
      self.postMessage({ type: "kill-parser", slot } satisfies JobWorkerOut);
    },
  };
  port.onmessage = (e: MessageEvent<ParseResultMessage>) => ep.onResult(receiveResult(e.data));
  endpoints.set(slot, ep);
  return ep;
}

self.onmessage = async (e: MessageEvent<JobWorkerIn>) => {
  const msg = e.data;
  if (msg.type === "cancel") {
    cancelled = true;
    return;
  }
  if (msg.type === "parser") {
    pendingSpawns.get(msg.slot)?.(portEndpoint(msg.slot, msg.port));
    pendingSpawns.delete(msg.slot);
    return;
  }
  if (msg.type === "parser-crashed") {
    endpoints.get(msg.slot)?.onCrash(msg.message);
    return;
  }
  await runJob(msg);
};

/** Runs one index job and reports its end. Nothing may escape: a failure of any kind is a failed job, never a crashed process. */
async function runJob(msg: Extract<JobWorkerIn, { type: "start" }>): Promise<void> {
  cancelled = false;
  let registry: Registry | null = null;
  const pool = msg.warm ? (warmPool ??= new WorkerPool(1, msg.options.workerRecycleFiles, spawnViaParent)) : undefined;
  const started = Date.now();
  /** Registry writes are best effort here: the parent records the job's end again and reports the error. */
  let warned = false;
  const record = (p: JobProgress) => {
    try {
      registry?.updateJob(msg.jobId, p);
    } catch (e) {
      if (!warned) warn(`could not record job ${msg.jobId} in the registry: ${(e as Error).message}`);
      warned = true;
    }
  };
  try {
    capStorePages(msg.storePageCap);
    registry = Registry.open(msg.home);
    record({ status: "running", started_at: nowIso() });
    const { gitRef, ...options } = msg.options;
    const run = { ...options, cancelled: () => cancelled, spawnParser: spawnViaParent };
    const onProgress = progressReporter(record);
    const summary = gitRef
      ? await runRefIndex({ ...run, gitRef }, onProgress)
      : await runIndex({ ...run, pool }, onProgress);
    record({
      status: "published",
      files_scanned: summary.filesScanned,
      files_indexed: summary.filesIndexed,
      symbols_extracted: summary.symbols,
      estimated_completion_pct: 100,
      changed_files: summary.changedFiles,
      parse_errors: summary.parseErrors,
      duration_ms: Date.now() - started,
      finished_at: nowIso(),
    });
    self.postMessage({ type: "done", summary } satisfies JobWorkerOut);
  } catch (err) {
    const { gitRef, projectDir } = msg.options;
    const refsHome = msg.options.refsHome ?? projectDir;
    // A raw SQLite corruption error here comes from the store the job writes (registry faults arrive as
    // CruxeErrors): the project index, or for a ref job the refs store (which the next ref build then replaces).
    const store = gitRef ? refsStorePath(refsHome) : indexPath(projectDir);
    const corrupt = !(err instanceof CruxeError) && isCorruption(err);
    if (corrupt) markDamaged(gitRef ? refsDir(refsHome) : projectDir, (err as Error).message);
    const ce = toCruxeError(
      corrupt && gitRef
        ? corruptRefsStore(
          store,
          gitRef.ref,
          (err as Error).message,
          indexRefFix({ repo_root: msg.options.root }, gitRef.ref),
        )
        : asStorageError(err, store, { home: msg.home, root: msg.options.root }),
    );
    record({ status: "failed", error_message: ce.message, duration_ms: Date.now() - started, finished_at: nowIso() });
    self.postMessage({ type: "error", code: ce.code, message: ce.message, data: ce.data } satisfies JobWorkerOut);
  } finally {
    registry?.close();
    // A failed run may leave files queued; a burst grew the pool: one warm parser is enough for the next edit.
    pool?.dropQueued();
    pool?.shrink(1);
  }
}

/** Forwards each progress event to the parent, and records it in the registry at most every 500 ms while parsing. */
function progressReporter(record: (p: JobProgress) => void): (event: ProgressEvent) => void {
  let lastWrite = 0;
  return (event) => {
    const now = Date.now();
    if (now - lastWrite >= 500 || event.stage !== "parsing") {
      lastWrite = now;
      record({
        files_scanned: event.filesScanned,
        files_indexed: event.filesIndexed,
        symbols_extracted: event.symbols,
        estimated_completion_pct: event.percentage,
        stage: event.stage,
      });
    }
    self.postMessage({ type: "progress", event } satisfies JobWorkerOut);
  };
}
