/** `get_file_outline`: the nested symbol tree of one indexed file. */
import { z } from "zod";
import { getFileOutline } from "../../query/file_outline.ts";
import { outlinePage } from "../../query/outline_pages.ts";
import { defineReaderTool } from "./tool.ts";
import { compactOutline } from "../compact.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The get_file_outline tool. */
export const getFileOutlineTool = defineReaderTool({
  name: TOOL.get_file_outline,
  summary: "One file's symbols as a tree with kinds, signatures and line ranges, without reading it. Use " +
    "before reading a file or to find the lines to open.",
  profile: "core",
  indexGate: true,
  compact: compactOutline,
  description: (languages) =>
    "Outline one file: its symbols (classes, functions, methods, fields...) as a nested tree with kinds, " +
    "signatures and line ranges (each symbol's name with the path is its handle; verbose: true adds ids), read " +
    "from the index without opening the file. Use it to see a file's structure before reading it, or to find " +
    "the right line range to read. path is relative to the workspace root. A large file's outline comes in pages " +
    "with a count of its top-level symbols by kind: next_call is the call for the next page. " +
    `Indexed languages: ${languages.join(", ")}.`,
  cli: {
    command: "outline",
    summary: "symbol tree of one file",
    usage: "PATH",
    positionals: ["path"],
    flags: { depth: "depth", cursor: "cursor" },
    examples: ["cruxe outline src/mcp/http.ts --depth top   # what does this file define?"],
  },
  input: z.strictObject({
    path: z.string().max(4096).describe("File path relative to the workspace root, e.g. src/auth/jwt.go."),
    depth: z.enum(["top", "all"]).optional().describe("`top`: top-level symbols only; `all` (default): nested."),
    cursor: z.string().max(64).optional().describe(
      "A large file's next page: the cursor of the previous answer's next_call (its next_cursor).",
    ),
  }),
  handler: function getFileOutlineHandler(args, ctx) {
    const page = outlinePage(getFileOutline(ctx.db(), { path: args.path, depth: args.depth }), args.cursor);
    if (typeof page.next_cursor !== "string") return page;
    // The exact call for the next page (with this call's workspace and ref).
    const next = { path: args.path, ...(args.depth ? { depth: args.depth } : {}), cursor: page.next_cursor };
    return { ...page, next_call: { tool: TOOL.get_file_outline, arguments: next } };
  },
});
