/**
 * The live index: the workspaces in use (pinned `--workspace`s and the most
 * recently used, up to the warmset's capacity) are watched, and what changes
 * in them is indexed by incremental sync jobs without anyone asking.
 *
 * - Events (`TreeWatcher`) when the platform gives them; otherwise, or when
 *   the config says `poll`, a stat-only scan in the freshness worker at most
 *   every `watch.pollIntervalMs` (and never more often than 50 times the
 *   scan's own duration, so polling costs at most ~2 % of a core).
 * - A burst of changes is one sync; changes that arrive while a sync runs
 *   make one more sync after it. A failed sync is retried with backoff.
 * - Read-your-writes: a change is "known" from the moment its event (or a
 *   poll) is seen until a sync that started after it publishes. While any
 *   change is known, answers carry `freshness_status: "syncing"` and the
 *   pending paths; a query first waits up to `READ_YOUR_WRITES_MS` for the
 *   sync (starting it at once instead of after the quiet period). Results in
 *   files known to be deleted are dropped at once.
 * - When watching of a workspace starts (server start, first use), a scan is
 *   compared with the published manifest, so edits and deletions made while
 *   the server was down are synced and filtered like any other.
 * - A root that now resolves elsewhere (swapped for a symlink) is checked
 *   before watching, on every batch of events, poll and sync: watching stops,
 *   with the reason, and nothing is synced from the new target.
 * - `.git/HEAD` moving (a branch switch) syncs when the branch name differs
 *   from the indexed ref, so the ref label follows the branch.
 * - A sync names the paths it is for (the job stats and diffs only those, on
 *   a warm job worker whose parsers stay loaded between syncs) when every
 *   pending change has a path and there are at most `MAX_NAMED_PATHS` of
 *   them; a new directory, lost events (overflow), changed ignore rules, a
 *   branch switch, a stale verdict or a larger burst syncs the whole tree.
 * The server starts it and reads its state (freshness, pending and deleted
 * paths, watch status); it owns the freshness monitor.
 * Requires `--allow-read` on the workspaces (watching and scanning) and what
 * index jobs require.
 */
import type { CruxeConfig, WatchMode } from "../core/config.ts";
import { debug, info, warn } from "../core/log.ts";
import type { JobRunner } from "./job_runner.ts";
import type { JobEvent } from "../state/jobs.ts";
import { refFor } from "../io/git.ts";
import { unindexedMessage, unindexedReason } from "./unindexed_reason.ts";
import { outsideSandbox, rootMovedError, rootMovedTo } from "../io/workspace_dir.ts";
import {
  DEFAULT_WATCH_TIMING,
  diffListings,
  type Listing,
  listingOf,
  listingOfManifest,
  TreeWatcher,
  type WatchBatch,
  type WatchTiming,
} from "./watcher.ts";
import { publishedFiles } from "../state/read/published_files.ts";
import type { ProjectRow } from "../state/registry.ts";
import type { ScannedFile } from "./scan.ts";
import { FreshnessMonitor, type PublishedIndex, SCAN_COST_FACTOR } from "./freshness_monitor.ts";
import { configuredWatchMode, INOTIFY_FIX, isWatchLimitError, networkFileSystem } from "./watch_mode.ts";

/** The watch's reason while its walk of the tree runs (events are not seen yet; the catch-up after it finds them). */
const WATCH_STARTING = "starting: listing the directories to watch";
/** The watch's reason once events are seen, while the tree is compared with the index (what changed before). */
const WATCH_CATCHING_UP = "starting: comparing the tree with the index";
/** The watch's reason while its walk waits for the server's first answer (see `WALK_DEFER_MS`). */
export const WATCH_DEFERRED = "starting: the directories to watch are listed once the first call is answered";
/**
 * The most a watch's walk waits for the server's first answer. On a large
 * tree the walk reads thousands of directories, and on cold pages those reads
 * would slow the answer an agent is waiting for; the catch-up scan after the
 * walk finds whatever changed meanwhile.
 */
const WALK_DEFER_MS = 2_000;
/** How long a query waits for a known change to be indexed before answering `syncing`. */
const READ_YOUR_WRITES_MS = 500;
/** Pending paths listed in an answer (the count is always exact). */
const MAX_LISTED_PATHS = 50;
/** Most pending paths a sync names (more sync the whole tree: a stat scan beats that many single stats). */
const MAX_NAMED_PATHS = 1000;
const MAX_BACKOFF_MS = 60_000;

/** How a workspace is kept live. */
export type LiveMode = "events" | "polling" | "off";

/** What `health_check`, `index_status` and `doctor` say about a workspace's live index. */
export interface LiveStatus {
  mode: LiveMode;
  /** Why the mode is not `events` (null when it is). */
  reason: string | null;
  /** What to do about it, when something can be done. */
  fix: string | null;
  /** Changes seen and not yet indexed. */
  pending_changes: number;
  /** Syncs this server started for the workspace. */
  syncs: number;
  last_sync: {
    job_id: string;
    status: string;
    changed_files: number;
    duration_ms: number | null;
    /** `paths`: only the changed paths were stat'ed; `tree`: the whole tree was scanned (null when it failed). */
    scope: "paths" | "tree" | null;
  } | null;
  /** Events on ignored paths that were dropped (they never start a sync). */
  events_ignored: number;
}

/** What the live index is built from. */
export interface LiveIndexOptions {
  /** False with `--no-watch`: nothing is watched. */
  enabled: boolean;
  /** Workspaces watched besides the pinned ones (the warmset's capacity). */
  capacity: number;
  timing?: WatchTiming;
  /** Override of `READ_YOUR_WRITES_MS`. */
  readYourWritesMs?: number;
  /** Override of the freshness scan interval (tests). */
  freshnessIntervalMs?: number;
  /** Override of `WALK_DEFER_MS`. */
  walkDeferMs?: number;
}

/** What the live index needs from the server. */
export interface LiveIndexDeps {
  config: CruxeConfig;
  runner: JobRunner;
  /** The project's published index as the server reads it now. */
  view(project: ProjectRow): PublishedIndex;
}

interface Watched {
  project: ProjectRow;
  pinned: boolean;
  mode: LiveMode;
  reason: string | null;
  fix: string | null;
  watcher: TreeWatcher | null;
  pollTimer: ReturnType<typeof setTimeout> | null;
  pollBackoffMs: number;
  /** The last polling scan (the baseline the next one is compared with). */
  listing: Listing | null;
  /** Known changes not yet indexed: path → when it was seen (performance.now()). */
  pending: Map<string, number>;
  /** Pending paths that no longer exist (results in them are dropped). */
  deleted: Set<string>;
  /** When a change without paths was first seen (rescan, branch switch, freshness scan); null when none. */
  unknownSince: number | null;
  /** The sync this server started and when it started it. */
  ownJob: { jobId: string; startedAt: number } | null;
  /** A sync is wanted once the running job ends. */
  again: boolean;
  retryTimer: ReturnType<typeof setTimeout> | null;
  retryMs: number;
  waiters: Set<() => void>;
  ignored: number;
  syncs: number;
  lastSync: LiveStatus["last_sync"];
  /**
   * After a sync started by a stale verdict: null while it runs, false when it
   * changed nothing (further stale verdicts are ignored until an event arrives).
   */
  staleCured: boolean | null | undefined;
  closed: boolean;
}

/** Keeps the indexes of the workspaces in use live. */
export class LiveIndexer {
  /** Each project's `fresh`/`stale` verdict from stat-only scans (the live index syncs a stale one). */
  readonly freshness: FreshnessMonitor;
  private states = new Map<string, Watched>();
  /** Least recently used first. */
  private order: string[] = [];
  private offJobs: () => void;
  private timing: WatchTiming;
  private rywMs: number;
  /** Resolved once the server has answered a call (or is closing): watches' walks may start. */
  private firstAnswer = Promise.withResolvers<void>();
  private answeredOnce = false;

  constructor(private deps: LiveIndexDeps, readonly options: LiveIndexOptions) {
    this.freshness = new FreshnessMonitor(deps.config, options.freshnessIntervalMs);
    this.timing = options.timing ?? DEFAULT_WATCH_TIMING;
    this.rywMs = options.readYourWritesMs ?? READ_YOUR_WRITES_MS;
    this.offJobs = deps.runner.subscribe((e) => {
      if (e.type === "end" && !e.gitRef) this.onJobEnd(e); // a ref's job leaves the working tree's index as it was
    });
    this.freshness.onStale = (id) => {
      const st = this.states.get(id);
      // A stale verdict a sync did not cure (a file dated in the future) must not start a sync per check.
      if (!st || st.mode === "off" || st.staleCured === false) return;
      st.unknownSince ??= performance.now();
      st.staleCured = null;
      this.requestSync(st);
    };
  }

  /**
   * Why `path` (repository-relative) of `project`'s working tree is not in its index, as the scan judges it
   * now (`unindexed_reason.ts`), and the sentence an answer says it with.
   */
  explainAbsent(project: ProjectRow, path: string): { reason: string; message: string } {
    const max = this.deps.config.maxFileBytes;
    const reason = unindexedReason(project.repo_root, path, max);
    return { reason, message: unindexedMessage(path, reason, max) };
  }

  /** Starts watching the pinned workspaces and the warm ones (server start). */
  begin(pinned: ProjectRow[], warm: ProjectRow[]): void {
    for (const p of pinned) this.watch(p, true);
    for (const p of warm) this.use(p);
  }

  /** Notes that a workspace is used: watches it (if it is not yet) and lets the least recently used go. */
  use(project: ProjectRow): void {
    if (!this.options.enabled) return;
    const id = project.project_id;
    const known = this.states.get(id);
    this.order = this.order.filter((x) => x !== id);
    this.order.push(id);
    if (known) return;
    this.watch(project, false);
    let unpinned = this.order.filter((x) => !this.states.get(x)?.pinned);
    while (unpinned.length > Math.max(1, this.options.capacity)) {
      this.stop(unpinned[0]);
      unpinned = unpinned.slice(1);
    }
  }

  /** Stops watching a workspace (it left the warm set, or was evicted). */
  stop(projectId: string): void {
    const st = this.states.get(projectId);
    this.order = this.order.filter((x) => x !== projectId);
    if (!st) return;
    this.states.delete(projectId);
    this.halt(st);
    this.deps.runner.retireWarm(projectId);
    debug(`stopped watching ${st.project.repo_root}`);
  }

  /**
   * Notes that the server answered a call: a watch whose walk waits for the
   * first answer starts it now (see `WALK_DEFER_MS`).
   */
  answered(): void {
    if (this.answeredOnce) return;
    this.answeredOnce = true;
    this.firstAnswer.resolve();
  }

  /** Resolves once the server has answered a call, or after `WALK_DEFER_MS` without one. */
  private async afterFirstAnswer(): Promise<void> {
    if (this.answeredOnce) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((r) => timer = setTimeout(r, this.options.walkDeferMs ?? WALK_DEFER_MS));
    await Promise.race([this.firstAnswer.promise, deadline]);
    clearTimeout(timer);
  }

  /** Stops everything (shutdown). */
  close(): void {
    this.answered(); // a walk still waiting for an answer goes on to see that its watch is closed
    this.offJobs();
    this.freshness.onStale = null;
    for (const id of [...this.states.keys()]) this.stop(id);
    this.freshness.close();
  }

  /** The live state of a workspace, as status tools show it. */
  status(project: ProjectRow): LiveStatus {
    const st = this.states.get(project.project_id);
    if (!st) {
      const reason = !this.options.enabled
        ? "the server runs with --no-watch"
        : this.configuredMode(project) === "off"
        ? "watch is off for this workspace in the config"
        : "not in use (watching starts when the workspace is used)";
      return {
        mode: "off",
        reason,
        fix: null,
        pending_changes: 0,
        syncs: 0,
        last_sync: null,
        events_ignored: 0,
      };
    }
    return {
      mode: st.mode,
      reason: st.reason ?? unwatchedReason(st.watcher),
      fix: st.fix,
      pending_changes: st.pending.size + (st.unknownSince !== null ? 1 : 0),
      syncs: st.syncs,
      last_sync: st.lastSync,
      events_ignored: st.ignored,
    };
  }

  /** `"syncing"` while a change to the workspace's published index is known and not yet indexed; else null. */
  syncing(project: ProjectRow): "syncing" | null {
    const st = this.states.get(project.project_id);
    return st && this.hasPending(st) && this.indexed(st) ? "syncing" : null;
  }

  /** True when the project's running job was started by the live index (a `sync_repo` may join it). */
  startedRunningJob(projectId: string): boolean {
    const st = this.states.get(projectId);
    const active = this.deps.runner.activeFor(projectId);
    return !!st?.ownJob && !!active && active.job.job_id === st.ownJob.jobId;
  }

  /** The paths known changed and not yet indexed (at most 50), and how many there are. */
  pendingPaths(projectId: string): { paths: string[]; count: number } {
    const st = this.states.get(projectId);
    if (!st) return { paths: [], count: 0 };
    const paths: string[] = [];
    for (const p of st.pending.keys()) {
      if (paths.length >= MAX_LISTED_PATHS) break;
      paths.push(p);
    }
    return { paths, count: st.pending.size };
  }

  /**
   * Read-your-writes: when a change to the workspace is known, starts its
   * sync now and waits until it is indexed, at most the bound. Never throws.
   */
  async settle(projectId: string): Promise<void> {
    const st = this.states.get(projectId);
    if (!st || !this.hasPending(st) || this.rywMs <= 0 || !this.indexed(st)) return;
    // A sync that failed waits for its retry: answering "syncing" at once beats waiting for nothing.
    if (st.retryTimer !== null) return;
    if (st.watcher?.waiting) st.watcher.flush();
    else if (!this.deps.runner.activeFor(projectId)) this.requestSync(st);
    let done!: () => void;
    const ready = new Promise<void>((r) => done = r);
    const check = () => {
      if (!this.hasPending(st)) done();
    };
    st.waiters.add(check);
    const timer = setTimeout(done, this.rywMs);
    try {
      await ready;
    } finally {
      clearTimeout(timer);
      st.waiters.delete(check);
    }
  }

  /** True when `path` (repository-relative) or a directory above it is known to be deleted. */
  isDeleted(projectId: string, path: string): boolean {
    const st = this.states.get(projectId);
    if (!st || !st.deleted.size) return false;
    for (let p = path; p; p = p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "") {
      if (st.deleted.has(p)) return true;
    }
    return false;
  }

  /** True when files of the workspace are known deleted and not yet synced (answers must drop them). */
  hasDeletions(projectId: string): boolean {
    return (this.states.get(projectId)?.deleted.size ?? 0) > 0;
  }

  private hasPending(st: Watched): boolean {
    return st.pending.size > 0 || st.unknownSince !== null;
  }

  /** True when the workspace has a published index this build reads (there is something to keep live). */
  private indexed(st: Watched): boolean {
    return this.deps.view(st.project).schemaStatus === "compatible";
  }

  private configuredMode(project: ProjectRow): WatchMode {
    return configuredWatchMode(this.deps.config, project.repo_root);
  }

  private watch(project: ProjectRow, pinned: boolean): void {
    if (!this.options.enabled) return;
    const existing = this.states.get(project.project_id);
    if (existing) {
      existing.pinned ||= pinned;
      return;
    }
    if (!this.order.includes(project.project_id)) this.order.push(project.project_id);
    const st: Watched = {
      project,
      pinned,
      mode: "off",
      reason: null,
      fix: null,
      watcher: null,
      pollTimer: null,
      pollBackoffMs: 0,
      listing: null,
      pending: new Map(),
      deleted: new Set(),
      unknownSince: null,
      ownJob: null,
      again: false,
      retryTimer: null,
      retryMs: 0,
      waiters: new Set(),
      ignored: 0,
      syncs: 0,
      lastSync: null,
      staleCured: undefined,
      closed: false,
    };
    this.states.set(project.project_id, st);
    if (this.moved(st)) return;
    const mode = this.configuredMode(project);
    if (mode === "off") {
      st.reason = "watch is off for this workspace in the config";
      return;
    }
    if (mode === "poll") this.startPolling(st, "the config asks for polling", null);
    else {
      const netfs = networkFileSystem(project.repo_root);
      if (netfs) {
        this.startPolling(
          st,
          `${project.repo_root} is on a ${netfs} file system, where change events are unreliable`,
          null,
        );
      } else {
        st.mode = "events";
        st.reason = WATCH_STARTING;
        void this.startEvents(st);
        return;
      }
    }
    info(`watching ${project.repo_root} (${st.mode}${st.reason ? `: ${st.reason}` : ""})`);
  }

  /**
   * Starts the watch of the tree without holding calls up (a large tree's walk
   * takes seconds; it waits for the server's first answer, see
   * `WALK_DEFER_MS`), then compares the tree with the manifest: what changed
   * before the watch was up is found by that comparison.
   */
  private async startEvents(st: Watched): Promise<void> {
    if (!this.answeredOnce && this.options.walkDeferMs !== 0) {
      st.reason = WATCH_DEFERRED;
      await this.afterFirstAnswer();
      if (st.closed) return;
      st.reason = WATCH_STARTING;
    }
    try {
      const watcher = await TreeWatcher.start(st.project.repo_root, this.hooks(st), this.timing);
      // The root swapped while its directories were listed: the watch may be on the new target.
      if (st.closed || this.moved(st)) return watcher.close();
      st.watcher = watcher;
      st.reason = WATCH_CATCHING_UP;
    } catch (e) {
      this.fallBack(st, e as Error);
    }
    if (st.closed) return;
    if (st.mode !== "events") { // polling compares with the manifest on its first scan
      info(`watching ${st.project.repo_root} (${st.mode}: ${st.reason})`);
      return;
    }
    await this.catchUp(st);
    if (st.reason === WATCH_CATCHING_UP) st.reason = null;
    info(`watching ${st.project.repo_root} (${st.mode}${st.reason ? `: ${st.reason}` : ""})`);
  }

  private hooks(st: Watched) {
    return {
      onChange: (rel: string, exists: boolean) => this.noteChange(st, rel, exists, performance.now()),
      onIgnored: () => st.ignored++,
      onBatch: (b: WatchBatch) => this.onBatch(st, b),
      onError: (e: Error) => this.fallBack(st, e),
    };
  }

  /** Events cannot be had (or stopped): poll instead, and say why and what fixes it. */
  private fallBack(st: Watched, e: Error): void {
    if (st.closed) return;
    st.watcher?.close();
    st.watcher = null;
    if (e instanceof Deno.errors.NotCapable) {
      // Polling could not read it either; say which rule stops it, never the runtime's own wording.
      st.mode = "off";
      st.reason = outsideSandbox(st.project.repo_root).message;
      warn(`not watching ${st.project.repo_root}: ${st.reason}`);
      return;
    }
    const limit = isWatchLimitError(e);
    warn(`watching ${st.project.repo_root} failed (${e.message}); polling instead`);
    this.startPolling(
      st,
      limit ? `the inotify watch limit is reached (${e.message})` : `file events are not available (${e.message})`,
      limit ? INOTIFY_FIX : null,
    );
    st.unknownSince ??= performance.now(); // events may have been lost
    this.requestSync(st);
  }

  private noteChange(st: Watched, rel: string, exists: boolean, seenAt: number): void {
    st.staleCured = undefined;
    st.pending.set(rel, seenAt);
    if (exists) st.deleted.delete(rel);
    else st.deleted.add(rel);
  }

  private onBatch(st: Watched, b: WatchBatch): void {
    if (st.closed || this.moved(st)) return;
    // Lost events, changed rules, or a new directory (files may have appeared in it before its watch did).
    if (b.rescan || b.directory) st.unknownSince ??= performance.now();
    if (b.head) {
      // The branch pointer moved. To another branch (a switch): one sync of the whole tree, labelled with it.
      // On the same branch (a commit, a reset): the files that changed were reported like any edit.
      const view = this.deps.view(st.project);
      const moved = !view.ref || refFor(st.project.repo_root, st.project.vcs_mode) !== view.ref;
      if (moved) st.unknownSince ??= performance.now();
      else if (!b.changed.length && !b.deleted.length && !b.rescan) return;
    }
    this.requestSync(st);
  }

  /** Starts a sync now, or once the running job ends. */
  private requestSync(st: Watched): void {
    if (st.closed || st.retryTimer !== null || this.moved(st)) return;
    const id = st.project.project_id;
    if (this.deps.runner.activeFor(id)) {
      st.again = true;
      return;
    }
    // Nothing published to keep fresh (index_repo builds it), or a store this build cannot use.
    if (!this.indexed(st)) return;
    // Every known change is in what the last sync published.
    if (!this.hasPending(st)) {
      st.again = false;
      return;
    }
    const startedAt = performance.now();
    // Every pending change has a path: the job stats those alone (a rescan, a new directory or a branch switch
    // leaves `unknownSince` set, and a large burst is cheaper as one scan of the tree).
    const named = st.unknownSince === null && st.pending.size <= MAX_NAMED_PATHS ? [...st.pending.keys()] : undefined;
    try {
      const { active } = this.deps.runner.start(st.project, {
        mode: "incremental",
        force: false,
        warm: true,
        ...(named?.length ? { paths: named } : {}),
      });
      st.ownJob = { jobId: active.job.job_id, startedAt };
      st.again = false;
      debug(`live sync ${active.job.job_id} of ${st.project.repo_root}: ${st.pending.size} path(s) pending`);
    } catch (e) {
      debug(`live sync of ${st.project.repo_root} not started: ${(e as Error).message}`);
      this.retryLater(st);
    }
  }

  private retryLater(st: Watched): void {
    if (st.closed || st.retryTimer !== null) return;
    st.retryMs = Math.min(MAX_BACKOFF_MS, Math.max(1000, st.retryMs * 2));
    st.retryTimer = setTimeout(() => {
      st.retryTimer = null;
      if (this.hasPending(st) || st.again) this.requestSync(st);
    }, st.retryMs);
  }

  private onJobEnd(e: Extract<JobEvent, { type: "end" }>): void {
    const st = this.states.get(e.project.project_id);
    if (!st || st.closed) return;
    const own = st.ownJob?.jobId === e.job.job_id ? st.ownJob : null;
    if (own) st.ownJob = null;
    const published = e.job.status === "published";
    if (own) {
      st.lastSync = {
        job_id: e.job.job_id,
        status: e.job.status,
        changed_files: published ? e.summary?.changedFiles ?? e.job.changed_files ?? 0 : 0,
        duration_ms: (published ? e.summary?.durationMs : undefined) ?? e.job.duration_ms,
        scope: published ? e.summary?.scope ?? null : null,
      };
    }
    if (published) {
      st.retryMs = 0;
      if (own) {
        // Everything seen before this sync started is in what it published.
        for (const [path, seenAt] of st.pending) {
          if (seenAt < own.startedAt) {
            st.pending.delete(path);
            st.deleted.delete(path);
          }
        }
        if (st.unknownSince !== null && st.unknownSince < own.startedAt) st.unknownSince = null;
        st.syncs++;
        if (st.staleCured === null) st.staleCured = (e.summary?.changedFiles ?? 1) > 0 ? undefined : false;
      }
      // A job someone else started may have begun before a pending change: one more sync settles it.
      if (this.hasPending(st) || st.again) this.requestSync(st);
    } else {
      if (this.hasPending(st) || st.again) this.retryLater(st);
    }
    for (const w of [...st.waiters]) w();
  }

  /**
   * Compares a scan with the published manifest: what changed while nobody
   * watched becomes pending. In polling mode this scan is also the baseline of
   * the next poll (taken only once an index exists, so nothing between a scan
   * and a first publish is missed).
   */
  private async catchUp(st: Watched, scanned?: { files: ScannedFile[]; asked: number }): Promise<void> {
    if (!this.indexed(st)) return;
    let asked = performance.now();
    let files: ScannedFile[];
    try {
      if (scanned) ({ files, asked } = scanned);
      else files = (await this.freshness.listing(st.project)).files;
    } catch (e) {
      if (this.moved(st)) return; // the scan refused a root that now resolves elsewhere
      debug(`catch-up scan of ${st.project.repo_root} failed: ${(e as Error).message}`);
      return;
    }
    if (st.closed || this.moved(st)) return;
    const view = this.deps.view(st.project);
    if (!view.db || view.schemaStatus !== "compatible") return;
    let before: Listing;
    try {
      before = listingOfManifest(publishedFiles(view.db));
    } catch (e) {
      debug(`catch-up of ${st.project.repo_root}: manifest unreadable: ${(e as Error).message}`);
      return;
    }
    const after = listingOf(files, before);
    if (st.mode === "polling") st.listing = after;
    this.applyDiff(st, diffListings(before, after), asked);
  }

  private applyDiff(st: Watched, diff: { changed: string[]; deleted: string[] }, seenAt: number): void {
    if (!diff.changed.length && !diff.deleted.length) return;
    for (const p of diff.changed) this.noteChange(st, p, true, seenAt);
    for (const p of diff.deleted) this.noteChange(st, p, false, seenAt);
    debug(`${st.project.repo_root}: ${diff.changed.length} changed, ${diff.deleted.length} deleted since last seen`);
    this.requestSync(st);
  }

  private startPolling(st: Watched, reason: string, fix: string | null): void {
    st.mode = "polling";
    st.reason = reason;
    st.fix = fix;
    this.schedulePoll(st, this.deps.config.watch.pollIntervalMs);
  }

  private schedulePoll(st: Watched, ms: number): void {
    if (st.closed) return;
    if (st.pollTimer !== null) clearTimeout(st.pollTimer);
    st.pollTimer = setTimeout(() => {
      st.pollTimer = null;
      void this.poll(st);
    }, ms);
  }

  private async poll(st: Watched): Promise<void> {
    const t0 = performance.now();
    const interval = this.deps.config.watch.pollIntervalMs;
    if (this.moved(st)) return;
    try {
      const { files, scanMs } = await this.freshness.listing(st.project);
      if (st.closed || this.moved(st)) return;
      if (st.listing) {
        const next = listingOf(files, st.listing);
        this.applyDiff(st, diffListings(st.listing, next), t0);
        st.listing = next;
      } else await this.catchUp(st, { files, asked: t0 });
      st.pollBackoffMs = 0;
      this.schedulePoll(st, Math.max(interval, Math.min(MAX_BACKOFF_MS, scanMs * SCAN_COST_FACTOR)));
    } catch (e) {
      st.pollBackoffMs = Math.min(MAX_BACKOFF_MS, Math.max(interval, st.pollBackoffMs * 2));
      debug(`polling ${st.project.repo_root} failed: ${(e as Error).message}`);
      this.schedulePoll(st, st.pollBackoffMs);
    }
  }

  /**
   * True when the workspace's root now resolves to another path (it became a
   * symlink): watching stops for good, saying so (`re-register it`), and
   * nothing more is synced from it.
   */
  private moved(st: Watched): boolean {
    const real = rootMovedTo(st.project.repo_root);
    if (real === null) return false;
    this.halt(st);
    st.mode = "off";
    st.reason = rootMovedError(st.project.repo_root, real).message;
    st.fix = `cruxe init --workspace ${real}`;
    warn(`stopped watching ${st.project.repo_root}: ${st.reason}`);
    return true;
  }

  private halt(st: Watched): void {
    st.closed = true;
    st.watcher?.close();
    st.watcher = null;
    if (st.pollTimer !== null) clearTimeout(st.pollTimer);
    if (st.retryTimer !== null) clearTimeout(st.retryTimer);
    st.pollTimer = st.retryTimer = null;
    for (const w of [...st.waiters]) w();
  }
}

/** While events are used: the directories left out of the watch because they could not be read, or null. */
function unwatchedReason(w: TreeWatcher | null): string | null {
  if (!w?.unreadable.size) return null;
  const names = [...w.unreadable.keys()];
  return `${names.length} unreadable director${names.length === 1 ? "y is" : "ies are"} not watched ` +
    `(${names.slice(0, 3).join(", ")}${names.length > 3 ? ", …" : ""}); the rest is`;
}
