/** `get_file_outline`: the nested symbol tree of one indexed file. */
import { z } from "zod";
import { getFileOutline } from "../../query/file_outline.ts";
import { outlinePage } from "../../query/outline_pages.ts";
import { defineTool } from "./tool.ts";

/** The get_file_outline tool. */
export const getFileOutlineTool = defineTool({
  name: "get_file_outline",
  indexGate: true,
  description: (languages) =>
    "Outline one file: its symbols (classes, functions, methods, fields...) as a nested tree with kinds, " +
    "signatures and line ranges (each symbol's name with the path is its handle; verbose: true adds ids), read " +
    "from the index without opening the file. Use it to see a file's structure before reading it, or to find " +
    "the right line range to read. path is relative to the workspace root. A large file's outline comes in pages " +
    "of whole top-level symbols: pass next_cursor back as cursor for the next. " +
    `Indexed languages: ${languages.join(", ")}.`,
  input: z.strictObject({
    path: z.string().max(4096).describe("File path relative to the workspace root, e.g. src/auth/jwt.go."),
    depth: z.enum(["top", "all"]).optional().describe("`top`: top-level symbols only; `all` (default): nested."),
    cursor: z.string().max(64).optional().describe("A large file's next page: the answer's next_cursor."),
  }),
  handler: function getFileOutlineHandler(args, ctx) {
    return outlinePage(getFileOutline(ctx.db(), { path: args.path, depth: args.depth }), args.cursor);
  },
});
