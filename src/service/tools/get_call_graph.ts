/** `get_call_graph`: callers and callees of a symbol, up to three levels, with cycles marked. */
import { z } from "zod";
import { getCallGraph } from "../../query/call_graph.ts";
import { defineReaderTool, MAX_ARG_CHARS } from "./tool.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The get_call_graph tool. */
export const getCallGraphTool = defineReaderTool({
  name: TOOL.get_call_graph,
  summary: "Callers and/or callees of a symbol, transitively (depth 1..3). Use to follow a bug upstream or " +
    "see the blast radius of a change.",
  profile: "refs",
  indexGate: true,
  description: (languages) =>
    "Call graph around one symbol: direction callers (who calls it, transitively), callees (what it calls) or " +
    "both, depth 1..3, at most max_nodes symbols. Answers nodes (symbols with handles) and edges (caller → " +
    "callee with call lines and resolution); edges on a cycle are marked. Edges only the name matches are " +
    "counted in unresolved_candidates, listed with include_candidates. Use it to follow a bug upstream or " +
    "to see the blast radius of a change. Pass path or symbol_id when the name is defined in several places. " +
    `Indexed languages: ${languages.join(", ")}.`,
  cli: {
    command: "callgraph",
    summary: "callers and callees of a symbol, up to depth 3",
    usage: "NAME",
    positionals: ["symbol_name"],
    flags: {
      path: "path",
      kind: "kind",
      direction: "direction",
      depth: "depth",
      "max-nodes": "max_nodes",
      candidates: "include_candidates",
    },
    examples: ["cruxe callgraph ValidateToken --direction callers --depth 2"],
    found: (b) => (b.edges as unknown[]).length > 0,
  },
  input: z.strictObject({
    symbol_name: z.string().max(MAX_ARG_CHARS).optional().describe("Symbol name (plain or qualified)."),
    symbol_id: z.string().max(64).optional().describe("A symbol_id handle from an earlier answer."),
    path: z.string().max(4096).optional().describe("File that defines the symbol (relative to the workspace)."),
    kind: z.string().max(64).optional().describe("Kind of the definition meant (function, method, ...)."),
    direction: z.enum(["callers", "callees", "both"]).optional().describe("Default: both."),
    depth: z.number().int().optional().describe("Levels to follow, 1..3. Default: 1."),
    max_nodes: z.number().int().optional().describe("Most symbols in the graph (1..500). Default: 20."),
    include_candidates: z.boolean().optional().describe(
      "Also follow calls only the name matches (resolution candidate). Default: false.",
    ),
  }),
  handler: function getCallGraphHandler(args, ctx) {
    return getCallGraph(ctx.db(), args);
  },
});
