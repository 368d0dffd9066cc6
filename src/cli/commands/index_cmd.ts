/** `cruxe index` and `cruxe sync`: run one index job in the foreground with a progress bar. */
import type { CliContext } from "../context.ts";
import { projectForPath } from "../project_arg.ts";
import { JobRunner } from "../../index/job_runner.ts";
import { isLiveRef } from "../../state/project_refs.ts";
import { ProgressBar } from "../progress_bar.ts";
import { counted, printJson, say } from "../output.ts";
import { describeEmptyScan, describeSkipped } from "../explain.ts";
import { CruxeError, type ErrorCode } from "../../core/errors.ts";
import type { IndexSummary } from "../../state/jobs.ts";
import type { ResolvedRef } from "../../io/git.ts";
import type { ProjectRow } from "../../state/registry.ts";
import { snakeKeys } from "../snake_keys.ts";

/** Options of the index/sync commands. */
export interface IndexCmdOptions {
  path: string;
  force: boolean;
  ref?: string;
  mode: "full" | "incremental";
  json: boolean;
}

/** Runs an index job to its end; throws the job's error. */
export async function runIndexCommand(ctx: CliContext, o: IndexCmdOptions): Promise<number> {
  const project = projectForPath(ctx.registry, o.path, o.mode === "full");
  const runner = new JobRunner(ctx.registry, ctx.config);
  const bar = new ProgressBar();
  let summary: IndexSummary | null = null;
  let error: string | null = null;
  let errorCode: ErrorCode = "internal_error";
  let errorData: Record<string, unknown> = {};
  const off = runner.subscribe((e) => {
    if (e.type === "progress") bar.update(e.event);
    else {
      summary = e.summary;
      error = e.error;
      errorCode = e.errorCode ?? errorCode;
      errorData = e.errorData ?? {};
    }
  });
  let active;
  let gitRef: ResolvedRef | null = null;
  if (o.ref !== undefined && !isLiveRef(o.ref)) {
    const started = await runner.startRef(project, o.ref, { force: o.force });
    gitRef = started.resolved;
    if (started.existing) {
      off();
      printAlreadyIndexed(o, project, gitRef, started.existing);
      return 0;
    }
    active = started.active!;
  } else active = runner.start(project, { mode: o.mode, force: o.force, ref: o.ref }).active;
  const job = await active.done;
  off();
  bar.done();
  if (job.status !== "published") {
    throw new CruxeError(errorCode, `Index job ${job.job_id} ${job.status}: ${error ?? job.error_message}`, {
      ...errorData,
      job_id: job.job_id,
    });
  }
  printIndexSummary(ctx, o, project, job, gitRef, summary as IndexSummary | null);
  return 0;
}

/** Says that `--ref` names a commit whose index already exists. */
function printAlreadyIndexed(
  o: IndexCmdOptions,
  project: ProjectRow,
  gitRef: ResolvedRef,
  e: { fileCount: number; symbolCount: number },
): void {
  if (o.json) {
    printJson({
      project_id: project.project_id,
      repo_root: project.repo_root,
      ...refFacts(gitRef),
      already_indexed: true,
      total_files: e.fileCount,
      total_symbols: e.symbolCount,
    });
  } else {
    say(
      `${o.ref} (${gitRef.kind} at ${gitRef.commit}) is already indexed: ${e.fileCount} files, ${e.symbolCount} symbols.`,
    );
  }
}

/** Prints a published job's summary: JSON, or a line for people with syntax errors, skips and an empty scan explained. */
function printIndexSummary(
  ctx: CliContext,
  o: IndexCmdOptions,
  project: ProjectRow,
  job: { job_id: string; ref: string },
  gitRef: ResolvedRef | null,
  s: IndexSummary | null,
): void {
  if (o.json) {
    printJson({
      project_id: project.project_id,
      repo_root: project.repo_root,
      job_id: job.job_id,
      ref: job.ref,
      ...(gitRef ? refFacts(gitRef) : {}),
      ...snakeKeys(s) as object,
    });
  } else if (s) {
    const secs = (s.durationMs / 1000).toFixed(1);
    say(
      `${s.mode === "full" ? "Indexed" : "Synced"} ${project.repo_root} (${gitRef?.ref ?? job.ref}` +
        `${gitRef ? `, ${gitRef.kind} at ${gitRef.commit}, from git objects` : ""}) in ${secs}s: ` +
        `${counted(s.filesIndexed, "file")} parsed, ${counted(s.symbols, "symbol")}; ` +
        `+${s.added} ~${s.modified} -${s.deleted} ` +
        `renamed ${s.renamed}, unchanged ${s.unchanged}. Index: ${s.totalFiles} files, ${s.totalSymbols} symbols.`,
    );
    if (s.parseErrors) {
      say(
        `${counted(s.parseErrors, "file")} had syntax errors (indexed partially); list them: cruxe status --errors`,
      );
    }
    const sk = describeSkipped(s.skipped, ctx.config.maxFileBytes);
    if (sk.length) say(`Skipped:\n${sk.join("\n")}`);
    if (s.totalFiles === 0) {
      const why = describeEmptyScan(project.repo_root);
      if (why) say(why);
    }
  }
}

/** The ref facts a `--ref` run prints. */
function refFacts(r: { ref: string; commit: string; kind: string }) {
  return { ref: r.ref, commit: r.commit, ref_kind: r.kind };
}
