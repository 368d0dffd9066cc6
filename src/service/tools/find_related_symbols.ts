/** `find_related_symbols`: callers, callees, parents, children, implementations and neighbours of a symbol. */
import { z } from "zod";
import { findRelatedSymbols } from "../../query/related_symbols.ts";
import { defineReaderTool, MAX_ARG_CHARS } from "./tool.ts";
import { compactRelated } from "../compact.ts";
import { LIMITS } from "../../query/limits.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The find_related_symbols tool. */
export const findRelatedSymbolsTool = defineReaderTool({
  name: TOOL.find_related_symbols,
  summary: "Symbols around one symbol: callers, callees, parent, children, subtypes, imports, neighbours. " +
    "Use for impact analysis before a change.",
  profile: "refs",
  indexGate: true,
  compact: compactRelated,
  description: (languages) =>
    "List symbols related to one symbol: who calls it and what it calls, its parent and children, what it " +
    "extends or implements and what extends or implements it, what its file imports, and its neighbours in the " +
    "same file or module. Use it for impact analysis before a change. scope bounds where related symbols may " +
    `live (file, module, package). Indexed languages: ${languages.join(", ")}.`,
  cli: {
    command: "related",
    summary: "symbols related to one: calls, callers, imports, siblings",
    usage: "NAME",
    positionals: ["symbol_name"],
    flags: { path: "path", scope: "scope", limit: "limit" },
    examples: ["cruxe related ValidateToken --limit 5   # what it calls and what calls it"],
    found: (b) => (b.related as unknown[]).length > 0,
  },
  input: z.strictObject({
    symbol_name: z.string().max(MAX_ARG_CHARS).describe("Symbol name (plain or qualified)."),
    path: z.string().max(4096).optional().describe("File that defines the symbol (relative to the workspace)."),
    scope: z.enum(["file", "module", "package"]).optional().describe("Default: package (the whole workspace)."),
    limit: z.number().int().optional().describe(
      `Max related symbols (1..${LIMITS.related.max}). Default: ${LIMITS.related.default}.`,
    ),
  }),
  handler: function findRelatedSymbolsHandler(args, ctx) {
    return findRelatedSymbols(ctx.db(), {
      symbol_name: args.symbol_name,
      path: args.path,
      scope: args.scope,
      limit: args.limit,
    });
  },
});
