/**
 * Starting and tracking index jobs: one active job per project (a second
 * request joins it), each job in its own worker, progress fanned out to
 * listeners. A job started `warm` (the live index's syncs) leaves its worker
 * and parse workers parked for the project's next warm job, so an edit's sync
 * starts no worker and loads no grammar; a parked worker is retired after
 * `WARM_IDLE_MS` without a job. Requires what the indexer requires.
 */
import type { CruxeConfig } from "../core/config.ts";
import { CruxeError, type ErrorCode, isErrorCode } from "../core/errors.ts";
import { newJobId } from "../core/ids.ts";
import { SCHEMA_VERSION } from "../core/version.ts";
import { warn } from "../core/log.ts";
import { nowIso } from "../state/db.ts";
import { type JobProgress, type JobRow, type ProjectRow, refJobLabel, type Registry } from "../state/registry.ts";
import type { JobWorkerIn, JobWorkerOut } from "./job_worker.ts";
import type { ActiveJob, IndexSummary, JobEvent } from "../state/jobs.ts";
import { PARSE_WORKER_URL } from "./worker_pool.ts";
import { registerProject } from "./project_setup.ts";
import { refFor } from "../io/git.ts";
import { checkRootUnmoved } from "../io/workspace_dir.ts";
import { holdProcessLock, processAlive } from "../io/process_lock.ts";
import { asStorageError } from "../state/storage_errors.ts";
import { indexPath } from "../state/project_index.ts";
import { type RefStoreInfo, touchRefStore } from "../state/ref_stores.ts";
import { findRefStore, isLiveRef, refsHomeFor, resolveProjectRef } from "../state/project_refs.ts";
import type { ResolvedRef } from "../io/git.ts";

/** Ends a job with its summary, or with the failure's message, registry code and data. */
type Finish = (
  summary: IndexSummary | null,
  error: string | null,
  errorCode?: ErrorCode,
  errorData?: Record<string, unknown>,
  crashed?: boolean,
) => void;

const JOB_WORKER_URL = new URL("./job_worker.ts", import.meta.url);

/** The key of a job in the runner: the project for its working tree, project and commit for a ref. */
function jobKey(projectId: string, commit?: string): string {
  return commit ? `${projectId}@${commit}` : projectId;
}

/** What starting a ref job did: a job started or joined, or (`existing`) the commit was already indexed. */
export interface RefStart {
  resolved: ResolvedRef;
  active?: ActiveJob;
  joined: boolean;
  existing?: RefStoreInfo;
}

/** How long a parked (warm) job worker waits for its project's next job before it is terminated. */
const WARM_IDLE_MS = 60_000;

/** A job worker and its parse workers kept between a project's warm jobs. */
interface Parked {
  worker: Worker;
  parsers: Map<number, Worker>;
  timer: ReturnType<typeof setTimeout>;
}

/** Runs index jobs for the projects of one registry. */
export class JobRunner {
  private active = new Map<string, ActiveJob>();
  /** Job ends the registry refused to record (full disk): shown by `jobView`, written when it accepts writes again. */
  private unrecorded = new Map<string, JobProgress>();
  private listeners = new Set<(e: JobEvent) => void>();
  /** Parked warm workers by project. */
  private parked = new Map<string, Parked>();
  /** Jobs started warm (their worker is parked, not terminated, when they end normally). */
  private warmJobs = new Set<string>();

  constructor(
    private registry: Registry,
    private config: CruxeConfig,
    private opts: { warmIdleMs?: number } = {},
  ) {}

  /** True while a warm worker is parked for the project (tests and status). */
  hasWarmWorker(projectId: string): boolean {
    return this.parked.has(projectId);
  }

  /** Terminates the project's parked worker, if any. */
  retireWarm(projectId: string): void {
    this.unpark(projectId, false);
  }

  /** Takes the project's parked worker off its idle timer: to run a warm job on it, else terminated. */
  private unpark(projectId: string, warm: boolean): Parked | undefined {
    const p = this.parked.get(projectId);
    if (!p) return undefined;
    this.parked.delete(projectId);
    clearTimeout(p.timer);
    if (warm) return p;
    terminate(p.worker, p.parsers);
    return undefined;
  }

  /** Parks a finished warm job's workers for the project's next warm job. */
  private park(projectId: string, worker: Worker, parsers: Map<number, Worker>): void {
    this.retireWarm(projectId);
    const timer = setTimeout(() => {
      if (this.parked.get(projectId)?.worker === worker) this.retireWarm(projectId);
    }, this.opts.warmIdleMs ?? WARM_IDLE_MS);
    this.parked.set(projectId, { worker, parsers, timer });
  }

  /** Listens to every job's progress and end; returns the unsubscribe function. */
  subscribe(fn: (e: JobEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(e: JobEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (err) {
        warn(`job listener failed: ${(err as Error).message}`);
      }
    }
  }

  /** The running job of a project, if any. */
  activeFor(projectId: string): ActiveJob | undefined {
    return this.active.get(projectId);
  }

  /**
   * Registers the directory `root` as an auto-discovered project and starts
   * its bootstrap index (concurrent first requests join that job). Here
   * rather than in the router because registering probes the directory's
   * VCS, which only the indexing side does.
   */
  bootstrapWorkspace(root: string): ProjectRow {
    const project = registerProject(this.registry, root, { autoDiscovered: true });
    this.start(project, { mode: "full", force: false, joinExisting: true });
    return project;
  }

  /** Every running job. */
  all(): ActiveJob[] {
    return [...this.active.values()];
  }

  /**
   * The project's running job when `joinExisting` allows joining it;
   * otherwise a job running here or in another live Cruxe process is
   * `index_in_progress` / `sync_in_progress`. Undefined when none runs.
   */
  private refuseConcurrent(
    project: ProjectRow,
    opts: { mode: "full" | "incremental"; joinExisting?: boolean },
  ): ActiveJob | undefined {
    const running = this.active.get(project.project_id);
    if (running) {
      if (opts.joinExisting) return running;
      throw new CruxeError(
        opts.mode === "full" ? "index_in_progress" : "sync_in_progress",
        `An index job (${running.job.job_id}) is already running for ${project.repo_root}`,
        { job_id: running.job.job_id, progress_token: running.job.progress_token },
      );
    }
    // Another live Cruxe process (a server, a CLI run) may be indexing the same project.
    this.refuseElsewhere(
      project.project_id,
      undefined,
      opts.mode === "full" ? "index_in_progress" : "sync_in_progress",
      (pid, jobId) => `Another Cruxe process (pid ${pid}) is indexing ${project.repo_root} (job ${jobId})`,
    );
    return undefined;
  }

  /**
   * Throws `code` (with the job's handles and owner) when another live Cruxe
   * process runs a job on the project (or, with `commit`, on that ref's store).
   */
  private refuseElsewhere(
    projectId: string,
    commit: string | undefined,
    code: ErrorCode,
    message: (pid: number, jobId: string) => string,
  ): void {
    const elsewhere = this.registry.activeJob(projectId, commit);
    if (!elsewhere || elsewhere.owner_pid === null || elsewhere.owner_pid === Deno.pid) return;
    if (!processAlive(this.registry.home, elsewhere.owner_pid)) return;
    throw new CruxeError(code, message(elsewhere.owner_pid, elsewhere.job_id), {
      job_id: elsewhere.job_id,
      progress_token: elsewhere.progress_token,
      owner_pid: elsewhere.owner_pid,
    });
  }

  /**
   * Ends a job once: terminates its workers, records the end when the worker
   * could not (kept for later when the registry refuses writes), sets the
   * workspace status, keeps the failure as `entry.error`, tells listeners
   * and resolves `done`. Never throws (it runs inside worker event handlers).
   */
  private finish(
    entry: ActiveJob,
    resolveDone: (j: JobRow) => void,
    end: {
      summary: IndexSummary | null;
      error: string | null;
      errorCode?: ErrorCode;
      errorData?: Record<string, unknown>;
    },
    crashed: boolean,
  ): void {
    const { summary, error, errorCode, errorData } = end;
    const { project, job, worker, parsers } = entry;
    const key = jobKey(project.project_id, entry.gitRef?.commit);
    if (this.active.get(key) !== entry) return;
    this.active.delete(key);
    // A warm job's worker answered its end and is idle: park it for the next one (a crashed one is dropped).
    if (this.warmJobs.delete(job.job_id) && !crashed) this.park(project.project_id, worker, parsers);
    else terminate(worker, parsers);
    // Runs inside worker event handlers: a registry that cannot be written (full disk) must not throw here.
    const row = this.attempt(() => this.registry.getJob(job.job_id)) ?? job;
    let final: JobRow = row;
    if (row.status === "running" || row.status === "queued") {
      // The worker could not record the end (or died): record it here.
      const end = summary
        ? { status: "published" as const, error_message: null, finished_at: nowIso() }
        : { status: "failed" as const, error_message: error ?? "job ended", finished_at: nowIso() };
      const recorded = this.attempt(() => (this.registry.updateJob(job.job_id, end), true)) ?? false;
      if (!recorded) this.unrecorded.set(job.job_id, end);
      final = (recorded ? this.attempt(() => this.registry.getJob(job.job_id)) : undefined) ?? { ...row, ...end };
    }
    if (!entry.gitRef) {
      this.attempt(() =>
        this.registry.setWorkspaceStatus(project.project_id, final.status === "published" ? "ready" : "failed")
      );
    }
    if (final.status !== "published" && error) {
      entry.error = new CruxeError(errorCode ?? "internal_error", error, { ...errorData, job_id: job.job_id });
    }
    this.emit({ type: "end", job: final, project, summary, error, errorCode, errorData, gitRef: entry.gitRef });
    resolveDone(final);
  }

  /** One message of a job worker: parse-worker plumbing, progress, or the job's end. */
  private onWorkerMessage(entry: ActiveJob, m: JobWorkerOut, finish: Finish): void {
    const { job, project, worker, parsers } = entry;
    if (m.type === "spawn-parser") {
      const channel = new MessageChannel();
      const pw = new Worker(PARSE_WORKER_URL, { type: "module" });
      pw.onerror = (ev: ErrorEvent) => {
        ev.preventDefault();
        worker.postMessage({ type: "parser-crashed", slot: m.slot, message: ev.message } satisfies JobWorkerIn);
      };
      parsers.set(m.slot, pw);
      pw.postMessage({ type: "port", port: channel.port1 }, [channel.port1]);
      worker.postMessage({ type: "parser", slot: m.slot, port: channel.port2 } satisfies JobWorkerIn, [
        channel.port2,
      ]);
    } else if (m.type === "kill-parser") {
      parsers.get(m.slot)?.terminate();
      parsers.delete(m.slot);
    } else if (m.type === "progress") {
      entry.last = m.event;
      this.emit({ type: "progress", job, project, event: m.event, gitRef: entry.gitRef });
    } else if (m.type === "done") finish(m.summary, null);
    else finish(null, m.message, isErrorCode(m.code) ? m.code : "internal_error", m.data);
  }

  /**
   * Starts a job on the working tree, or returns the running one (`joined:
   * true`) when the project already has one and `joinExisting` is set;
   * otherwise a running job is an `index_in_progress` / `sync_in_progress`
   * error. A `ref` other than the working tree's is for `startRef`
   * (`ref_not_indexed` here).
   */
  start(
    project: ProjectRow,
    opts: {
      mode: "full" | "incremental";
      force: boolean;
      ref?: string;
      joinExisting?: boolean;
      /** Sync only these repository-relative paths (what a watcher reported; see `IndexOptions.paths`). */
      paths?: string[];
      /** Run on the project's parked worker when there is one, and park it again after. */
      warm?: boolean;
    },
  ): { active: ActiveJob; joined: boolean } {
    checkRootUnmoved(project.repo_root);
    const running = this.refuseConcurrent(project, opts);
    if (running) return { active: running, joined: true };
    const ref = refFor(project.repo_root, project.vcs_mode);
    if (!isLiveRef(opts.ref)) {
      throw new CruxeError(
        "ref_not_indexed",
        `Ref ${opts.ref} is not the working tree of ${project.repo_root} (current: ${ref}); index it with ` +
          `index_repo {"ref": "${opts.ref}"}.`,
        { requested_ref: opts.ref, current_ref: ref },
      );
    }
    return { active: this.launch(project, ref, opts), joined: false };
  }

  /**
   * Indexes git ref `ref` of `project` into its refs store (see
   * `runRefIndex`): resolves it to a commit, answers `existing` when that
   * commit is already indexed (unless `force`), joins a job already building
   * it, else starts one. A ref job runs beside the working tree's jobs.
   */
  async startRef(project: ProjectRow, ref: string, opts: { force: boolean }): Promise<RefStart> {
    checkRootUnmoved(project.repo_root);
    const resolved = await resolveProjectRef(project, ref);
    const key = jobKey(project.project_id, resolved.commit);
    const running = this.active.get(key);
    if (running) return { resolved, active: running, joined: true };
    // Another live Cruxe process building the same commit: two builds of it would be one wasted.
    this.refuseElsewhere(
      project.project_id,
      resolved.commit,
      "index_in_progress",
      (pid, jobId) =>
        `Another Cruxe process (pid ${pid}) is indexing ${ref} (${resolved.commit}) of ${project.repo_root} ` +
        `(job ${jobId}); retry when it ends.`,
    );
    const existing = findRefStore(this.registry, project, resolved.commit);
    // A refs store of another schema is rebuilt (its commits are an index of git objects, not upgraded in place).
    const current = existing?.schemaVersion === SCHEMA_VERSION;
    if (existing && current && !opts.force) {
      touchRefStore(existing.dir, existing.commit);
      return { resolved, joined: false, existing };
    }
    const force = opts.force || (existing !== undefined && !current);
    return {
      resolved,
      active: this.launch(project, ref, { mode: force ? "full" : "incremental", force }, resolved),
      joined: false,
    };
  }

  /** The job building the store of `commit` of a project, if one runs here. */
  activeRef(projectId: string, commit: string): ActiveJob | undefined {
    return this.active.get(jobKey(projectId, commit));
  }

  /** Creates a job row and its worker, and starts it (the working tree's job, or with `gitRef` a ref's). */
  private launch(
    project: ProjectRow,
    ref: string,
    opts: { mode: "full" | "incremental"; force: boolean; paths?: string[]; warm?: boolean },
    gitRef?: ResolvedRef,
  ): ActiveJob {
    if (this.registry.readOnly) throw this.registry.readOnlyError();
    this.flushUnrecorded();
    try {
      holdProcessLock(this.registry.home);
    } catch (e) {
      throw asStorageError(e, this.registry.home, { home: this.registry.home });
    }
    const job = this.registry.createJob({
      job_id: newJobId(),
      project_id: project.project_id,
      ref: gitRef ? refJobLabel(ref, gitRef.commit) : ref,
      mode: opts.mode,
    });
    if (!gitRef) this.attempt(() => this.registry.setWorkspaceStatus(project.project_id, "indexing"));
    // Only working-tree jobs run on a parked worker; a ref job runs beside them on its own.
    const warm = !gitRef && (opts.warm ?? false);
    const reuse = gitRef ? undefined : this.unpark(project.project_id, warm);
    const worker = reuse?.worker ?? new Worker(JOB_WORKER_URL, { type: "module" });
    let resolveDone!: (j: JobRow) => void;
    const done = new Promise<JobRow>((r) => resolveDone = r);
    const parsers = reuse?.parsers ?? new Map<number, Worker>();
    const entry: ActiveJob = { job, project, done, last: null, worker, parsers, ...(gitRef ? { gitRef } : {}) };
    this.active.set(jobKey(project.project_id, gitRef?.commit), entry);
    if (warm) this.warmJobs.add(job.job_id);
    const finish: Finish = (summary, error, errorCode, errorData, crashed = false) =>
      this.finish(entry, resolveDone, { summary, error, errorCode, errorData }, crashed);
    worker.onmessage = (e: MessageEvent<JobWorkerOut>) => this.onWorkerMessage(entry, e.data, finish);
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      // A storage fault that escaped the worker is still that fault; anything else is a bug.
      const fault = asStorageError(new Error(e.message), indexPath(this.registry.projectDir(project.project_id)));
      if (fault instanceof CruxeError) finish(null, fault.message, fault.code, fault.data, true);
      else finish(null, `index worker crashed: ${e.message}`, "internal_error", undefined, true);
    };
    const msg: JobWorkerIn = {
      type: "start",
      jobId: job.job_id,
      home: this.registry.home,
      storePageCap: this.config.testMaxPageCount,
      options: {
        root: project.repo_root,
        projectDir: this.registry.projectDir(project.project_id),
        ref,
        vcsMode: project.vcs_mode,
        force: opts.force,
        project: {
          id: project.project_id,
          name: project.name,
          autoDiscovered: this.attempt(() => this.registry.getWorkspace(project.repo_root))?.auto_discovered === 1,
        },
        maxFileBytes: this.config.maxFileBytes,
        maxFullTextBytes: this.config.maxFullTextBytes,
        workers: this.config.workers,
        workerRecycleFiles: this.config.workerRecycleFiles,
        maxRefStores: this.config.maxRefStores,
        ...(gitRef ? { gitRef, refsHome: refsHomeFor(this.registry, project) } : {}),
        ...(opts.paths ? { paths: opts.paths } : {}),
      },
      warm,
    };
    worker.postMessage(msg);
    return entry;
  }

  /** Asks a project's jobs (its working tree's and its refs') to stop and waits until they have rolled back. */
  async cancel(projectId: string): Promise<void> {
    const keys = [...this.active.keys()].filter((k) => k === projectId || k.startsWith(`${projectId}@`));
    await Promise.all(keys.map((k) => this.cancelKey(k)));
  }

  private async cancelKey(key: string): Promise<void> {
    const a = this.active.get(key);
    if (!a) return;
    a.worker.postMessage({ type: "cancel" } satisfies JobWorkerIn);
    const timeout = new Promise<null>((r) => setTimeout(() => r(null), 10_000));
    const res = await Promise.race([a.done, timeout]);
    if (res === null) {
      this.warmJobs.delete(a.job.job_id);
      terminate(a.worker, a.parsers);
      this.attempt(() =>
        this.registry.updateJob(a.job.job_id, { status: "failed", error_message: "cancelled", finished_at: nowIso() })
      );
      this.active.delete(key);
    }
  }

  /** A job row as this process knows it: with its end applied when the registry could not record it. */
  jobView(row: JobRow): JobRow {
    const end = this.unrecorded.get(row.job_id);
    return end ? { ...row, ...end } as JobRow : row;
  }

  /** Writes the job ends the registry refused earlier; keeps those it still refuses. */
  private flushUnrecorded(): void {
    for (const [id, end] of this.unrecorded) {
      try {
        this.registry.updateJob(id, end);
        this.unrecorded.delete(id);
      } catch {
        return; // still refused: try again at the next job or at shutdown
      }
    }
  }

  /** Runs a registry access that must not throw (event handlers, shutdown); a failure is logged. */
  private attempt<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (e) {
      warn(`registry ${this.registry.path}: ${(e as Error).message}`);
      return undefined;
    }
  }

  /** Stops every job at shutdown: they end `interrupted` and are reported next start. */
  shutdown(): void {
    this.flushUnrecorded();
    for (const id of [...this.parked.keys()]) this.retireWarm(id);
    for (const a of this.active.values()) {
      this.warmJobs.delete(a.job.job_id);
      terminate(a.worker, a.parsers);
      this.attempt(() =>
        this.registry.updateJob(a.job.job_id, {
          status: "interrupted",
          error_message: "server stopped before the job finished",
          finished_at: nowIso(),
        })
      );
    }
    this.active.clear();
  }
}

/** Stops a job worker and the parse workers it uses. */
function terminate(worker: Worker, parsers: Map<number, Worker>): void {
  worker.terminate();
  for (const pw of parsers.values()) pw.terminate();
  parsers.clear();
}
