/**
 * The multi-repo arguments (`scope`, `repo`) shared by
 * search_code, ask_code and open_file, and the glue from a tool call to
 * `src/query/multi_repo.ts`. No search logic lives here.
 */
import { z } from "zod";
import { type ResolvedScope, resolveScope, type ScopeDeps, type SearchFn } from "../../query/multi_repo.ts";
import { repoDirectory, repoNameOf } from "../../query/multi_repo.ts";
import { searchCode } from "../../query/search_code.ts";
import type { ToolContext } from "./tool.ts";

const repoName = z.string().min(1).max(256);

/** `scope`: one repo, a list (at most 10), or every registered repo (needs ALLOW_GLOBAL_SCOPE=true). */
export const scopeArg = z.union([
  z.strictObject({ type: z.literal("repo"), repo: repoName }),
  z.strictObject({ type: z.literal("repos"), repos: z.array(repoName).min(1).max(10) }),
  z.strictObject({ type: z.literal("all") }),
]).describe(
  'Repositories to cover: {type:"repo",repo}, {type:"repos",repos:[...]} (max 10) or {type:"all"} ' +
    "(only when the server allows global scope). A repo is a registered workspace's name. Wins over `repo`.",
);

/** `repo`: a registered repository's name (same as scope {type:"repo"}). */
export const repoArg = repoName.describe(
  'Registered repository name (see index_status `name`); same as scope {type:"repo",repo}. Ignored when scope is sent.',
);

/** The scope of a call: `scope`/`repo` when sent, else the routed workspace as a one-repo scope. */
export function scopeOfCall(args: { scope?: unknown; repo?: unknown }, ctx: ToolContext): ResolvedScope {
  const rt = ctx.runtime;
  const projects = rt.registry.listProjects();
  const resolved = resolveScope(args, {
    projects,
    allowGlobalScope: rt.config.allowGlobalScope,
    repoNames: rt.config.repoNames,
  });
  if (resolved) return resolved;
  const name = repoNameOf(repoDirectory(projects, rt.config.repoNames), ctx.route.project);
  return { scope: { type: "repo", repos: [name] }, targets: [{ name, project: ctx.route.project }] };
}

/** What the multi-repo functions need from the server. */
export function scopeDeps(ctx: ToolContext): ScopeDeps {
  const rt = ctx.runtime;
  return {
    view: (p) => rt.readers.view(p),
    isIndexing: (id) => rt.runner.activeFor(id) !== undefined,
    fault: (p, err) => rt.readers.fault(p, err),
  };
}

/** search_code as the per-repository search of a scoped call. */
export const scopedSearch: SearchFn = (db, i) =>
  searchCode(db, { query: i.query, limit: i.limit, language: i.language, pathPrefix: i.pathPrefix });
