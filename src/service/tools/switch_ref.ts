/** `switch_ref`: change the ref the calling session's queries read by default. */
import { z } from "zod";
import { CruxeError } from "../../core/errors.ts";
import { refFor } from "../../io/git.ts";
import { findRefStore, isLiveRef, resolveProjectRef, WORKTREE_REF } from "../../state/project_refs.ts";
import { refFields, sessionRef, setSessionRef } from "../ref_router.ts";
import { indexRefFix } from "../../state/project_refs.ts";
import { defineTool } from "./tool.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The switch_ref tool. */
export const switchRefTool = defineTool({
  name: TOOL.switch_ref,
  summary: "Make a ref the default of this session's later queries (stdio); WORKTREE returns to the files.",
  profile: "git",
  indexGate: false,
  description: (languages) =>
    "Make a ref (branch, tag, remote branch or commit) the default of every later query of this session on this " +
    'workspace; "WORKTREE" returns to the working tree (a branch name, the checked-out one included, means its ' +
    "commit). Says what changed and whether the " +
    "ref is indexed (if not, index it with the index_repo call given). Over stdio the session is the server " +
    "process; HTTP is stateless, so there pass ref on each call instead. " +
    `Indexed languages: ${languages.join(", ")}.`,
  input: z.strictObject({
    ref: z.string().min(1).max(256).describe('The new default ref; "WORKTREE" (or "live") for the working tree.'),
  }),
  handler: async function switchRefHandler(args, ctx) {
    const session = ctx.session;
    if (session === undefined) {
      throw new CruxeError(
        "invalid_input",
        "switch_ref needs a session, and HTTP calls are stateless here: pass ref on each query call instead.",
        { field: "ref", transport: "http" },
      );
    }
    const project = ctx.route.project;
    // Undefined: the session reads the working tree.
    const before = sessionRef(ctx.runtime, session, project.project_id);
    const previous = before ?? WORKTREE_REF;
    if (isLiveRef(args.ref)) {
      setSessionRef(ctx.runtime, session, project.project_id, undefined);
      return {
        previous_ref: previous,
        ref: WORKTREE_REF,
        branch: refFor(project.repo_root, project.vcs_mode),
        kind: "working_tree",
        indexed: true,
        changed: before !== undefined,
      };
    }
    const resolved = await resolveProjectRef(project, args.ref); // checks the name first
    setSessionRef(ctx.runtime, session, project.project_id, args.ref);
    // Indexed here or in another worktree of the repository: what queries on the ref will read.
    const indexed = findRefStore(ctx.runtime.registry, project, resolved.commit) !== undefined;
    return {
      previous_ref: previous,
      ...refFields(resolved),
      indexed,
      changed: before !== args.ref,
      ...(indexed ? {} : {
        fix: indexRefFix(project, args.ref),
        message: `${args.ref} is not indexed yet: queries answer ref_not_indexed until index_repo {"ref": ` +
          `"${args.ref}"} publishes it.`,
      }),
    };
  },
});
