/** `diff_context`: the symbols added, removed and changed between two refs, within a token budget. */
import { z } from "zod";
import { diffRefs } from "../ref_compare.ts";
import { defineTool, MAX_ARG_CHARS, refName } from "./tool.ts";
import { refSourceOf } from "./ref_source.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The diff_context tool. */
export const diffContextTool = defineTool({
  name: TOOL.diff_context,
  summary: "What changed between two refs (or the working tree): symbols added, removed, modified, moved, " +
    "renamed, with diffs, within max_tokens. Use to review a branch or uncommitted edits.",
  profile: "git",
  indexGate: true,
  description: (languages) =>
    "Review what changed between two states: a branch, tag or commit id always means that commit (the " +
    'checked-out branch too), "WORKTREE" (the default head) the files on disk with uncommitted edits. Gives the ' +
    "symbols added, removed, modified, moved and renamed, each with its signature before and after and a " +
    "unified diff of its body, most important first (signature changes and removals), within max_tokens; " +
    "files that changed without a symbol change are listed briefly. merge_base: true compares from the " +
    "commit where head branched off base_ref (what a pull request review shows). base and head name the two " +
    "states compared (ref and commit_id; the working tree's branch and HEAD commit). A ref not yet indexed is " +
    "indexed by the call (progress to your token) when it is near an indexed state; otherwise it answers " +
    `ref_not_indexed with the index_repo call to make. Indexed languages: ${languages.join(", ")}.`,
  cli: {
    command: "diff",
    summary: "symbols added, removed and changed between two refs (HEAD default: the working tree)",
    usage: "BASE [HEAD]",
    positionals: ["base_ref", "head_ref"],
    flags: { "path-prefix": "path_prefix", "max-tokens": "max_tokens", "merge-base": "merge_base" },
    examples: [
      "cruxe diff main   # what the working tree changes against main, symbol by symbol",
      "cruxe diff main --merge-base --json   # since this branch left main, as JSON",
    ],
  },
  input: z.strictObject({
    base_ref: refName.describe('The state to compare from: branch, tag or commit id, or "WORKTREE".'),
    head_ref: refName.optional().describe('The state to compare to. Default: "WORKTREE", the live working tree.'),
    path_prefix: z.string().max(MAX_ARG_CHARS).optional().describe("Only files under this path prefix."),
    max_tokens: z.number().optional().describe("Token budget for the whole answer (100-100000, default 8000)."),
    merge_base: z.boolean().optional().describe(
      "Compare from the merge base of base_ref and head_ref instead of base_ref itself. Default false.",
    ),
  }),
  handler: async function diffContextHandler(args, ctx) {
    return await diffRefs(refSourceOf(ctx), args);
  },
});
