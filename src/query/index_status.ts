/**
 * The status of one project's index: the `index_status` tool's body (also
 * what `/health` lists per project and what `cruxe status` prints).
 */
import type { JobRow, ProjectRow, Registry } from "../state/registry.ts";
import type { IndexReaders, IndexView } from "./index_reader.ts";
import type { ActiveJob, ProgressEvent } from "../state/jobs.ts";
import type { IndexingStatus, SchemaStatus } from "../core/metadata.ts";
import { SCHEMA_VERSION } from "../core/version.ts";
import type { RefStoreInfo } from "../state/ref_stores.ts";
import { processAlive } from "../io/process_lock.ts";
import { gitRefusal, type ResolvedRef } from "../io/git.ts";

/** `interrupted_recovery_report` (present only when interrupted jobs are unresolved). */
export interface InterruptedReport {
  detected: true;
  interrupted_jobs: number;
  last_interrupted_at: string | null;
  recommended_action: string;
}

/** The report for a project, or undefined when nothing is unresolved. */
export function interruptedReport(registry: Registry, projectId: string): InterruptedReport | undefined {
  const rows = registry.unresolvedInterrupted(projectId);
  if (!rows.length) return undefined;
  return {
    detected: true,
    interrupted_jobs: rows.length,
    last_interrupted_at: rows[0].finished_at ?? rows[0].updated_at,
    recommended_action: "run sync_repo or index_repo for the affected workspace",
  };
}

/** `projects[].index_status` of `/health`. Not-yet-indexed projects are `stale` (their index is behind the tree). */
export type HealthIndexStatus = "ready" | "indexing" | "stale" | "error";

/**
 * A project's one verdict on its index, in the two vocabularies that report
 * it: `indexing` for `index_status` and every answer's metadata, `health` for
 * `health_check` and `/health`. Both come from here, so they never disagree:
 * an index that cannot answer (damaged, another schema) is `failed` / `error`
 * everywhere.
 */
export interface IndexVerdict {
  indexing: IndexingStatus;
  health: HealthIndexStatus;
}

/**
 * The verdict on `view`: `running` when a job (of this or another process)
 * indexes the working tree, `lastFailed` when its last job failed (see
 * `lastJobFailed`), `stale` when the tree moved since the index.
 */
export function indexVerdict(
  view: IndexView,
  state: { running: boolean; lastFailed: boolean; stale: boolean },
): IndexVerdict {
  if (state.running) return { indexing: "indexing", health: "indexing" };
  switch (view.schemaStatus) {
    case "compatible":
      return { indexing: "ready", health: state.stale ? "stale" : "ready" };
    case "corrupt_manifest":
    case "reindex_required":
      return { indexing: "failed", health: "error" };
    case "not_indexed":
      return state.lastFailed ? { indexing: "failed", health: "error" } : { indexing: "not_indexed", health: "stale" };
  }
}

/** Whether the last job on the project's working tree failed (false when the registry cannot be read). */
export function lastJobFailed(registry: Registry, project: ProjectRow): boolean {
  try {
    return registry.getWorkspace(project.repo_root)?.index_status === "failed";
  } catch {
    return false;
  }
}

/**
 * The job another live Cruxe process (a server, a CLI run) is running on a
 * project's working tree (or, with `commit`, on the store of that commit),
 * from the registry it records progress in; undefined when none.
 */
export function jobElsewhere(registry: Registry, projectId: string, commit?: string): JobRow | undefined {
  let row: JobRow | null;
  try {
    row = registry.activeJob(projectId, commit);
  } catch {
    return undefined; // a registry that cannot be read has no job to show; the caller's own read says why
  }
  if (!row || row.owner_pid === null || row.owner_pid === Deno.pid) return undefined;
  return processAlive(registry.home, row.owner_pid) ? row : undefined;
}

/**
 * The `active_job` body of a running job: its registry row, with counts
 * raised to the latest progress event this process received from it (a job
 * of this process posts events before the registry is written, and writes
 * are coalesced), and the process that runs it.
 */
function jobBody(row: JobRow, ownerPid: number | null, last: ProgressEvent | null) {
  return {
    job_id: row.job_id,
    progress_token: row.progress_token,
    mode: row.mode,
    status: row.status === "queued" ? "queued" : "running",
    files_scanned: Math.max(row.files_scanned, last?.filesScanned ?? 0),
    files_indexed: Math.max(row.files_indexed, last?.filesIndexed ?? 0),
    symbols_extracted: Math.max(row.symbols_extracted, last?.symbols ?? 0),
    estimated_completion_pct: Math.max(row.estimated_completion_pct, last?.percentage ?? 0),
    stage: last?.stage ?? row.stage ?? "discovery",
    started_at: row.started_at ?? row.created_at,
    owner_pid: ownerPid,
  };
}

/** The body of a job of this process (its row as the registry has it now). */
function activeJobBody(a: ActiveJob, registry: Registry) {
  return jobBody(registry.getJob(a.job.job_id) ?? a.job, Deno.pid, a.last);
}

/** What the published index says of itself: schema, versions, ref, counts (shared by index_status and /health). */
export function indexFacts(view: IndexView) {
  return {
    schema_status: view.schemaStatus,
    current_schema_version: view.currentSchemaVersion,
    required_schema_version: view.requiredSchemaVersion,
    last_indexed_at: view.lastIndexedAt,
    ref: view.ref ?? view.project.default_ref,
    file_count: view.fileCount,
    symbol_count: view.symbolCount,
    skipped: view.skipped ?? null,
    ...(view.problem ? { problem: view.problem, fix: `cruxe index --force --path ${view.project.repo_root}` } : {}),
    ...(view.readOnly ? { read_only: true, syncing: "off" } : {}),
  };
}

/** `git_refused`: why the root's `.git` is not used (it is scanned as a plain directory); absent when nothing is refused. */
function gitNote(root: string): { git_refused?: string } {
  const why = gitRefusal(root);
  return why ? { git_refused: `${why}; indexed as a plain directory` } : {};
}

/**
 * The spec's index_status body for one project (without `metadata`). `jobView`
 * overlays what the caller knows of a job that the registry could not record.
 */
export function projectStatus(
  registry: Registry,
  readers: IndexReaders,
  project: ProjectRow,
  active: ActiveJob | undefined,
  jobView: (row: JobRow) => JobRow = (row) => row,
) {
  const view = readers.view(project);
  const jobs = registry.recentJobs(project.project_id, 5).map(jobView);
  const report = interruptedReport(registry, project.project_id);
  const elsewhere = active ? undefined : jobElsewhere(registry, project.project_id);
  return {
    ...projectFields(project),
    ...gitNote(project.repo_root),
    index_status: indexVerdict(view, {
      running: !!(active || elsewhere),
      lastFailed: lastJobFailed(registry, project),
      stale: false,
    }).indexing,
    ...indexFacts(view),
    active_job: active
      ? activeJobBody(active, registry)
      : elsewhere
      ? jobBody(elsewhere, elsewhere.owner_pid, null)
      : null,
    recent_jobs: jobs.map(recentJob),
    ...(report ? { interrupted_recovery_report: report } : {}),
  };
}

/** Who the project is, as every index_status answer opens. */
function projectFields(project: ProjectRow) {
  return {
    project_id: project.project_id,
    repo_root: project.repo_root,
    name: project.name,
    vcs_mode: project.vcs_mode,
  };
}

/** One job of `recent_jobs`. */
function recentJob(j: JobRow) {
  return {
    job_id: j.job_id,
    ref: j.ref,
    mode: j.mode,
    status: j.status,
    changed_files: j.changed_files,
    files_indexed: j.files_indexed,
    symbols_extracted: j.symbols_extracted,
    parse_errors: j.parse_errors,
    duration_ms: j.duration_ms,
    error_message: j.error_message,
    created_at: j.created_at,
  };
}

/** What `refIndexStatus` is given about a git ref: the ref resolved, its published store, the job building it. */
export interface RefIndexFacts {
  resolved: ResolvedRef;
  store: RefStoreInfo | undefined;
  /** This process's job on the commit. */
  active: ActiveJob | undefined;
  /** The `index_repo` call that indexes the ref (given when nothing is indexed or building). */
  fix: unknown;
}

/**
 * The index_status body for a git ref: the same fields as `projectStatus`
 * (the project, `index_status`, schema, counts, `active_job` and the
 * commit's `recent_jobs`), plus the ref's `commit` and `kind`, `state`
 * (`ready`, `indexing`, `not_indexed`) and, when nothing is indexed or
 * building, the `fix`. `metadata` tells the dispatcher what the answer is about.
 */
export function refIndexStatus(registry: Registry, project: ProjectRow, facts: RefIndexFacts) {
  const { resolved, store, active } = facts;
  const job = active?.job ?? jobElsewhere(registry, project.project_id, resolved.commit);
  const jobs = registry.recentJobs(project.project_id, 50).filter((j) => j.ref.endsWith(`@${resolved.commit}`));
  const schemaStatus: SchemaStatus = !store
    ? "not_indexed"
    : store.schemaVersion === SCHEMA_VERSION
    ? "compatible"
    : "reindex_required";
  const indexing: IndexingStatus = job
    ? "indexing"
    : schemaStatus === "compatible"
    ? "ready"
    : jobs[0]?.status === "failed"
    ? "failed"
    : "not_indexed";
  return {
    ...projectFields(project),
    index_status: indexing,
    schema_status: schemaStatus,
    current_schema_version: store?.schemaVersion ?? 0,
    required_schema_version: SCHEMA_VERSION,
    last_indexed_at: store?.lastIndexedAt ?? null,
    ref: resolved.ref,
    commit: resolved.commit,
    kind: resolved.kind,
    file_count: store?.fileCount ?? 0,
    symbol_count: store?.symbolCount ?? 0,
    skipped: null, // a ref is read from git objects: nothing on disk is skipped as unreadable
    state: store ? "ready" : job ? "indexing" : "not_indexed",
    active_job: active ? activeJobBody(active, registry) : job ? jobBody(job, job.owner_pid, null) : null,
    recent_jobs: jobs.slice(0, 5).map(recentJob),
    ...(store || job ? {} : { fix: facts.fix }),
    metadata: {
      ref: resolved.ref,
      ref_commit: resolved.commit,
      indexing_status: indexing,
      schema_status: schemaStatus,
      // A commit never changes: its published index is fresh; one not published yet is not.
      freshness_status: job ? "syncing" as const : store ? "fresh" as const : "stale" as const,
    },
  };
}
