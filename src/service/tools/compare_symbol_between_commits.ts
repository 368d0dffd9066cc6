/** `compare_symbol_between_commits`: one symbol at two refs, with its body diff and what happened to it. */
import { z } from "zod";
import { compareRefs } from "../ref_compare.ts";
import { defineTool, MAX_ARG_CHARS, refName } from "./tool.ts";
import { refSourceOf } from "./ref_source.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The compare_symbol_between_commits tool. */
export const compareSymbolBetweenCommitsTool = defineTool({
  name: TOOL.compare_symbol_between_commits,
  summary: "One symbol at two refs: signature, location, body diff and status.",
  profile: "git",
  indexGate: true,
  description: (languages) =>
    "Compare one symbol at two states (a branch, tag or commit id means that commit, the checked-out branch " +
    'too; "WORKTREE", the default head, is the working tree with its uncommitted edits): its ' +
    "signature and location at each, a unified diff of its body, and status unchanged, modified, moved, " +
    "renamed, added or removed (moves and renames are recognised by stable id and by body). Give symbol_name " +
    "(plain or qualified; add path when it is ambiguous) or a symbol_id from either ref. A ref not yet indexed " +
    "is indexed by the call when it is near an indexed state. Indexed languages: " +
    `${languages.join(", ")}.`,
  cli: {
    command: "compare",
    summary: "one symbol at two refs: status, signatures and body diff (HEAD default: the working tree)",
    usage: "SYMBOL BASE [HEAD]",
    positionals: ["symbol_name", "base_ref", "head_ref"],
    flags: { path: "path" },
    examples: ["cruxe compare ValidateToken main   # how ValidateToken differs from main"],
  },
  input: z.strictObject({
    symbol_name: z.string().max(MAX_ARG_CHARS).optional().describe("Symbol name, plain or qualified."),
    symbol_id: z.string().max(128).optional().describe("A symbol_id handle from either ref (instead of a name)."),
    path: z.string().max(MAX_ARG_CHARS).optional().describe("File that holds the symbol, when the name is ambiguous."),
    base_ref: refName.describe('The state to compare from: branch, tag or commit id, or "WORKTREE".'),
    head_ref: refName.optional().describe('The state to compare to. Default: "WORKTREE", the live working tree.'),
  }),
  handler: async function compareSymbolBetweenCommitsHandler(args, ctx) {
    return await compareRefs(refSourceOf(ctx), args);
  },
});
