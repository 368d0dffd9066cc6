/**
 * Starting an index job from a tool call: answer at once with the job's
 * handles, or (`wait: true`) stay open until it ends, streaming progress to
 * the caller's token. The job itself runs in the JobRunner's worker.
 */
import type { ActiveJob } from "../../state/jobs.ts";
import type { JobRow } from "../../state/registry.ts";
import type { RefStart } from "../../index/job_runner.ts";
import { findRefStore, isLiveRef } from "../../state/project_refs.ts";
import { refFields } from "../ref_router.ts";
import type { ToolBody, ToolContext } from "./tool.ts";
import { TOOL } from "../../core/tool_names.ts";

/** What index_repo / sync_repo ask for. */
export interface JobCallRequest {
  tool: typeof TOOL.index_repo | typeof TOOL.sync_repo;
  force: boolean;
  ref?: string;
  wait: boolean;
}

/** The mode a job will really run in: the indexer goes incremental whenever an index exists and force is off. */
function effectiveMode(ctx: ToolContext, force: boolean): "full" | "incremental" {
  return force || ctx.view().schemaStatus !== "compatible" ? "full" : "incremental";
}

function body(tool: JobCallRequest["tool"], row: JobRow, mode: string, count: number | null, joined: boolean) {
  const out: Record<string, unknown> = {
    job_id: row.job_id,
    progress_token: row.progress_token,
    status: row.status === "queued" ? "running" : row.status,
    mode,
  };
  if (tool === TOOL.index_repo) out.file_count = count;
  else out.changed_files = count;
  if (joined) out.joined_existing_job = true;
  if (row.error_message && row.status !== "published") out.error_message = row.error_message;
  return out;
}

/**
 * Starts (or, right after a bootstrap, joins) the routed project's job and
 * answers with the job's status. A `ref` other than the working tree's
 * indexes that ref from git objects (`runRefCall`).
 */
export async function runJobCall(ctx: ToolContext, req: JobCallRequest): Promise<ToolBody> {
  const { runtime, route } = ctx;
  if (!isLiveRef(req.ref)) {
    return await runRefCall(ctx, req, await runtime.runner.startRef(route.project, req.ref!, { force: req.force }));
  }
  const mode = effectiveMode(ctx, req.force);
  const { active, joined } = runtime.runner.start(route.project, {
    mode,
    force: req.force,
    ref: req.ref,
    joinExisting: route.bootstrapped || joinsRunning(ctx, req.force),
  });
  if (!req.wait) return body(req.tool, active.job, mode, null, joined);
  const final = await waitForJob(ctx, active);
  if (!final) return body(req.tool, runtime.registry.getJob(active.job.job_id) ?? active.job, mode, null, joined);
  const count = req.tool === TOOL.index_repo ? ctx.view().fileCount : final.changed_files;
  return body(req.tool, final, mode, final.status === "published" ? count : null, joined);
}

/**
 * Whether a request joins the project's running job rather than being
 * refused: a sync the live index started is what a request without force
 * asks for, and so is the index the server started on its own for a served
 * workspace (with force too while there is no usable index: the running job
 * builds it from scratch).
 */
function joinsRunning(ctx: ToolContext, force: boolean): boolean {
  const { runtime, route } = ctx;
  const id = route.project.project_id;
  if (!runtime.runsServedJob(id)) return !force && runtime.live.startedRunningJob(id);
  return !force || ctx.view().schemaStatus !== "compatible";
}

/**
 * Follows a job to its end with progress to the caller's token; null when
 * the call was cancelled first. A job that failed for a known reason (a full
 * disk, a damaged store) throws that registry error.
 */
export async function waitForJob(ctx: ToolContext, active: ActiveJob): Promise<JobRow | null> {
  const stop = ctx.progress?.follow(active);
  const aborted = new Promise<null>((resolve) => {
    if (ctx.signal.aborted) resolve(null);
    ctx.signal.addEventListener("abort", () => resolve(null), { once: true });
  });
  const final = await Promise.race([active.done, aborted]);
  stop?.();
  if (final?.status === "failed" && active.error && active.error.code !== "internal_error") throw active.error;
  return final;
}

/**
 * The answer of index_repo / sync_repo for a git ref: the resolved ref
 * (`ref`, `commit`, `kind`) with the job's handles, or `already_indexed`
 * when that commit is indexed already (it never changes: nothing to do
 * unless `force`).
 */
async function runRefCall(ctx: ToolContext, req: JobCallRequest, started: RefStart): Promise<ToolBody> {
  const refBody = (extra: Record<string, unknown>) => ({ ...refFields(started.resolved), ...extra });
  if (started.existing) {
    return refBody({
      job_id: null,
      status: "published",
      mode: "incremental",
      already_indexed: true,
      [req.tool === TOOL.index_repo ? "file_count" : "changed_files"]: req.tool === TOOL.index_repo
        ? started.existing.fileCount
        : 0,
      symbol_count: started.existing.symbolCount,
    });
  }
  const active = started.active!;
  const final = req.wait ? await waitForJob(ctx, active) : null;
  const row = final ?? ctx.runtime.registry.getJob(active.job.job_id) ?? active.job;
  const { registry } = ctx.runtime;
  const store = final?.status === "published"
    ? findRefStore(registry, ctx.route.project, started.resolved.commit)
    : undefined;
  const count = req.tool === TOOL.index_repo ? store?.fileCount ?? null : final?.changed_files ?? null;
  return refBody(body(req.tool, row, row.mode, count, started.joined));
}

/** The active-job block used by health_check (same fields as index_status's). */
export function activeJobSummary(ctx: ToolContext, a: ActiveJob) {
  const row = ctx.runtime.registry.getJob(a.job.job_id) ?? a.job;
  return {
    job_id: row.job_id,
    progress_token: row.progress_token,
    mode: row.mode,
    status: row.status === "queued" ? "queued" : "running",
    files_scanned: Math.max(row.files_scanned, a.last?.filesScanned ?? 0),
    files_indexed: Math.max(row.files_indexed, a.last?.filesIndexed ?? 0),
    symbols_extracted: Math.max(row.symbols_extracted, a.last?.symbols ?? 0),
    estimated_completion_pct: Math.max(row.estimated_completion_pct, a.last?.percentage ?? 0),
    started_at: row.started_at ?? row.created_at,
  };
}
