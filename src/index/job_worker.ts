/**
 * Worker entry for one index job, so the serving thread never blocks on
 * parsing or on the write transaction. Reports progress to the registry
 * (for `index_status`) and to the parent (for notifications).
 */
/// <reference lib="deno.worker" />
import { type IndexOptions, runIndex } from "./indexer.ts";
import { Registry } from "../state/registry.ts";
import { nowIso } from "../state/db.ts";
import { toCruxeError } from "../core/errors.ts";
import type { ProgressEvent } from "./progress.ts";
import { type ParserEndpoint, type ParseResult, postTask, type SpawnParser } from "./worker_pool.ts";

/** Messages the job runner sends. */
export type JobWorkerIn =
  | { type: "start"; jobId: string; home: string; options: Omit<IndexOptions, "cancelled" | "spawnParser"> }
  | { type: "cancel" }
  | { type: "parser"; slot: number; port: MessagePort }
  | { type: "parser-crashed"; slot: number; message: string };

/** Messages the worker sends back. */
export type JobWorkerOut =
  | { type: "progress"; event: ProgressEvent }
  | { type: "done"; summary: Awaited<ReturnType<typeof runIndex>> }
  | { type: "error"; code: string; message: string }
  | { type: "spawn-parser"; slot: number }
  | { type: "kill-parser"; slot: number };

let cancelled = false;
let nextSlot = 0;
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
  port.onmessage = (e: MessageEvent<ParseResult>) => ep.onResult(e.data);
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
  const registry = Registry.open(msg.home);
  const started = Date.now();
  registry.updateJob(msg.jobId, { status: "running", started_at: nowIso() });
  let lastWrite = 0;
  try {
    const summary = await runIndex(
      { ...msg.options, cancelled: () => cancelled, spawnParser: spawnViaParent },
      (event) => {
        const now = Date.now();
        if (now - lastWrite >= 500 || event.stage !== "parsing") {
          lastWrite = now;
          registry.updateJob(msg.jobId, {
            files_scanned: event.filesScanned,
            files_indexed: event.filesIndexed,
            symbols_extracted: event.symbols,
            estimated_completion_pct: event.percentage,
          });
        }
        self.postMessage({ type: "progress", event } satisfies JobWorkerOut);
      },
    );
    registry.updateJob(msg.jobId, {
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
    const ce = toCruxeError(err);
    registry.updateJob(msg.jobId, {
      status: "failed",
      error_message: ce.message,
      duration_ms: Date.now() - started,
      finished_at: nowIso(),
    });
    self.postMessage({ type: "error", code: ce.code, message: ce.message } satisfies JobWorkerOut);
  } finally {
    registry.close();
  }
};
