/** `locate_symbol`: where a symbol is defined, by name. */
import { z } from "zod";
import { locateSymbol } from "../../query/locate_symbol.ts";
import { defineReaderTool, MAX_ARG_CHARS, refArg } from "./tool.ts";
import { compactRetrieval } from "../compact.ts";
import { LIMITS } from "../../query/limits.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The locate_symbol tool. */
export const locateSymbolTool = defineReaderTool({
  name: TOOL.locate_symbol,
  summary: "Where a symbol is defined, by plain or qualified name: file:line, signature, handles. Use when " +
    "you know or can guess an identifier.",
  profile: "core",
  indexGate: true,
  compact: compactRetrieval,
  description: (languages) =>
    "Find where a symbol (function, method, class, struct, interface, type, constant...) is defined, by name. " +
    "Use it when you know or can guess an identifier and need its file:line, signature and stable handles " +
    "(symbol_id, symbol_stable_id) for follow-up calls; definitions are ranked first. Accepts qualified names " +
    `(pkg.Type.method, a::b::c). Indexed languages: ${languages.join(", ")}.`,
  cli: {
    command: "locate",
    summary: "find definitions by name (qualified names and typos work)",
    usage: "NAME",
    positionals: ["name"],
    flags: { kind: "kind", lang: "language", limit: "limit" },
    examples: ["cruxe locate ValidateToken   # where is ValidateToken defined?"],
    found: (b) => (b.results as unknown[]).length > 0,
  },
  input: z.strictObject({
    name: z.string().max(MAX_ARG_CHARS).describe("Symbol name to locate (plain or qualified)."),
    kind: z.string().max(64).optional().describe("Filter by kind: function, method, class, struct, interface, ..."),
    language: z.string().max(64).optional().describe("Filter by language id."),
    ref: refArg.optional(),
    limit: z.number().int().optional().describe(
      `Max results (1..${LIMITS.locate.max}). Default: ${LIMITS.locate.default}.`,
    ),
  }),
  handler: function locateSymbolHandler(args, ctx) {
    return locateSymbol(ctx.db(), { name: args.name, kind: args.kind, language: args.language, limit: args.limit });
  },
});
