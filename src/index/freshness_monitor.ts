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
export const FRESHNESS_INTERVAL_MS = 5000;

interface State {
  /** Publish time of the index this verdict is about (ms; falls back to `last_indexed_at`). */
  publishedMs: number;
  baseline: Fingerprint | null;
  stale: boolean;
  checkedAt: number;
  inflight: boolean;
}

/** Caches each project's freshness verdict and refreshes it in the background. */
export class FreshnessMonitor {
  private states = new Map<string, State>();
  private worker: Worker | null = null;
  private nextId = 1;
  private pending = new Map<number, (r: FreshnessReply) => void>();

  /** Called when a project's verdict turns stale (the live index syncs it). */
  onStale: ((projectId: string) => void) | null = null;

  constructor(private config: CruxeConfig, private intervalMs = FRESHNESS_INTERVAL_MS) {}

  /**
   * The files a stat-only scan of the project finds now, scanned off this
   * thread, and how long the scan took; throws when the scan fails.
   */
  async listing(project: ProjectRow): Promise<{ files: ScannedFile[]; scanMs: number }> {
    const reply = await this.scan({
      id: this.nextId++,
      root: project.repo_root,
      maxFileBytes: this.config.maxFileBytes,
      useGit: project.vcs_mode === "git",
      list: true,
    });
    if (!reply.files) throw new Error(reply.error ?? "the scan returned no files");
    return { files: reply.files, scanMs: reply.scanMs ?? 0 };
  }

  /** The cached verdict for a project's current index; schedules a background scan when due. Never waits. */
  status(project: ProjectRow, view: PublishedIndex): FreshnessStatus {
    if (view.schemaStatus !== "compatible" || !view.lastIndexedAt) return "fresh";
    const publishedMs = view.publishedAtMs ?? Date.parse(view.lastIndexedAt);
    let st = this.states.get(project.project_id);
    if (!st || st.publishedMs !== publishedMs) {
      st = { publishedMs, baseline: null, stale: false, checkedAt: 0, inflight: false };
      this.states.set(project.project_id, st);
    }
    if (!st.inflight && performance.now() - st.checkedAt >= this.intervalMs && !st.stale) {
      this.check(project, st);
    }
    return st.stale ? "stale" : "fresh";
  }

  /** Runs one scan now and resolves when the verdict is updated (used at startup and by tests). */
  async refresh(project: ProjectRow, view: PublishedIndex): Promise<FreshnessStatus> {
    this.status(project, view);
    const st = this.states.get(project.project_id);
    if (!st) return "fresh";
    if (!st.inflight) await this.check(project, st);
    else while (st.inflight) await new Promise((r) => setTimeout(r, 20));
    return st.stale ? "stale" : "fresh";
  }

  /** Drops what is known about a project (eviction). */
  forget(projectId: string): void {
    this.states.delete(projectId);
  }

  /** Stops the scan worker. */
  close(): void {
    this.worker?.terminate();
    this.worker = null;
    for (const r of this.pending.values()) r({ id: 0, error: "closed" });
    this.pending.clear();
  }

  private async check(project: ProjectRow, st: State): Promise<void> {
    st.inflight = true;
    try {
      const reply = await this.scan({
        id: this.nextId++,
        root: project.repo_root,
        maxFileBytes: this.config.maxFileBytes,
        useGit: project.vcs_mode === "git",
      });
      if (!reply.fingerprint) {
        debug(`freshness scan of ${project.repo_root} failed: ${reply.error}`);
        return;
      }
      const fp = reply.fingerprint;
      const publishedMs = st.publishedMs;
      if (Number.isFinite(publishedMs) && fp.maxMtimeMs >= publishedMs + 1000) st.stale = true;
      else if (st.baseline && st.baseline.digest !== fp.digest) st.stale = true;
      else if (!st.baseline) st.baseline = fp;
      if (st.stale && this.states.get(project.project_id) === st) this.onStale?.(project.project_id);
    } finally {
      st.inflight = false;
      st.checkedAt = performance.now();
    }
  }

  private scan(req: FreshnessRequest): Promise<FreshnessReply> {
    if (!this.worker) {
      this.worker = new Worker(new URL("./scan_worker.ts", import.meta.url), { type: "module" });
      this.worker.onmessage = (e: MessageEvent<FreshnessReply>) => {
        this.pending.get(e.data.id)?.(e.data);
        this.pending.delete(e.data.id);
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
