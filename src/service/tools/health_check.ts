/** `health_check`: server readiness, the same body as HTTP `GET /health` plus the routed workspace's job state. */
import { z } from "zod";
import { buildHealth } from "../health.ts";
import { interruptedReport } from "../../query/index_status.ts";
import { defineTool } from "./tool.ts";
import { activeJobSummary } from "./job_call.ts";
import { TOOL } from "../../core/tool_names.ts";

/** The health_check tool. */
export const healthCheckTool = defineTool({
  name: TOOL.health_check,
  summary: "Is the server ready: version, stores, grammars, each project's index state and jobs.",
  profile: "index",
  indexGate: false,
  statusOnly: true,
  description: (languages) =>
    "Check that the Cruxe server is ready before relying on it: overall status (error > warming > indexing > " +
    "ready), version, uptime, store and grammar checks, every registered project's index state, the workspace " +
    "warmset, the routed workspace's active job and any interrupted-job report. " +
    `Indexed languages: ${languages.join(", ")}.`,
  input: z.strictObject({}),
  serverWide: true,
  handler: function healthCheckHandler(_args, ctx) {
    if (!ctx.routed) return { ...buildHealth(ctx.runtime), workspace: null, active_job: null };
    const active = ctx.activeJob();
    const report = interruptedReport(ctx.runtime.registry, ctx.route.project.project_id);
    return {
      ...buildHealth(ctx.runtime),
      workspace: ctx.route.workspace,
      active_job: active ? activeJobSummary(ctx, active) : null,
      ...(report ? { interrupted_recovery_report: report } : {}),
    };
  },
});
