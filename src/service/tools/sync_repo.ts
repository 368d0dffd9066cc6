/** `sync_repo`: incremental sync of what changed since the last index. */
import { z } from "zod";
import { runJobCall } from "./job_call.ts";
import { defineTool, indexRefArg } from "./tool.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The sync_repo tool. */
export const syncRepoTool = defineTool({
  name: TOOL.sync_repo,
  summary: "Re-index only changed files. Use when metadata.freshness_status is stale or after editing " +
    "files.",
  profile: "index",
  indexGate: false,
  description: (languages) =>
    "Re-index only the files that changed since the last index (added, modified, deleted, renamed). Use it when " +
    "metadata.freshness_status is stale, after editing files, or to clear an interrupted_recovery_report. Returns " +
    "at once with job_id and progress_token; wait: true keeps the call open until the job ends. " +
    `Indexed languages: ${languages.join(", ")}.`,
  input: z.strictObject({
    force: z.boolean().optional().describe("Re-process every file. Default: false (incremental)."),
    ref: indexRefArg.optional(),
    wait: z.boolean().optional().describe("Keep the call open until the job ends. Default: false."),
  }),
  handler: function syncRepoHandler(args, ctx) {
    return runJobCall(ctx, {
      tool: TOOL.sync_repo,
      force: args.force ?? false,
      ref: args.ref,
      wait: args.wait ?? false,
    });
  },
});
