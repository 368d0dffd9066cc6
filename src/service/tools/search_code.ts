/** `search_code`: search symbols, code snippets and files with query-intent classification. */
import { z } from "zod";
import { CruxeError } from "../../core/errors.ts";
import {
  type ScopedSearchCodeResult,
  searchCode,
  type SearchCodeInput,
  searchCodeInScope,
} from "../../query/search_code.ts";
import { defineReaderTool, MAX_ARG_CHARS, refArg, type ToolContext } from "./tool.ts";
import { compactRetrieval } from "../compact.ts";
import { repoArg, scopeArg, scopeDeps, scopedSearchOf, scopeOfCall, semanticLayerOn } from "./scope_args.ts";
import { semanticHits } from "../../query/semantic_search.ts";
import { embedConfigured, MAX_EMBED_DIMS } from "../../core/semantic_layer.ts";
import { LIMITS } from "../../query/limits.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The search_code tool. */
export const searchCodeTool = defineReaderTool({
  name: TOOL.search_code,
  summary: "Search code by anything: identifier, path, error string or natural language; symbols, snippets " +
    "and files ranked together. Use when you do not know where something is (locate_symbol when you " +
    "know the name).",
  profile: "core",
  indexGate: true,
  compact: compactRetrieval,
  description: (languages) =>
    "Search the workspace's code by anything: an identifier (CamelCase, snake_case), a path or file name, an " +
    "error message or quoted string, or a natural-language description. The query's intent is classified and " +
    "symbols, snippets and files are ranked together; each result has stable handles (a symbol: symbol_id and " +
    "symbol_stable_id; a snippet or file: result_id), match_lines (the lines that matched, with their line " +
    "numbers; the snippet is only lines inside line_start..line_end) and suggested_next_actions. Use it when you " +
    "do not know where something is; " +
    `use locate_symbol when you know the name. Indexed languages: ${languages.join(", ")}.`,
  cli: {
    command: "search",
    summary: "search code: symbols, snippets and files, as path:line: snippet lines",
    usage: "QUERY",
    positionals: ["query"],
    flags: { lang: "language", limit: "limit", "path-prefix": "path_prefix" },
    examples: ['cruxe search "rate limit" --lang go   # where is rate limiting done?'],
    found: (b) => (b.results as unknown[]).length > 0,
  },
  input: z.strictObject({
    query: z.string().max(MAX_ARG_CHARS).describe("Symbol name, path, error string or natural language."),
    language: z.string().max(64).optional().describe("Filter by language id."),
    limit: z.number().int().optional().describe(
      `Max results (1..${LIMITS.search.max}). Default: ${LIMITS.search.default}.`,
    ),
    ref: refArg.optional(),
    path_prefix: z.string().max(4096).optional().describe("Only results under this directory (relative)."),
    ranking_explain_level: z.enum(["off", "basic", "full"]).optional().describe(
      "Include why each result ranked where it did. Default: off.",
    ),
    debug: z.boolean().optional().describe(
      "Also return each result's join_status (hit/miss: joined its symbol's row or not) and " +
        "debug.join_status {hits, misses}.",
    ),
    // Multi-repo: with `scope` or `repo`, results from several repositories merged.
    scope: scopeArg.optional(),
    repo: repoArg.optional(),
    topK: z.number().int().min(1).max(100).optional().describe("Alias of limit (multi-repo contract)."),
    pathPrefix: z.string().max(4096).optional().describe("Alias of path_prefix (multi-repo contract)."),
    vector: z.array(z.number()).min(1).max(MAX_EMBED_DIMS).optional().describe(
      "The query's embedding (semantic layer), with the collection's dimensions (meta.collection). " +
        "Omitted: the server embeds the query when it has an embeddings endpoint.",
    ),
  }),
  handler: function searchCodeHandler(args, ctx) {
    const { vector: _vector, ...input } = args;
    return searchCode(ctx.db(), input);
  },
  // A multi-repository search, a client's vector and the semantic layer need the server: the main thread.
  onMain: {
    when: (args, semantic) =>
      args.scope !== undefined || args.repo !== undefined || args.vector !== undefined || semantic,
    handler: searchCodeOnMain,
  },
});

/** search_code with `scope`/`repo`, a client vector or the server's semantic layer. */
async function searchCodeOnMain(
  args: SearchCodeInput & { scope?: unknown; repo?: unknown; vector?: number[] },
  ctx: ToolContext,
): Promise<object> {
  if (args.scope !== undefined || args.repo !== undefined) {
    if (ctx.view().gitRef) {
      throw new CruxeError(
        "invalid_input",
        "ref cannot be combined with scope or repo: a multi-repository search reads each repository's working " +
          "tree. Search one repository's ref with ref alone.",
        { field: "ref" },
      );
    }
    return await scopedSearchCode(args, ctx);
  }
  const { vector, ...input } = args;
  // Without the semantic layer (no endpoint, no client vector) nothing but the index is needed.
  if (vector === undefined && !semanticLayerOn(ctx)) return searchCode(ctx.db(), input);
  // Chunk vectors follow the working tree's index: a git ref's store is searched lexically, and a client's
  // vector, which could not be used there, is refused rather than ignored.
  if (ctx.view().gitRef) {
    if (vector !== undefined) {
      throw new CruxeError(
        "invalid_input",
        "vector cannot be combined with ref: chunk vectors exist for the working tree only, and a ref is " +
          "searched lexically. Send the vector without ref, or the query alone with ref.",
        { field: "vector" },
      );
    }
    return searchCode(ctx.db(), input);
  }
  const db = ctx.db();
  const rt = ctx.runtime;
  const semantic = await semanticHits(db, rt.vectorStorePath(ctx.route.project), rt.config.embed, {
    query: args.query,
    vector,
  });
  if (embedConfigured(rt.config.embed)) rt.embedChunks(ctx.route.project, false);
  const body = searchCode(db, input, undefined, semantic.hits);
  return {
    ...body,
    meta: {
      ...body.meta,
      collection: semantic.collection,
      semantic_results: semantic.hits.length,
      ...(semantic.completeness === "partial" ? { result_completeness: "partial" as const } : {}),
      ...(semantic.note ? { note: semantic.note } : {}),
    },
  };
}

/** search_code over `scope`/`repo` (see `scopedSearchOf` for the vectors it reads and what `meta` says of them). */
async function scopedSearchCode(
  args: SearchCodeInput & { scope?: unknown; repo?: unknown; vector?: number[] },
  ctx: ToolContext,
): Promise<ScopedSearchCodeResult & { meta: Record<string, unknown> }> {
  const { search, meta } = scopedSearchOf(ctx, args.vector);
  const body = await searchCodeInScope(scopeDeps(ctx), scopeOfCall(args, ctx), args, search);
  return { ...body, meta: { ...body.meta, ...meta() } };
}
