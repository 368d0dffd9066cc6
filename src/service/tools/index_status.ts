/** `index_status`: the routed project's index state, active job progress and job history. */
import { z } from "zod";
import { projectStatus } from "../../query/index_status.ts";
import { defineTool, refName } from "./tool.ts";
import { isLiveRef } from "../../state/project_refs.ts";
import { refStatus } from "../ref_router.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The index_status tool. */
export const indexStatusTool = defineTool({
  name: TOOL.index_status,
  summary: "A workspace's index: status, counts, active job progress, recent jobs. Poll it after " +
    "index_repo/sync_repo.",
  profile: "index",
  indexGate: false,
  statusOnly: true,
  description: (languages) =>
    "Report a workspace's index: status, schema compatibility, file and symbol counts, the active job's progress " +
    "(files_scanned, files_indexed, symbols_extracted, estimated_completion_pct, progress_token), recent jobs and " +
    "any interrupted-job recovery report, and how the index is kept live (watch: events, polling or off). Poll it after index_repo/sync_repo when you do not receive progress " +
    `notifications. Indexed languages: ${languages.join(", ")}.`,
  input: z.strictObject({
    ref: refName.optional().describe(
      'Branch/ref to report on. Default, or "WORKTREE": the working tree; a branch, tag or commit (the ' +
        "checked-out branch too) reports its commit's index in the same fields, with commit, kind and state " +
        "(ready, indexing, not_indexed with the index_repo call to make); metadata.ref names it.",
    ),
  }),
  handler: async function indexStatusHandler(args, ctx) {
    const rt = ctx.runtime;
    if (!isLiveRef(args.ref)) return await refStatus(rt, ctx.route.project, args.ref!);
    // The optional semantic layer's embedding pass, when one ran in this server.
    const semantic = rt.embedder?.status(ctx.route.project.project_id);
    return {
      ...projectStatus(rt.registry, rt.readers, ctx.route.project, ctx.activeJob(), (j) => rt.runner.jobView(j)),
      watch: rt.live.status(ctx.route.project),
      ...(semantic ? { semantic } : {}),
    };
  },
});
