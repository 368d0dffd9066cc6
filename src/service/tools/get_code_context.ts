/** `get_code_context`: the code relevant to a question, fitted to a token budget. */
import { z } from "zod";
import { getCodeContext } from "../../query/code_context.ts";
import { defineReaderTool, MAX_ARG_CHARS } from "./tool.ts";
import { compactContext } from "../compact.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The get_code_context tool. */
export const getCodeContextTool = defineReaderTool({
  name: TOOL.get_code_context,
  summary: "The code relevant to a question (definitions, bodies, related symbols) as blocks within " +
    "max_tokens. Use to load context before editing or explaining code.",
  profile: "core",
  indexGate: true,
  compact: compactContext,
  description: (languages) =>
    "Assemble the code relevant to a question or task (definitions, their bodies, related symbols) as ready-to-" +
    "read blocks that fit within max_tokens, instead of reading whole files. strategy `depth` (default) gives " +
    "fewer, fuller blocks; `breadth` more, shorter ones. Use it to load context before editing or explaining " +
    `code. Indexed languages: ${languages.join(", ")}.`,
  cli: {
    command: "context",
    summary: "the code that answers a question, within a token budget",
    usage: "QUERY",
    positionals: ["query"],
    flags: { "max-tokens": "max_tokens", strategy: "strategy" },
    examples: ['cruxe context "how are tokens validated" --max-tokens 800'],
    found: (b) => (b.items as unknown[]).length > 0,
  },
  input: z.strictObject({
    query: z.string().max(MAX_ARG_CHARS).describe("The question, task or symbol the context is for."),
    max_tokens: z.number().optional().describe("Token budget for the returned code. Default set by the server."),
    strategy: z.string().max(64).optional().describe("`depth` (default) or `breadth`."),
  }),
  handler: function getCodeContextHandler(args, ctx) {
    return getCodeContext(ctx.db(), {
      query: args.query,
      max_tokens: args.max_tokens,
      strategy: args.strategy as "breadth" | "depth" | undefined,
    });
  },
});
