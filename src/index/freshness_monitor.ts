/**
 * `freshness_status` without blocking a query: each project's working tree is
 * fingerprinted by a stat-only scan in a worker at most once per interval,
 * and queries read the cached verdict.
 *
 * Stale when (a) a file with an indexed language was modified at least a
 * second after the index was published (`last_indexed_at` has second
 * precision), or (b) the fingerprint of (path, size, mtime) moved since the
 * first scan after that publish (deletions, renames, restored files). The
 * baseline for (b) lives in memory; a deletion made while the server was down
 * is found by the live index, which compares a scan with the published
 * manifest when it starts watching a workspace. The same worker lists files
 * for the live index's polling mode.
 * Requires `--allow-read` on repositories and `--allow-run=git` (in the worker).
 */
import type { CruxeConfig } from "../core/config.ts";
import type { FreshnessStatus } from "../core/metadata.ts";
import type { ProjectRow } from "../state/registry.ts";
import type { Db } from "../state/db.ts";
import type { Fingerprint, FreshnessReply, FreshnessRequest } from "./scan_worker.ts";
import type { ScannedFile } from "./scan.ts";
import { debug } from "../core/log.ts";

/** What the live index and the freshness verdict read of a project's published index (the server's read view). */
export interface PublishedIndex {
  db: Db | null;
  /** `compatible` when this build reads the index. */
  schemaStatus: string;
  /** The ref the index is labelled with. */
  ref: string | null;
  lastIndexedAt: string | null;
  /** Publish time in ms since the epoch (changes on every publish). */
  publishedAtMs: number | null;
}

/** Minimum time between two scans of one project. */
const FRESHNESS_INTERVAL_MS = 5000;
/**
 * A scan never runs more often than this many times its own duration, so
 * checking costs at most ~2 % of a core however large the tree (a stat scan
 * of an 80,000-file tree takes seconds; on a small tree the interval rules).
 */
export const SCAN_COST_FACTOR = 50;

/**
 * A scan worker idle this long is retired: a stat scan of a large tree
 * leaves its heap at tens of MiB, and on such a tree scans are paced minutes
 * apart; a small tree is scanned more often than this and keeps its worker.
 */
const SCAN_WORKER_IDLE_MS = 20_000;

/** The verdict about one published index of a project. */
interface State {
  /** Publish time of the index this verdict is about (ms; falls back to `last_indexed_at`). */
  publishedMs: number;
  baseline: Fingerprint | null;
  stale: boolean;
}

/** When a project's tree was last scanned, and how soon it may be again: kept across publishes. */
interface Pace {
  checkedAt: number;
  /** How long after `checkedAt` the next scan may run: the interval, or longer when scans are slow. */
  gapMs: number;
  /** The scan running now (one per project at a time). */
  inflight: Promise<void> | null;
}

/** Caches each project's freshness verdict and refreshes it in the background. */
export class FreshnessMonitor {
  private states = new Map<string, State>();
  private paces = new Map<string, Pace>();
  private worker: Worker | null = null;
  private nextId = 1;
  private pending = new Map<number, (r: FreshnessReply) => void>();

  /** Called when a project's verdict turns stale (the live index syncs it). */
  onStale: ((projectId: string) => void) | null = null;

  /**
   * `scanner` replaces the scan worker (tests give a scripted one); by
   * default scans run in `scan_worker.ts`.
   */
  constructor(
    private config: CruxeConfig,
    private intervalMs = FRESHNESS_INTERVAL_MS,
    private scanner?: (req: FreshnessRequest) => Promise<FreshnessReply>,
  ) {}

  /**
   * The files a stat-only scan of the project finds now, scanned off this
   * thread, and how long the scan took; throws when the scan fails.
   */
  async listing(project: ProjectRow): Promise<{ files: ScannedFile[]; scanMs: number }> {
    const reply = await this.scan(this.request(project, true));
    if (!reply.files) throw new Error(reply.error ?? "the scan returned no files");
    return { files: reply.files, scanMs: reply.scanMs ?? 0 };
  }

  /**
   * The cached verdict for a project's current index; schedules a background scan when due (never, with an
   * interval of `Infinity`: a one-shot command that cannot use its result). Never waits.
   */
  status(project: ProjectRow, view: PublishedIndex): FreshnessStatus {
    // No usable index is never fresh: the tree is ahead of an index that does not exist.
    if (view.schemaStatus !== "compatible" || !view.lastIndexedAt) return "stale";
    const publishedMs = view.publishedAtMs ?? Date.parse(view.lastIndexedAt);
    const pace = this.paceOf(project.project_id);
    let st = this.states.get(project.project_id);
    if (!st || st.publishedMs !== publishedMs) {
      st = { publishedMs, baseline: null, stale: false };
      this.states.set(project.project_id, st);
      // A new publish is checked at once, unless scans of this tree are slow: then it keeps the pace they set.
      if (pace.gapMs <= this.intervalMs) pace.checkedAt = -Infinity;
    }
    const due = performance.now() - pace.checkedAt >= Math.max(this.intervalMs, pace.gapMs);
    if (this.intervalMs !== Infinity && !pace.inflight && due && !st.stale) {
      this.check(project, st, pace);
    }
    return st.stale ? "stale" : "fresh";
  }

  /** Runs one scan now and resolves when the verdict is updated (used at startup and by tests). */
  async refresh(project: ProjectRow, view: PublishedIndex): Promise<FreshnessStatus> {
    this.status(project, view);
    const st = this.states.get(project.project_id);
    if (!st) return "stale";
    const pace = this.paceOf(project.project_id);
    await (pace.inflight ?? this.check(project, st, pace));
    return st.stale ? "stale" : "fresh";
  }

  private paceOf(projectId: string): Pace {
    let pace = this.paces.get(projectId);
    if (!pace) this.paces.set(projectId, pace = { checkedAt: -Infinity, gapMs: 0, inflight: null });
    return pace;
  }

  /** Drops what is known about a project (eviction). */
  forget(projectId: string): void {
    this.states.delete(projectId);
    this.paces.delete(projectId);
  }

  /** Stops the scan worker. */
  close(): void {
    clearTimeout(this.retire);
    this.worker?.terminate();
    this.worker = null;
    for (const r of this.pending.values()) r({ id: 0, error: "closed" });
    this.pending.clear();
  }

  private check(project: ProjectRow, st: State, pace: Pace): Promise<void> {
    const run = async () => {
      try {
        const reply = await this.scan(this.request(project, false));
        if (!reply.fingerprint) {
          debug(`freshness scan of ${project.repo_root} failed: ${reply.error}`);
          return;
        }
        pace.gapMs = SCAN_COST_FACTOR * (reply.scanMs ?? 0);
        const fp = reply.fingerprint;
        const publishedMs = st.publishedMs;
        if (Number.isFinite(publishedMs) && fp.maxMtimeMs >= publishedMs + 1000) st.stale = true;
        else if (st.baseline && st.baseline.digest !== fp.digest) st.stale = true;
        else if (!st.baseline) st.baseline = fp;
        if (st.stale && this.states.get(project.project_id) === st) this.onStale?.(project.project_id);
      } finally {
        pace.inflight = null;
        pace.checkedAt = performance.now();
      }
    };
    return pace.inflight = run();
  }

  /** A scan request for `project`'s tree (`list`: with the files themselves). */
  private request(project: ProjectRow, list: boolean): FreshnessRequest {
    return {
      id: this.nextId++,
      root: project.repo_root,
      maxFileBytes: this.config.maxFileBytes,
      useGit: project.vcs_mode === "git",
      ...(list ? { list: true } : {}),
    };
  }

  /** Retires the scan worker once it has been idle SCAN_WORKER_IDLE_MS (see `scan`). */
  private retire: ReturnType<typeof setTimeout> | undefined;

  private scan(req: FreshnessRequest): Promise<FreshnessReply> {
    if (this.scanner) return this.scanner(req);
    clearTimeout(this.retire);
    if (!this.worker) {
      this.worker = new Worker(new URL("./scan_worker.ts", import.meta.url), { type: "module" });
      this.worker.onmessage = (e: MessageEvent<FreshnessReply>) => {
        this.pending.get(e.data.id)?.(e.data);
        this.pending.delete(e.data.id);
        // A scan of a large tree leaves the worker's heap large; scans that far apart start a fresh one.
        if (!this.pending.size) {
          this.retire = setTimeout(() => {
            this.worker?.terminate();
            this.worker = null;
          }, SCAN_WORKER_IDLE_MS);
          Deno.unrefTimer(this.retire);
        }
      };
      this.worker.onerror = (e) => {
        e.preventDefault();
        for (const r of this.pending.values()) r({ id: 0, error: e.message });
        this.pending.clear();
        this.worker = null;
      };
    }
    return new Promise((resolve) => {
      this.pending.set(req.id, resolve);
      this.worker!.postMessage(req);
    });
  }
}
