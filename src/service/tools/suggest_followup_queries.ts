/** `suggest_followup_queries`: the next calls worth making after a search, built from the index. */
import { z } from "zod";
import { suggestFollowupQueries } from "../../query/followups.ts";
import { defineReaderTool, MAX_ARG_CHARS } from "./tool.ts";
import { TOOL } from "../../core/tool_names.ts";

const previousResult = z.strictObject({
  result_id: z.string().max(256).optional(),
  symbol_id: z.string().max(64).optional(),
  path: z.string().max(4096).optional(),
  name: z.string().max(512).optional(),
});

/** The suggest_followup_queries tool. */
export const suggestFollowupQueriesTool = defineReaderTool({
  name: TOOL.suggest_followup_queries,
  summary: "The next calls worth making for a query, with exact arguments and the reason.",
  profile: "ask",
  indexGate: true,
  description: (languages) =>
    "Suggest the next calls worth making for a query: each a tool with exact arguments and the reason found in " +
    "the index (a name defined in several places, stored uses to list, callers to walk, a type's members, the " +
    "file to outline). Pass previous_results (result_id / symbol_id / path / name of results you already have) " +
    `to start from them instead of a fresh search. Indexed languages: ${languages.join(", ")}.`,
  input: z.strictObject({
    query: z.string().max(MAX_ARG_CHARS).describe("The question or search query."),
    previous_results: z.array(previousResult).max(50).optional().describe("Results of an earlier call."),
    limit: z.number().int().optional().describe("Most suggestions (1..20). Default: 6."),
  }),
  handler: function suggestFollowupQueriesHandler(args, ctx) {
    return suggestFollowupQueries(ctx.db(), args);
  },
});
