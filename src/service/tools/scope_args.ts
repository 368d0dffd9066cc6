/**
 * The multi-repo arguments (`scope`, `repo`) shared by
 * search_code, ask_code and open_file, and the glue from a tool call to
 * `src/query/multi_repo.ts`. No search logic lives here.
 */
import { z } from "zod";
import { type ResolvedScope, resolveScope, type ScopeDeps, type SearchFn } from "../../query/multi_repo.ts";
import { repoDirectory, repoNameOf } from "../../query/multi_repo.ts";
import { searchCode, searchOneRepo } from "../../query/search_code.ts";
import { semanticHits } from "../../query/semantic_search.ts";
import { embedConfigured } from "../../core/semantic_layer.ts";
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

/**
 * True when this server has an embeddings endpoint. A reader worker answers
 * search_code only on servers without one, so there it is false without
 * asking the runtime (which a worker does not have).
 */
export function semanticLayerOn(ctx: ToolContext): boolean {
  // The context's flag, not the runtime: reading the runtime would send the call back from a reader worker.
  return ctx.routed && ctx.semantic;
}

/** What the semantic half of a scoped search read: the collections, and why a repository gave less. */
interface SemanticUse {
  collections: Set<string>;
  notes: string[];
  /** Some repository's chunks do not all have vectors yet. */
  partial: boolean;
}

/**
 * The per-repository search of a scoped call (search_code, ask_code) and,
 * once it ran, the `meta` fields saying which chunk vectors it read. With a
 * client `vector`, or on a server that embeds queries, each repository's own
 * vectors are fused in (a `vector` that does not fit a repository's
 * collection is `invalid_input`); else the search is lexical. `meta()`:
 * `collection` (the one collection every repository used; null when none
 * was, or when they differ, then listed in `collections`), `note`, and
 * `result_completeness: "partial"` while some chunks lack vectors.
 */
export function scopedSearchOf(ctx: ToolContext, vector?: unknown): {
  /** Undefined: the lexical search of the query layer (`searchOneRepo`). */
  search: SearchFn | undefined;
  meta: () => Record<string, unknown>;
} {
  if (vector === undefined && !semanticLayerOn(ctx)) {
    // Lexical: the query's own per-repository search.
    return { search: undefined, meta: () => ({ collection: null }) };
  }
  const use: SemanticUse = { collections: new Set(), notes: [], partial: false };
  const rt = ctx.runtime;
  const search: SearchFn = async (db, i) => {
    if (!i.project) return searchOneRepo(db, i);
    const semantic = await semanticHits(db, rt.vectorStorePath(i.project), rt.config.embed, { query: i.query, vector });
    if (embedConfigured(rt.config.embed)) rt.embedChunks(i.project, false);
    if (semantic.collection) use.collections.add(semantic.collection);
    if (semantic.note) use.notes.push(`${i.project.name}: ${semantic.note}`);
    if (semantic.completeness === "partial") use.partial = true;
    const input = { query: i.query, limit: i.limit, language: i.language, pathPrefix: i.pathPrefix, debug: i.debug };
    return searchCode(db, input, undefined, semantic.hits);
  };
  const meta = () => {
    const names = [...use.collections].sort();
    return {
      collection: names.length === 1 ? names[0] : null,
      ...(names.length > 1 ? { collections: names } : {}),
      ...(use.notes.length ? { note: use.notes.join("; ") } : {}),
      ...(use.partial ? { result_completeness: "partial" } : {}),
    };
  };
  return { search, meta };
}
