/** `open_file`: a line window of one file of a registered repository, read from disk. */
import { z } from "zod";
import { checkRegisteredRoot, openFile } from "../../query/open_file.ts";
import { resolveScope } from "../../query/multi_repo.ts";
import { defineTool } from "./tool.ts";
import { repoArg, scopeOfCall } from "./scope_args.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The open_file tool. */
export const openFileTool = defineTool({
  name: TOOL.open_file,
  summary: "Read lines of a repository file from disk (at most 200 per call; page with startLine). Use " +
    "after search_code/locate_symbol to see code in full.",
  profile: "core",
  // It reads the file from disk, not the index: it works while a repository is still indexing.
  indexGate: false,
  cli: {
    command: "open",
    summary: "print lines of a file (at most 200 from --start; with --store, the team store's commit of it)",
    usage: "PATH",
    positionals: ["path"],
    flags: { start: "startLine", end: "endLine" },
    examples: ["cruxe open src/main.ts --start 10 --end 40   # lines 10 to 40"],
  },
  description: (languages) =>
    "Read lines of a file of a registered repository (or of `workspace`), straight from disk: use it after " +
    "search_code/locate_symbol to see a definition in full. `path` is relative to the repository root; absolute " +
    "paths, `..`, and symlinks leaving the repository are refused (forbidden); binary files are refused " +
    "(unsupported_media). At most 200 lines per call: `truncated` and `totalLines` tell you when to page on " +
    "with startLine = endLine + 1. Any text file can be read. " +
    `Indexed languages: ${languages.join(", ")}.`,
  input: z.strictObject({
    repo: repoArg.optional(),
    path: z.string().min(1).max(4096).describe("File path relative to the repository root, e.g. src/main.ts."),
    startLine: z.number().int().optional().describe("First line (1-based). Default 1."),
    endLine: z.number().int().optional().describe("Last line (inclusive). Default: startLine + 199."),
    maxBytes: z.number().int().optional().describe("Byte cap of content. Default 65536, max 262144."),
  }),
  handler: function openFileHandler(args, ctx) {
    const scope = args.repo !== undefined
      ? resolveScope({ repo: args.repo }, {
        projects: ctx.runtime.registry.listProjects(),
        allowGlobalScope: false,
        repoNames: ctx.runtime.config.repoNames,
      })!
      : scopeOfCall({}, ctx);
    const target = scope.targets[0];
    const r = openFile(checkRegisteredRoot(target.project.repo_root), {
      path: args.path,
      startLine: args.startLine,
      endLine: args.endLine,
      maxBytes: args.maxBytes,
    });
    return { repo: target.name, ...r };
  },
});
