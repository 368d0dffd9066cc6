/** `find_references`: every place a symbol is used, each with how surely it means that symbol. */
import { z } from "zod";
import { findReferences } from "../../query/find_references.ts";
import { REFERENCE_KINDS } from "../../core/types.ts";
import { defineReaderTool, MAX_ARG_CHARS } from "./tool.ts";
import { LIMITS } from "../../query/limits.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The find_references tool. */
export const findReferencesTool = defineReaderTool({
  name: TOOL.find_references,
  summary: "Every use of a symbol (calls, type uses, imports, accesses) with path, line and resolution; " +
    "paged. Use before changing a signature or to find a function's tests.",
  profile: "refs",
  indexGate: true,
  description: (languages) =>
    "List every place a symbol is used: calls, type uses, imports, base types and attribute/field accesses, " +
    "each with path, line, column, the line's text, the enclosing symbol and resolution (exact: scope and " +
    "type rules pin it; import: the file imports the definition). A TypeScript method's first page starts with the " +
    "declarations it overrides or implements and that override it (reference_kind override): a use through any " +
    "of them is a use of it. Uses only the name matches are candidates: " +
    "counted in unresolved_candidates, listed with include_candidates. Use it before changing a " +
    "signature or to find a function's tests. A name with several definitions answers ambiguous_symbol with " +
    "candidates: pass path or symbol_id. Paged: pass next_cursor back as cursor. Indexed languages: " +
    `${languages.join(", ")}.`,
  cli: {
    command: "refs",
    summary: "where a symbol is used: calls, type uses, imports, inheritance",
    usage: "NAME",
    positionals: ["symbol_name"],
    flags: {
      path: "path",
      kind: "kind",
      "reference-kind": "reference_kind",
      limit: "limit",
      cursor: "cursor",
      candidates: "include_candidates",
    },
    examples: ["cruxe refs ValidateToken   # every use, with its enclosing symbol and how sure the match is"],
    found: (b) => (b.returned as number) > 0,
  },
  input: z.strictObject({
    symbol_name: z.string().max(MAX_ARG_CHARS).optional().describe("Symbol name (plain or qualified)."),
    symbol_id: z.string().max(64).optional().describe("A symbol_id handle from an earlier answer."),
    path: z.string().max(4096).optional().describe("File that defines the symbol (relative to the workspace)."),
    kind: z.string().max(64).optional().describe("Kind of the definition meant (function, class, ...)."),
    reference_kind: z.enum(REFERENCE_KINDS).optional().describe("Only uses of this kind. Default: all."),
    include_definition: z.boolean().optional().describe("Put the definition first. Default: false."),
    include_candidates: z.boolean().optional().describe(
      "Also list uses only the name matches (resolution candidate). Default: false.",
    ),
    limit: z.number().int().optional().describe(
      `Max references per page (1..${LIMITS.refs.max}). Default: ${LIMITS.refs.default}.`,
    ),
    cursor: z.string().max(1024).optional().describe("next_cursor of the previous page of the same query."),
  }),
  handler: function findReferencesHandler(args, ctx) {
    return findReferences(ctx.db(), args);
  },
});
