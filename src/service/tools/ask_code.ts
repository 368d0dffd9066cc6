/** `ask_code`: evidence for a question over a scope, answered by a model only from that evidence. */
import { z } from "zod";
import { askCode } from "../../query/ask_code.ts";
import { defineTool, MAX_ARG_CHARS } from "./tool.ts";
import { repoArg, scopeArg, scopeDeps, scopedSearchOf, scopeOfCall } from "./scope_args.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The ask_code tool. */
export const askCodeTool = defineTool({
  name: TOOL.ask_code,
  summary: "Answer a question about the code from retrieved evidence, cited [E1]; without a model " +
    "configured, the evidence only.",
  profile: "ask",
  // Readiness is per repository of the scope (a repo still indexing makes the answer partial), not the routed one.
  indexGate: false,
  description: (languages) =>
    "Ask a question about the code of one or more repositories. Cruxe retrieves evidence (file windows re-read " +
    "from disk) and, when a language model endpoint is configured, has it answer only from that evidence, citing " +
    "it as [E1], [E2]; `citations` map back to `evidences`. Without a model, or with grounded: true, you get the " +
    "evidence and an answer saying no model was asked. Never an invented answer. " +
    `Indexed languages: ${languages.join(", ")}.`,
  input: z.strictObject({
    query: z.string().min(1).max(MAX_ARG_CHARS).describe("The question."),
    scope: scopeArg.optional(),
    repo: repoArg.optional(),
    topK: z.number().int().min(1).max(20).optional().describe("Evidence to retrieve. Default 5."),
    minScore: z.number().optional().describe("Drop evidence scoring under this (0..1). Default 0."),
    language: z.string().max(64).optional().describe("Filter by language id."),
    pathPrefix: z.string().max(4096).optional().describe("Only evidence under this relative path prefix."),
    grounded: z.boolean().optional().describe("Return the evidence only; never ask a model."),
  }),
  handler: async function askCodeHandler(args, ctx) {
    // Evidence is found as search_code finds it: with each repository's chunk vectors when the server embeds queries.
    const { search, meta } = scopedSearchOf(ctx);
    const r = await askCode(
      { ...scopeDeps(ctx), search, llm: ctx.runtime.config.llm },
      scopeOfCall(args, ctx),
      {
        query: args.query,
        topK: args.topK,
        minScore: args.minScore,
        language: args.language,
        pathPrefix: args.pathPrefix,
        grounded: args.grounded,
      },
    );
    return { ...r, meta: { ...r.meta, ...meta() } };
  },
});
