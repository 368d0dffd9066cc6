/**
 * A small pool of reader workers that answer query tools off the main event
 * loop, so `/health`, `index_status` and `health_check` (answered on the main
 * thread) never wait behind a slow query, and queries use every core. Each
 * worker keeps its own read-only SQLite connection per index file. Calls are
 * queued and handed to the first idle worker; a worker that dies fails only
 * the call it was running and is replaced on the next call.
 *
 * `CRUXE_READER_WORKERS=N` sets the pool size (default: the machine's cores,
 * at most 4); `0` or `off` answers every query on the main thread.
 * Requires `--allow-read` on the Cruxe home (workers inherit permissions).
 */
import { CruxeError, type ErrorCode } from "../core/errors.ts";
import { envNumber } from "../core/config.ts";

/** Message a worker throws when the commit it was sent to read was rebuilt or evicted (the main thread looks again). */
export const MAIN_THREAD_ONLY = "cruxe:main-thread-only";

/** One call sent to a worker. */
export interface ReaderRequest {
  id: number;
  tool: string;
  args: Record<string, unknown>;
  storePath: string;
  /** The file identity the caller's view of the store has (`storeIdentity`); absent: the worker stats the file. */
  storeId?: string | null;
  /** For a refs store: the id of the commit to read (`scopeToRef`). */
  scope?: number;
  /** Blocks the worker this many ms before answering (tests of a slow query; see `ReaderPoolOptions`). */
  stallMs?: number;
}

/** Sent to a new worker ahead of any call: the index files to open (it answers `ReaderWarmed`). */
export interface ReaderWarm {
  warm: string[];
  /** Blocks the worker this many ms before it says it is warm (tests of a slow start; see `warmStallMs`). */
  stallMs?: number;
}

/** A worker's answer to `ReaderWarm`, once it is ready for the first query. */
export interface ReaderWarmed {
  warmed: true;
}

/** A worker's answer: the tool's body, an error, or "run it on the main thread". */
export type ReaderReply =
  | { id: number; body: Record<string, unknown>; error?: undefined; fallback?: undefined }
  | { id: number; fallback: true; body?: undefined; error?: undefined }
  | {
    id: number;
    body?: undefined;
    fallback?: undefined;
    error: { cruxe: boolean; code?: string; message: string; data?: Record<string, unknown>; name?: string };
  };

/** What `run` resolves to: the body, or null when the call must run on the main thread. */
export type PooledAnswer = Record<string, unknown> | null;

interface Pending {
  req: ReaderRequest;
  resolve: (a: PooledAnswer) => void;
  reject: (e: unknown) => void;
}

interface Slot {
  worker: Worker;
  busy: Pending | null;
  /** Retires the worker when it stays idle (set while idle). */
  idleTimer?: ReturnType<typeof setTimeout>;
}

/** A worker idle this long is terminated (its memory returned); the next call starts one again. */
const IDLE_RETIRE_MS = 60_000;

const WORKER_URL = new URL("./reader_worker.ts", import.meta.url);

/**
 * The pool size `CRUXE_READER_WORKERS` asks for: a number (0 = off), `off`,
 * or unset for the machine's cores (at least 1, at most 4).
 */
export function readerPoolSize(env: Record<string, string | undefined>): number {
  if (env.CRUXE_READER_WORKERS?.trim() === "off") return 0;
  const cores = typeof navigator !== "undefined" ? navigator.hardwareConcurrency || 1 : 1;
  return Math.min(envNumber(env, "CRUXE_READER_WORKERS", Math.max(1, Math.min(4, cores))), 16);
}

/** Reader workers answering query tools; see the module comment. */
export class ReaderPool {
  private slots: Slot[] = [];
  private queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  /**
   * `idleRetireMs`: how long an idle worker lives; `stallMs`: every call first blocks its worker this long,
   * as a slow SQLite query would (tests prove the main thread keeps answering meanwhile; 0 in production);
   * `warmStallMs`: a warming worker blocks this long before it is warm (tests of a slow start; 0 in production).
   */
  constructor(
    readonly size: number,
    private readonly idleRetireMs = IDLE_RETIRE_MS,
    private readonly stallMs = 0,
    private readonly warmStallMs = 0,
  ) {}

  /** Whether calls can be answered by a worker (the pool has workers and is open). */
  get running(): boolean {
    return this.size > 0 && !this.closed;
  }

  /**
   * Runs `tool` with validated `args` against the index at `storePath` in a
   * worker (`storeId`: the file identity the caller's view has, so the worker
   * need not stat the file to know whether its connection is still current;
   * `scope`: the commit of a refs store to read). Resolves to the body, or
   * null when the commit to read changed meanwhile (the main thread looks again); rejects with the tool's
   * error (a `CruxeError`, or a storage error carrying SQLite's message and code).
   */
  run(
    tool: string,
    args: Record<string, unknown>,
    storePath: string,
    storeId?: string | null,
    scope?: number,
  ): Promise<PooledAnswer> {
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      const req = {
        id: this.nextId++,
        tool,
        args,
        storePath,
        storeId,
        ...(scope === undefined ? {} : { scope }),
        ...(this.stallMs ? { stallMs: this.stallMs } : {}),
      };
      this.queue.push({ req, resolve, reject });
      this.pump();
    });
  }

  /**
   * Starts one worker ahead of the first call, and has it open the indexes
   * at `storePaths`: loading a worker's modules takes longer than most
   * queries, so the first query would otherwise pay for it. Does nothing
   * when the pool is off, closed or already has a worker; the worker is
   * retired when idle like any other.
   */
  warm(storePaths: string[]): void {
    if (this.size === 0 || this.closed || this.slots.length) return;
    const slot = this.spawn();
    this.warming = true;
    slot.worker.postMessage(
      { warm: storePaths, ...(this.warmStallMs ? { stallMs: this.warmStallMs } : {}) } satisfies ReaderWarm,
    );
    this.retireLater(slot);
  }

  /** True from `warm` until its worker is ready for the first query (or gone). */
  warming = false;

  /** Calls waiting for a worker, and workers busy (for health and tests). */
  stats(): { workers: number; busy: number; queued: number; fallbacks: number } {
    return {
      workers: this.slots.length,
      busy: this.slots.filter((s) => s.busy).length,
      queued: this.queue.length,
      fallbacks: this.fallbacks,
    };
  }

  /** Calls a worker sent back to the main thread (their handler needed the runtime or the routed workspace). */
  private fallbacks = 0;

  private pump(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.busy);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const p = this.queue.shift()!;
      clearTimeout(slot.idleTimer);
      slot.busy = p;
      slot.worker.postMessage(p.req);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_URL, { type: "module" });
    const slot: Slot = { worker, busy: null };
    worker.onmessage = (e: MessageEvent<ReaderReply | ReaderWarmed>) => {
      if ("warmed" in e.data) {
        this.warming = false;
        return;
      }
      const p = slot.busy;
      slot.busy = null;
      if (p && p.req.id === e.data.id) {
        if (e.data.fallback) this.fallbacks++;
        settle(p, e.data);
      }
      this.pump();
      if (!slot.busy) this.retireLater(slot);
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.drop(slot, `reader worker failed: ${e.message}`);
    };
    this.slots.push(slot);
    return slot;
  }

  private retireLater(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    const timer = setTimeout(() => {
      if (slot.busy || !this.slots.includes(slot)) return;
      this.slots = this.slots.filter((s) => s !== slot);
      slot.worker.terminate();
    }, this.idleRetireMs);
    // An idle pool never keeps the process alive.
    Deno.unrefTimer(timer);
    slot.idleTimer = timer;
  }

  /** Removes a dead worker; its call fails, the others go on (a new worker is spawned when needed). */
  private drop(slot: Slot, message: string): void {
    clearTimeout(slot.idleTimer);
    this.warming = false;
    this.slots = this.slots.filter((s) => s !== slot);
    try {
      slot.worker.terminate();
    } catch { /* already gone */ }
    slot.busy?.reject(new CruxeError("internal_error", message, { reason: "reader_worker_failed" }));
    slot.busy = null;
    this.pump();
  }

  /** Terminates every worker; queued and running calls resolve to null (the caller answers shutting down). */
  close(): void {
    this.closed = true;
    this.warming = false;
    for (const s of this.slots) {
      clearTimeout(s.idleTimer);
      try {
        s.worker.terminate();
      } catch { /* already gone */ }
      s.busy?.resolve(null);
    }
    for (const p of this.queue) p.resolve(null);
    this.slots = [];
    this.queue = [];
  }
}

function settle(p: Pending, r: ReaderReply): void {
  if (r.fallback) return p.resolve(null);
  if (r.error) {
    if (r.error.cruxe) return p.reject(new CruxeError(r.error.code as ErrorCode, r.error.message, r.error.data ?? {}));
    // Keep SQLite's message and code: they are what tells a damaged store from a busy one.
    const e = new Error(r.error.message) as Error & { code?: string };
    e.name = r.error.name ?? "Error";
    if (r.error.code !== undefined) e.code = r.error.code;
    return p.reject(e);
  }
  p.resolve(r.body ?? null);
}
