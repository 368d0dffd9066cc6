/**
 * The health body shared by HTTP `GET /health` and the `health_check` tool:
 * server status (`error > warming > indexing > ready`; warming: the warmset's
 * prewarm or the first query worker still loading), per-project index
 * state (with `--allowed-root`, of the projects inside the allowed roots) and
 * live-index mode (`watch`: events, polling or off, with the reason and the
 * fix), version, uptime, store and grammar checks, the warmset. Built from
 * cached read views and in-memory job state only, so it answers while an
 * index job writes.
 */
import { indexFacts, indexVerdict, jobElsewhere, lastJobFailed, projectStatus } from "../query/index_status.ts";
import { VERSION } from "../core/version.ts";
import { LANGUAGE_IDENTITIES } from "../core/languages.ts";
import { hasGrammar } from "../io/grammar_assets.ts";
import { isWithinAnyRoot } from "../core/path_policy.ts";
import type { ProjectRow } from "../state/registry.ts";
import type { ServerRuntime } from "./runtime.ts";

let grammarCache: { available: string[]; missing: string[] } | null = null;

/** Which grammars are installed (checked once: they do not change while serving). */
export function grammarCheck(): { available: string[]; missing: string[] } {
  if (!grammarCache) {
    const available: string[] = [];
    const missing: string[] = [];
    for (const l of LANGUAGE_IDENTITIES) (hasGrammar(l.grammar) ? available : missing).push(l.id);
    grammarCache = { available, missing };
  }
  return grammarCache;
}

function projectHealth(rt: ServerRuntime, p: ProjectRow) {
  const view = rt.readers.view(p);
  const running = !!(rt.runner.activeFor(p.project_id) || jobElsewhere(rt.registry, p.project_id));
  const status = indexVerdict(view, {
    running,
    lastFailed: lastJobFailed(rt.registry, p),
    stale: view.schemaStatus === "compatible" && rt.freshness.status(p, view) === "stale",
  }).health;
  return {
    project_id: p.project_id,
    repo_root: p.repo_root,
    index_status: status,
    ...indexFacts(view),
    watch: rt.live.status(p),
  };
}

/**
 * The projects health lists: every registered one, except that a server
 * started with `--allowed-root` lists only those inside an allowed root or
 * one of its `--workspace` folders (the home also holds projects registered
 * by the CLI or other servers, whose paths are not this server's to show).
 */
function listedProjects(rt: ServerRuntime): ProjectRow[] {
  const all = rt.registry.listProjects();
  const { allowedRoots, startupWorkspaces } = rt.router.options;
  if (!allowedRoots.length) return all;
  const roots = [...allowedRoots, ...startupWorkspaces];
  return all.filter((p) => isWithinAnyRoot(roots, p.repo_root));
}

/** The `/health` body. */
export function buildHealth(rt: ServerRuntime) {
  let projects: ReturnType<typeof projectHealth>[] = [];
  let store: { status: "ok" | "read_only" | "error"; path: string; detail?: string } = rt.registry.readOnly
    ? {
      status: "read_only",
      path: rt.config.home,
      detail: `${rt.registry.readOnly}: answers come from the existing indexes; indexing and syncing are off`,
    }
    : { status: "ok", path: rt.config.home };
  try {
    projects = listedProjects(rt).map((p) => projectHealth(rt, p));
  } catch (e) {
    store = { status: "error", path: rt.config.home, detail: (e as Error).message };
  }
  const grammars = grammarCheck();
  let status: "ready" | "warming" | "indexing" | "error" = "ready";
  if (store.status === "error" || grammars.missing.length || projects.some((p) => p.index_status === "error")) {
    status = "error";
  } else if (rt.warmset.warming || rt.readerPool.warming) status = "warming";
  else if (rt.runner.all().length) status = "indexing";
  return {
    status,
    projects,
    version: VERSION,
    uptime_seconds: Math.floor((Date.now() - rt.startedAt) / 1000),
    workspace_warmset: rt.warmset.status(),
    checks: {
      store,
      grammars: { status: grammars.missing.length ? "missing" : "available", ...grammars },
    },
    active_jobs: rt.runner.all().map((a) => ({
      project_id: a.project.project_id,
      repo_root: a.project.repo_root,
      job_id: a.job.job_id,
      progress_token: a.job.progress_token,
      stage: a.last?.stage ?? "discovery",
      estimated_completion_pct: a.last?.percentage ?? 0,
    })),
  };
}

/** One project's index_status body as this server sees it (its running job included). */
export function projectStatusOf(rt: ServerRuntime, row: ProjectRow): ReturnType<typeof projectStatus> {
  return projectStatus(rt.registry, rt.readers, row, rt.runner.activeFor(row.project_id), (j) => rt.runner.jobView(j));
}
