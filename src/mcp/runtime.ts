/**
 * Everything one serving process shares across transports and sessions: the
 * registry, read views, the job runner, the router, freshness, the warmset
 * and progress fan-out. Requires `--allow-read`/`--allow-write` on the Cruxe
 * home and what indexing requires.
 */
import type { CruxeConfig } from "../core/config.ts";
import type { Registry } from "../state/registry.ts";
import { JobRunner } from "../index/job_runner.ts";
import { IndexReaders } from "../query/index_reader.ts";
import { FreshnessMonitor } from "./freshness.ts";
import { Warmset } from "./warmset.ts";
import { type RouterOptions, WorkspaceRouter } from "./workspace_router.ts";
import { JobProgressBroadcaster } from "./progress_notifier.ts";
import { LiveSync, type LiveSyncOptions } from "./live_sync.ts";
import { ReaderPool, readerPoolSize } from "./reader_pool.ts";

/** What the runtime is built from. */
export interface RuntimeOptions {
  router: RouterOptions;
  prewarm: boolean;
  /** Override of the freshness scan interval (tests). */
  freshnessIntervalMs?: number;
  /** Keep the workspaces in use live (watch and sync them). Default: off (`serve`/`serve-mcp` turn it on). */
  watch?: boolean;
  /** Tuning of the live index (tests). */
  live?: Partial<Omit<LiveSyncOptions, "enabled">>;
  /** Reader workers for query tools (default: `CRUXE_READER_WORKERS`, else the machine's cores; 0 = off). */
  readerWorkers?: number;
}

/** The shared state of a running server. */
export class ServerRuntime {
  readonly readers: IndexReaders;
  readonly runner: JobRunner;
  readonly freshness: FreshnessMonitor;
  readonly warmset: Warmset;
  readonly router: WorkspaceRouter;
  readonly progress: JobProgressBroadcaster;
  readonly live: LiveSync;
  /** Answers query tools off the main thread (size 0: everything runs on the main thread). */
  readonly readerPool: ReaderPool;
  readonly startedAt = Date.now();
  /** Set when shutdown begins: new calls are refused. */
  shuttingDown = false;
  private offJobs: () => void;
  private closed = false;

  constructor(readonly config: CruxeConfig, readonly registry: Registry, readonly options: RuntimeOptions) {
    this.readers = new IndexReaders(registry);
    this.runner = new JobRunner(registry, config);
    this.freshness = new FreshnessMonitor(config, options.freshnessIntervalMs);
    this.warmset = new Warmset(registry, this.readers, config.warmsetCapacity, options.prewarm);
    this.live = new LiveSync(
      { config, runner: this.runner, readers: this.readers, freshness: this.freshness },
      { enabled: options.watch ?? false, capacity: config.warmsetCapacity, ...options.live },
    );
    this.router = new WorkspaceRouter(registry, this.runner, this.readers, options.router, {
      onEvicted: (id) => {
        this.live.stop(id);
        this.freshness.forget(id);
      },
    });
    this.progress = new JobProgressBroadcaster(this.runner);
    this.readerPool = new ReaderPool(options.readerWorkers ?? readerPoolSize(envForPool()));
    // A published job changes the index file under the cached read view: reopen on next use.
    this.offJobs = this.runner.subscribe((e) => {
      if (e.type === "end") this.readers.invalidate(e.project.project_id);
    });
  }

  /** Stops jobs (they end `interrupted`, reported next start) and closes every store. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.shuttingDown = true;
    this.closed = true;
    this.offJobs();
    this.live.close();
    try {
      this.router.flush();
    } catch { /* the store is going away anyway */ }
    this.runner.shutdown();
    this.readerPool.close();
    this.freshness.close();
    this.readers.closeAll();
    this.registry.close();
  }
}

/** `CRUXE_READER_WORKERS` when the environment can be read (no permission: the default size). */
function envForPool(): Record<string, string | undefined> {
  try {
    return { CRUXE_READER_WORKERS: Deno.env.get("CRUXE_READER_WORKERS") };
  } catch {
    return {};
  }
}
