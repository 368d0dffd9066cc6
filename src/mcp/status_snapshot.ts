/**
 * What the status page shows, gathered on the server so its first paint
 * already has it: the health summary, each listed project's index_status body
 * (the same `projectStatus` the tool answers with), its freshness as answers'
 * metadata states it and its live-index (watch) state, per-tool call
 * statistics, the last failed calls and the last logged warnings. Read from
 * cached read views and in-memory state only. Requires nothing beyond what the
 * server already holds.
 */
import { recentWarnings } from "../core/log.ts";
import type { Dispatcher } from "../service/dispatch.ts";
import { buildHealth, projectStatusOf } from "../service/health.ts";
import type { ServerRuntime } from "../service/runtime.ts";
import type { FailedCall, ToolStatLine } from "../service/tool_stats.ts";

/** One project's row set on the page. */
export interface ProjectSnapshot {
  name: string;
  repo_root: string;
  index_status: string;
  file_count: number | null;
  symbol_count: number | null;
  last_indexed_at: string | null;
  /** `fresh`, `stale` or `syncing`, as the metadata of an answer about it says now. */
  freshness: string;
  watch: ReturnType<ServerRuntime["live"]["status"]> | null;
  active_job: ReturnType<typeof projectStatusOf>["active_job"];
  recent_jobs: ReturnType<typeof projectStatusOf>["recent_jobs"];
  /** Why the project's status could not be read (its other fields are then the health view's). */
  error?: string;
}

/** Everything the page renders, as of `now`. */
export interface StatusSnapshot {
  now: number;
  version: string;
  status: string;
  uptime_seconds: number;
  active_jobs: number;
  projects: ProjectSnapshot[];
  tools: ToolStatLine[];
  failed_calls: FailedCall[];
  warnings: { at: string; message: string }[];
}

/** Gathers the page's data for the projects `/health` lists. */
export function statusSnapshot(rt: ServerRuntime, dispatcher: Dispatcher): StatusSnapshot {
  const health = buildHealth(rt);
  const rows = new Map(rt.registry.listProjects().map((p) => [p.project_id, p]));
  const projects = health.projects.map((h): ProjectSnapshot => {
    const row = rows.get(h.project_id);
    const base = {
      name: row?.name ?? h.repo_root,
      repo_root: h.repo_root,
      index_status: h.index_status,
      file_count: h.file_count ?? null,
      symbol_count: h.symbol_count ?? null,
      last_indexed_at: h.last_indexed_at ?? null,
      freshness: "unknown",
      watch: h.watch ?? null,
      active_job: null,
      recent_jobs: [],
    };
    if (!row) return base;
    try {
      const s = projectStatusOf(rt, row);
      return {
        ...base,
        active_job: s.active_job,
        recent_jobs: s.recent_jobs,
        freshness: dispatcher.metadata(row, false).freshness_status,
      };
    } catch (e) {
      return { ...base, error: (e as Error).message };
    }
  });
  return {
    now: Date.now(),
    version: health.version,
    status: health.status,
    uptime_seconds: health.uptime_seconds,
    active_jobs: health.active_jobs.length,
    projects,
    tools: dispatcher.stats.lines(),
    failed_calls: dispatcher.stats.failures(),
    warnings: recentWarnings(),
  };
}
