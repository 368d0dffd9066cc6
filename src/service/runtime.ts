/**
 * Everything one serving process shares across transports and sessions: the
 * registry, read views, the job runner, the router, freshness, the warmset
 * and progress fan-out. Requires `--allow-read`/`--allow-write` on the Cruxe
 * home and what indexing requires.
 */
import { removeOldRefStores } from "../state/ref_stores.ts";
import type { CruxeConfig } from "../core/config.ts";
import type { Registry } from "../state/registry.ts";
import { JobRunner } from "../index/job_runner.ts";
import { IndexReaders } from "../query/index_reader.ts";
import { Warmset } from "./warmset.ts";
import { type RouterOptions, WorkspaceRouter } from "./workspace_router.ts";
import { JobProgressBroadcaster } from "./progress_notifier.ts";
import { LiveIndexer, type LiveIndexOptions } from "../index/live_indexer.ts";
import { ReaderPool, readerPoolSize } from "./reader_pool.ts";
import { EmbedRunner } from "../index/embed_runner.ts";
import { embedConfigured } from "../core/semantic_layer.ts";
import { indexChunkTexts, vectorsPath } from "../state/chunk_vectors.ts";
import type { ProjectRow, WorkspaceRow } from "../state/registry.ts";
import { warn } from "../core/log.ts";
import { indexPath } from "../state/project_index.ts";

/** What the runtime is built from. */
export interface RuntimeOptions {
  router: RouterOptions;
  prewarm: boolean;
  /** Override of the freshness scan interval (tests). */
  freshnessIntervalMs?: number;
  /** Keep the workspaces in use live (watch and sync them). Default: off (`serve`/`serve-mcp` turn it on). */
  watch?: boolean;
  /** Tuning of the live index (tests). */
  live?: Partial<Omit<LiveIndexOptions, "enabled" | "freshnessIntervalMs">>;
  /** Reader workers for query tools (default: `CRUXE_READER_WORKERS`, else the machine's cores; 0 = off). */
  readerWorkers?: number;
}

/** The shared state of a running server. */
export class ServerRuntime {
  readonly readers: IndexReaders;
  readonly runner: JobRunner;
  /** Each project's `fresh`/`stale` verdict (the live indexer's freshness monitor). */
  readonly freshness: LiveIndexer["freshness"];
  readonly warmset: Warmset;
  readonly router: WorkspaceRouter;
  readonly progress: JobProgressBroadcaster;
  readonly live: LiveIndexer;
  /** Answers query tools off the main thread (size 0: everything runs on the main thread). */
  readonly readerPool: ReaderPool;
  /** The optional semantic layer's embedding passes (null when no embeddings endpoint is configured). */
  readonly embedder: EmbedRunner | null;
  readonly startedAt = Date.now();
  /** Default refs chosen with `switch_ref`, by session and project (see `ref_router.ts`). */
  readonly sessionRefs = new Map<string, string>();
  /** Set when shutdown begins: new calls are refused. */
  shuttingDown = false;
  private offJobs: () => void;
  private closed = false;
  /** Jobs this server started on its own for the workspaces it serves (`indexServed`). */
  private servedJobs = new Set<string>();

  constructor(readonly config: CruxeConfig, readonly registry: Registry, readonly options: RuntimeOptions) {
    this.readers = new IndexReaders(registry);
    this.runner = new JobRunner(registry, config);
    // Per-commit stores of an earlier layout are never read: their disk space is given back at start.
    if (!registry.readOnly) {
      for (const p of registry.listProjects()) removeOldRefStores(registry.projectDir(p.project_id));
    }
    this.warmset = new Warmset(
      registry,
      this.readers,
      config.warmsetCapacity,
      options.prewarm,
      servedWorkspaces(registry, options.router),
    );
    this.live = new LiveIndexer(
      { config, runner: this.runner, view: (p) => this.readers.view(p) },
      {
        enabled: options.watch ?? false,
        capacity: config.warmsetCapacity,
        freshnessIntervalMs: options.freshnessIntervalMs,
        ...options.live,
      },
    );
    this.freshness = this.live.freshness;
    this.router = new WorkspaceRouter(registry, this.runner, this.readers, options.router, {
      onEvicted: (id) => {
        this.live.stop(id);
        this.freshness.forget(id);
      },
    });
    this.progress = new JobProgressBroadcaster(this.runner);
    this.embedder = embedConfigured(config.embed) ? new EmbedRunner(config.embed) : null;
    this.readerPool = new ReaderPool(
      options.readerWorkers ?? config.readerWorkers ?? readerPoolSize({}),
      undefined,
      config.testReaderStallMs,
      config.testReaderWarmStallMs,
    );
    // A published job changes the index file under the cached read view: reopen on next use.
    this.offJobs = this.runner.subscribe((e) => {
      // A ref build may have retired other commits' builds (eviction): their views are closed.
      if (e.type === "end" && e.gitRef) this.readers.dropRetiredRefs(e.project.project_id);
      else if (e.type === "end") this.readers.invalidate(e.project.project_id);
      // Chunk vectors follow a published index (the lexical answer never waits for them).
      if (e.type === "end" && e.job.status === "published" && !e.gitRef) this.embedChunks(e.project);
    });
  }

  /**
   * Starts indexing, at once, each served workspace that needs it: one never
   * indexed (full) or one a previous stop left with interrupted jobs
   * (incremental: it resumes from the published index); each of `sync` gets
   * an incremental job in any case. A workspace another process is indexing
   * is left to it. Returns the projects a job was started for.
   */
  indexServed(projects: ProjectRow[], sync: ProjectRow[] = []): ProjectRow[] {
    if (this.registry.readOnly) return [];
    const started: ProjectRow[] = [];
    const seen = new Set<string>();
    for (const p of [...sync, ...projects]) {
      if (seen.has(p.project_id)) continue;
      seen.add(p.project_id);
      // An index this build cannot read is rebuilt only when asked (`index --force`): that is the fix its answers name.
      const schema = this.readers.view(p).schemaStatus;
      const unindexed = schema === "not_indexed";
      const interrupted = schema === "compatible" && this.registry.unresolvedInterrupted(p.project_id).length > 0;
      if (!unindexed && !interrupted && !sync.includes(p)) continue;
      try {
        const { active } = this.runner.start(p, { mode: unindexed ? "full" : "incremental", force: false });
        this.servedJobs.add(active.job.job_id);
        started.push(p);
      } catch (e) {
        // Another Cruxe process is indexing it: serve what is published meanwhile.
        warn(`not indexing ${p.repo_root} on start: ${(e as Error).message}`);
      }
    }
    return started;
  }

  /** True when the project's running job is one `indexServed` started (a request to index joins it). */
  runsServedJob(projectId: string): boolean {
    const active = this.runner.activeFor(projectId);
    return !!active && this.servedJobs.has(active.job.job_id);
  }

  /** Starts a reader worker with the projects' indexes open, ahead of the first query (see `ReaderPool.warm`). */
  warmReaders(projects: ProjectRow[]): void {
    this.readerPool.warm(projects.map((p) => indexPath(this.registry.projectDir(p.project_id))));
  }

  /** The project's vector store file (it may not exist yet). */
  vectorStorePath(project: ProjectRow): string {
    return vectorsPath(this.registry.projectDir(project.project_id));
  }

  /**
   * Starts the project's embedding pass when a semantic layer is configured
   * and no pass ran in this process yet (or `again`); a pass that cannot
   * start is reported by index_status, never thrown.
   */
  embedChunks(project: ProjectRow, again = true): void {
    if (!this.embedder || this.closed) return;
    if (!again && this.embedder.status(project.project_id)) return;
    void this.embedder.start(project.project_id, this.vectorStorePath(project), () => {
      const view = this.readers.view(project);
      return view.db && view.schemaStatus === "compatible" ? indexChunkTexts(view.db) : [];
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
    this.embedder?.shutdown();
    this.readers.closeAll();
    this.registry.close();
  }
}

/**
 * Which registered workspaces a server serves of its own accord (prewarms and
 * watches): with `--workspace` or `--auto-workspace`, the configured ones and
 * the auto-discovered ones (a project indexed from the CLI is not among
 * them); with neither, every registered one (calls pick among them).
 */
function servedWorkspaces(registry: Registry, router: RouterOptions): (w: WorkspaceRow) => boolean {
  if (!router.startupWorkspaces.length && !router.autoWorkspace) return () => true;
  const pinned = new Set(router.startupWorkspaces.map((w) => registry.projectContaining(w)?.project_id));
  return (w) => pinned.has(w.project_id) || (router.autoWorkspace && w.auto_discovered === 1);
}
