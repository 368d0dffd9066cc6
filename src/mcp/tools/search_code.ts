/** `search_code`: search symbols, code snippets and files with query-intent classification. */
import { z } from "zod";
import { searchCode, searchCodeInScope } from "../../query/search_code.ts";
import { defineTool, MAX_ARG_CHARS } from "./tool.ts";
import { repoArg, scopeArg, scopeDeps, scopedSearch, scopeOfCall } from "./scope_args.ts";

/** The search_code tool. */
export const searchCodeTool = defineTool({
  name: "search_code",
  indexGate: true,
  description: (languages) =>
    "Search the workspace's code by anything: an identifier (CamelCase, snake_case), a path or file name, an " +
    "error message or quoted string, or a natural-language description. The query's intent is classified and " +
    "symbols, snippets and files are ranked together; each result has stable handles (symbol_id, " +
    "symbol_stable_id, result_id) and suggested_next_actions. Use it when you do not know where something is; " +
    `use locate_symbol when you know the name. Indexed languages: ${languages.join(", ")}.`,
  input: z.strictObject({
    query: z.string().max(MAX_ARG_CHARS).describe("Symbol name, path, error string or natural language."),
    language: z.string().max(64).optional().describe("Filter by language id."),
    limit: z.number().int().optional().describe("Max results. Default: 10."),
    ref: z.string().max(512).optional().describe("Branch/ref scope. Default: the indexed ref."),
    path_prefix: z.string().max(4096).optional().describe("Only results under this directory (relative)."),
    ranking_explain_level: z.enum(["off", "basic", "full"]).optional().describe(
      "Include why each result ranked where it did. Default: off.",
    ),
    // Multi-repo: with `scope` or `repo`, results from several repositories merged.
    scope: scopeArg.optional(),
    repo: repoArg.optional(),
    topK: z.number().int().min(1).max(100).optional().describe("Alias of limit (multi-repo contract)."),
    pathPrefix: z.string().max(4096).optional().describe("Alias of path_prefix (multi-repo contract)."),
  }),
  handler: function searchCodeHandler(args, ctx) {
    if (args.scope !== undefined || args.repo !== undefined) {
      return searchCodeInScope(scopeDeps(ctx), scopeOfCall(args, ctx), args, scopedSearch);
    }
    return searchCode(ctx.db(), args);
  },
});
