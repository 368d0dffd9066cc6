/** `explain_ranking`: each signal's contribution to one search_code result's score and rank. */
import { z } from "zod";
import { explainRanking } from "../../query/explain_ranking.ts";
import { defineReaderTool, MAX_ARG_CHARS } from "./tool.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The explain_ranking tool. */
export const explainRankingTool = defineReaderTool({
  name: TOOL.explain_ranking,
  summary: "Why one search_code result ranked where it did (sources, signals, score).",
  profile: "ask",
  indexGate: true,
  description: (languages) =>
    "Explain why one search_code result ranked where it did: the candidate sources that found it and their " +
    "votes, each signal that multiplied its score (exact name, path affinity, test penalty, ...), additions " +
    "from its file, its final score and the result just above it. Pass the same query (and language / " +
    `path_prefix) as the search and the result's result_id (a symbol result's symbol_id). Indexed languages: ${
      languages.join(", ")
    }.`,
  input: z.strictObject({
    query: z.string().max(MAX_ARG_CHARS).describe("The search_code query."),
    result_id: z.string().max(256).describe("result_id (or symbol_id) of one of its results."),
    language: z.string().max(64).optional().describe("The language filter the search used."),
    path_prefix: z.string().max(4096).optional().describe("The path_prefix the search used."),
  }),
  handler: function explainRankingHandler(args, ctx) {
    return explainRanking(ctx.db(), args);
  },
});
