/**
 * Warmset benchmark (numbers, not pass/fail): spawn the stdio server N times
 * with and without prewarm over a home whose most recently used workspace
 * is a big index, and measure
 * - time-to-ready: spawn -> `health_check` status no longer `warming`;
 * - first-query latency right after ready: locate_symbol and search_code
 *   (goal: p95 <= 100 ms warm; the hard bound is < 400 ms);
 * - prewarm's share of time-to-serving (spawn -> initialize answered; goal: <= 15 % more than
 *   without), and how long the background warm-up keeps health at `warming`.
 * Usage: deno run -A bench/mcp_warm_bench.ts HOME WORKSPACE [RUNS=8]
 * (HOME must already hold an index of WORKSPACE, e.g. after `cruxe index`).
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CRUXE_FLAGS } from "../tests/mcp_helpers.ts";

const [home, workspace, runsArg] = Deno.args;
if (!home || !workspace) throw new Error("usage: mcp_warm_bench.ts HOME WORKSPACE [RUNS]");
const runs = Number(runsArg ?? 8);
const root = new URL("../", import.meta.url).pathname;
const flags = CRUXE_FLAGS;
const queries: [string, Record<string, unknown>][] = [
  ["locate_symbol", { name: "NewRequestWithContext" }],
  ["search_code", { query: "parse http header timeout" }],
];

function text(r: unknown): Record<string, unknown> {
  return JSON.parse((r as { content: { text: string }[] }).content[0].text);
}

async function once(prewarm: boolean) {
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      ...flags,
      join(root, "main.ts"),
      "serve-mcp",
      "--workspace",
      workspace,
      ...(prewarm ? [] : ["--no-prewarm"]),
    ],
    env: { ...Deno.env.toObject(), CRUXE_HOME: home },
    stderr: "ignore",
  });
  const client = new Client({ name: "warm-bench", version: "1" });
  await client.connect(transport);
  const tInit = performance.now() - t0;
  let status = "";
  while (true) {
    status = text(await client.callTool({ name: "health_check", arguments: {} })).status as string;
    if (status !== "warming") break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const tReady = performance.now() - t0;
  const lat: number[] = [];
  for (const [name, args] of queries) {
    const q0 = performance.now();
    const r = await client.callTool({ name, arguments: args });
    lat.push(performance.now() - q0);
    if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(text(r))}`);
  }
  await client.close();
  return { tInit, tReady, lat, status };
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

const results: Record<string, Awaited<ReturnType<typeof once>>[]> = { prewarm: [], none: [] };
for (let i = 0; i < runs; i++) {
  results.prewarm.push(await once(true)); // alternate so machine noise hits both alike
  results.none.push(await once(false));
}
for (const [mode, rs] of Object.entries(results)) {
  const ready = rs.map((r) => r.tReady);
  const init = rs.map((r) => r.tInit);
  const loc = rs.map((r) => r.lat[0]);
  const search = rs.map((r) => r.lat[1]);
  console.log(
    `${mode}: runs=${rs.length} initialize p50=${pct(init, 0.5).toFixed(0)}ms ready p50=${
      pct(ready, 0.5).toFixed(0)
    }ms ` +
      `p95=${pct(ready, 0.95).toFixed(0)}ms | first locate_symbol p50=${pct(loc, 0.5).toFixed(1)}ms p95=${
        pct(loc, 0.95).toFixed(1)
      }ms | first search_code p50=${pct(search, 0.5).toFixed(1)}ms p95=${pct(search, 0.95).toFixed(1)}ms`,
  );
}
const serve = pct(results.prewarm.map((r) => r.tInit), 0.5) / pct(results.none.map((r) => r.tInit), 0.5) - 1;
console.log(`prewarm adds ${(serve * 100).toFixed(1)}% to median time-to-serving (spawn -> initialize answered)`);
const warmMs = pct(results.prewarm.map((r) => r.tReady), 0.5) - pct(results.none.map((r) => r.tReady), 0.5);
console.log(`the warmset finishes ${warmMs.toFixed(0)}ms later in the background (health status warming until then)`);
