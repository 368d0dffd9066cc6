/** `index_repo`: start indexing the routed workspace in the background. */
import { z } from "zod";
import { runJobCall } from "./job_call.ts";
import { defineTool, indexRefArg } from "./tool.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The index_repo tool. */
export const indexRepoTool = defineTool({
  name: TOOL.index_repo,
  summary: "Index (force: re-index) a workspace so the other tools can answer. Use when a tool says " +
    "index_not_ready, or force: true on index_incompatible. Returns a job; wait: true waits for it.",
  profile: "index",
  indexGate: false,
  description: (languages) =>
    "Index (or re-index with force) a workspace so the other tools can answer. Returns at once with job_id and " +
    "progress_token (progress arrives as notifications/progress and is pollable with index_status); pass " +
    "wait: true to keep the call open until the job ends. Use it when a tool reports index_not_ready, or with " +
    `force: true when one reports index_incompatible. Indexed languages: ${languages.join(", ")}.`,
  input: z.strictObject({
    force: z.boolean().optional().describe("Re-process every file and rebuild an incompatible index. Default: false."),
    ref: indexRefArg.optional(),
    wait: z.boolean().optional().describe("Keep the call open until the job ends. Default: false."),
  }),
  handler: function indexRepoHandler(args, ctx) {
    return runJobCall(ctx, {
      tool: TOOL.index_repo,
      force: args.force ?? false,
      ref: args.ref,
      wait: args.wait ?? false,
    });
  },
});
