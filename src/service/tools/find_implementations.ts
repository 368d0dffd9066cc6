/** `find_implementations`: the types that implement or extend a type, each with how surely. */
import { z } from "zod";
import { findImplementations } from "../../query/implementations.ts";
import { defineReaderTool, MAX_ARG_CHARS } from "./tool.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The find_implementations tool. */
export const findImplementationsTool = defineReaderTool({
  name: TOOL.find_implementations,
  summary: "Types that implement an interface or extend a type (Go method sets, implements/extends, impl " +
    "Trait for T, subclasses). Use before changing an interface.",
  indexGate: true,
  description: (languages) =>
    "List the types that implement or extend a type: Go types whose method set covers an interface; classes " +
    "whose extends/implements/base list names it (directly or through other classes of the repository). Each " +
    "with resolution (exact: scope and type rules pin it; import: the file imports the definition). Matches " +
    "only the names support are candidates: counted in unresolved_candidates, listed with include_candidates. " +
    `Pass path or symbol_id when the name is defined in several places. Indexed languages: ${languages.join(", ")}.`,
  cli: {
    command: "impls",
    summary: "types that implement or extend a type",
    usage: "NAME",
    positionals: ["symbol_name"],
    flags: { path: "path", kind: "kind", limit: "limit", candidates: "include_candidates" },
    examples: ["cruxe impls Handler --path net/http/server.go   # Go types whose methods cover the interface"],
    found: (b) => (b.implementations as unknown[]).length > 0,
  },
  input: z.strictObject({
    symbol_name: z.string().max(MAX_ARG_CHARS).optional().describe("Type name (plain or qualified)."),
    symbol_id: z.string().max(64).optional().describe("A symbol_id handle from an earlier answer."),
    path: z.string().max(4096).optional().describe("File that defines the type (relative to the workspace)."),
    kind: z.string().max(64).optional().describe("Kind of the definition meant (interface, class, ...)."),
    include_candidates: z.boolean().optional().describe(
      "Also list types only the names match (resolution candidate). Default: false.",
    ),
    limit: z.number().int().optional().describe("Max implementations (1..500). Default: 50."),
  }),
  handler: function findImplementationsHandler(args, ctx) {
    return findImplementations(ctx.db(), args);
  },
});
