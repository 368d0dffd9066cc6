/**
 * MCP dispatch benchmarks (numbers, not pass/fail), while an index job runs:
 * - `index_status` through the whole pipeline: p50/p95 (goal p95 <= 10 ms);
 * - dispatch overhead around a no-op tool (validation + routing + envelope):
 *   p50/p95 (goal p95 <= 2 ms);
 * - routing alone (`WorkspaceRouter.resolve` on a warm workspace): p50/p95
 *   (goal p95 <= 1 ms).
 * Usage: deno run -A bench/mcp_dispatch_bench.ts [BIG_REPO (default: /work/corpora/go)]
 */
import { z } from "zod";
import { resolveConfig } from "../src/core/config.ts";
import { Registry } from "../src/state/registry.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { ServerRuntime } from "../src/service/runtime.ts";
import { Dispatcher } from "../src/service/dispatch.ts";
import { TOOLS } from "../src/service/tools/registry.ts";
import { defineTool, type ToolDef } from "../src/service/tools/tool.ts";

const big = Deno.args[0] ?? "/work/corpora/go";
const home = Deno.makeTempDirSync({ prefix: "cruxe-bench-dispatch-" });
const small = Deno.makeTempDirSync({ prefix: "cruxe-bench-small-" });
for (let i = 0; i < 50; i++) {
  Deno.writeTextFileSync(`${small}/f${i}.go`, `package p\n\nfunc F${i}(x int) int { return x + ${i} }\n`);
}
const config = resolveConfig({ CRUXE_HOME: home }, Deno.build.os);
const registry = Registry.open(home);
const rt = new ServerRuntime(config, registry, {
  prewarm: false,
  router: { startupWorkspaces: [], autoWorkspace: false, allowedRoots: [], maxAutoWorkspaces: 10, cwd: small },
});
const noop = defineTool({
  name: "noop",
  summary: "no-op (benchmark only)",
  indexGate: false,
  description: () => "no-op (benchmark only)",
  input: z.strictObject({ n: z.number().optional() }),
  handler: () => ({}),
});
const dispatcher = new Dispatcher(rt, [...TOOLS, noop as unknown as ToolDef]);
const smallP = registerProject(registry, small);
await rt.runner.start(smallP, { mode: "full", force: false }).active.done;
const bigP = registerProject(registry, big);
const job = rt.runner.start(bigP, { mode: "full", force: true }).active;
await new Promise((r) => setTimeout(r, 1500)); // let the job get into parsing

const call = (name: string, args: Record<string, unknown>) =>
  dispatcher.call(name, args, {
    sendNotification: () => Promise.resolve(),
    signal: new AbortController().signal,
  });

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

async function measure(label: string, n: number, fn: () => unknown): Promise<void> {
  for (let i = 0; i < 20; i++) await fn();
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    t.push(performance.now() - t0);
    if (i % 50 === 0) await new Promise((r) => setTimeout(r, 1)); // let job events through, as a server would
  }
  console.log(
    `${label}: n=${n} p50=${pct(t, 0.5).toFixed(3)}ms p95=${pct(t, 0.95).toFixed(3)}ms max=${
      Math.max(...t).toFixed(2)
    }ms (job running: ${rt.runner.activeFor(bigP.project_id) ? "yes" : "no"})`,
  );
}

await measure("index_status (big repo, job running)", 500, () => call("index_status", { workspace: big }));
await measure("index_status (small repo)", 500, () => call("index_status", { workspace: small }));
await measure("dispatch overhead (no-op tool)", 2000, () => call("noop", { workspace: small, n: 1 }));
await measure("routing (resolve warm workspace)", 5000, () => rt.router.resolve(small));
await measure(
  "locate_symbol (small, full pipeline)",
  500,
  () => call("locate_symbol", { name: "F7", workspace: small }),
);
await measure("index_status (big repo, job running, again)", 2000, () => call("index_status", { workspace: big }));
const st = await call("index_status", { workspace: big });
const active = (st.structuredContent as { active_job: Record<string, unknown> | null }).active_job;
console.log(`big job progress at the end: ${JSON.stringify(active)}`);
await rt.runner.cancel(bigP.project_id);
await job.done.catch(() => {});
rt.close();
