/**
 * The health body shared by HTTP `GET /health` and the `health_check` tool:
 * server status (`error > warming > indexing > ready`; warming: the warmset's
 * prewarm or the first query worker still loading), per-project index
 * state and live-index mode (`watch`: events, polling or off, with the
 * reason and the fix), version, uptime, store and grammar checks, the warmset. Built from
 * cached read views and in-memory job state only, so it answers while an
 * index job writes.
 */
import { indexFacts, jobElsewhere } from "../query/index_status.ts";
import { VERSION } from "../core/version.ts";
import { LANGUAGE_IDENTITIES } from "../core/languages.ts";
import { hasGrammar } from "../state/grammar_assets.ts";
import type { ProjectRow } from "../state/registry.ts";
import type { ServerRuntime } from "./runtime.ts";

/** `projects[].index_status` of `/health`. Not-yet-indexed projects are `stale` (their index is behind the tree). */
export type HealthIndexStatus = "ready" | "indexing" | "stale" | "error";

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
  const active = rt.runner.activeFor(p.project_id);
  let status: HealthIndexStatus;
  if (active || jobElsewhere(rt.registry, p.project_id)) status = "indexing";
  else if (view.schemaStatus === "reindex_required" || view.schemaStatus === "corrupt_manifest") status = "error";
  else if (view.schemaStatus === "not_indexed") {
    status = rt.registry.getWorkspace(p.repo_root)?.index_status === "failed" ? "error" : "stale";
  } else status = rt.freshness.status(p, view) === "stale" ? "stale" : "ready";
  return {
    project_id: p.project_id,
    repo_root: p.repo_root,
    index_status: status,
    ...indexFacts(view),
    watch: rt.live.status(p),
  };
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
    projects = rt.registry.listProjects().map((p) => projectHealth(rt, p));
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
