/** `get_symbol_hierarchy`: what contains a symbol and what it extends, or what it contains and who extends it. */
import { z } from "zod";
import { getSymbolHierarchy } from "../../query/symbol_hierarchy.ts";
import { defineReaderTool, MAX_ARG_CHARS } from "./tool.ts";
import { compactHierarchy } from "../compact.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The get_symbol_hierarchy tool. */
export const getSymbolHierarchyTool = defineReaderTool({
  name: TOOL.get_symbol_hierarchy,
  summary: "A symbol's containing scopes and base types (ancestors) or members and subtypes (descendants). " +
    "Use to understand a class or interface.",
  profile: "refs",
  indexGate: true,
  compact: compactHierarchy,
  description: (languages) =>
    "Walk a symbol's hierarchy: direction `ancestors` (default) gives the containing scopes (class, module) and " +
    "the types it extends or implements; `descendants` gives its members and the types that extend or implement " +
    "it. Use it to understand a class or interface before changing it. Pass path to disambiguate a name defined " +
    `in several files. Indexed languages: ${languages.join(", ")}.`,
  cli: {
    command: "hierarchy",
    summary: "what contains a symbol, and its type hierarchy",
    usage: "NAME",
    positionals: ["symbol_name"],
    flags: { path: "path", direction: "direction" },
    examples: ["cruxe hierarchy CheckRateLimit   # its class, module and supertypes"],
  },
  input: z.strictObject({
    symbol_name: z.string().max(MAX_ARG_CHARS).describe("Symbol name (plain or qualified)."),
    path: z.string().max(4096).optional().describe("File that defines the symbol (relative to the workspace)."),
    direction: z.enum(["ancestors", "descendants"]).optional().describe("Default: ancestors."),
  }),
  handler: function getSymbolHierarchyHandler(args, ctx) {
    return getSymbolHierarchy(ctx.db(), {
      symbol_name: args.symbol_name,
      path: args.path,
      direction: args.direction,
    });
  },
});
