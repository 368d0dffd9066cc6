/**
 * First-search benchmark (numbers, not pass/fail): the latency of the very
 * first `search_code` a client sends once the server says it is ready (the
 * call an agent makes first), against the second one and against `rg` over
 * the same tree in the same run. Each run spawns the stdio server (through
 * its permission sandbox, as agents start it) on a workspace whose index
 * exists, polls `health_check` until it is `ready`, then times
 * search_code(Q1) (first), search_code(Q1) again, and search_code(Q2); `rg -n
 * -i` with Q1's terms is timed right after. The bound to meet: first < 400 ms.
 *
 * Usage: deno run -A bench/first_search.ts HOME WORKSPACE [RUNS=5]
 *   (HOME must hold an index of WORKSPACE: CRUXE_HOME=HOME deno task cruxe index --path WORKSPACE)
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CRUXE_FLAGS } from "../tests/mcp_helpers.ts";

const [home, workspace, runsArg] = Deno.args;
if (!home || !workspace) throw new Error("usage: first_search.ts HOME WORKSPACE [RUNS]");
const runs = Number(runsArg ?? 5);
const root = new URL("../", import.meta.url).pathname;
const Q1 = "parse http header timeout";
const Q2 = "read file buffer";

function text(r: unknown): Record<string, unknown> {
  return JSON.parse((r as { content: { text: string }[] }).content[0].text);
}

async function timed(client: Client, query: string): Promise<number> {
  const t0 = performance.now();
  const r = await client.callTool({ name: "search_code", arguments: { query } });
  const ms = performance.now() - t0;
  if (r.isError) throw new Error(`search_code failed: ${JSON.stringify(text(r))}`);
  return ms;
}

async function rgMs(query: string): Promise<number> {
  const args = ["-n", "-i", "--no-messages", ...query.split(" ").flatMap((t) => ["-e", t]), workspace];
  const t0 = performance.now();
  await new Deno.Command("rg", { args, stdout: "null", stderr: "null" }).output();
  return performance.now() - t0;
}

async function once() {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...CRUXE_FLAGS, join(root, "main.ts"), "serve-mcp", "--workspace", workspace],
    env: { ...Deno.env.toObject(), CRUXE_HOME: home },
    stderr: "ignore",
  });
  const client = new Client({ name: "first-search-bench", version: "1" });
  await client.connect(transport);
  const t0 = performance.now();
  for (;;) {
    const h = text(await client.callTool({ name: "health_check", arguments: {} }));
    if (h.status === "ready") break;
    if (performance.now() - t0 > 120_000) throw new Error(`not ready after 120 s: ${JSON.stringify(h).slice(0, 600)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const first = await timed(client, Q1);
  const second = await timed(client, Q1);
  const other = await timed(client, Q2);
  await client.close();
  return { first, second, other, rg: await rgMs(Q1) };
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

const rows = [];
for (let i = 0; i < runs; i++) rows.push(await once());
const line = (what: string, xs: number[]) =>
  `${what.padEnd(28)} p50=${pct(xs, 0.5).toFixed(0)}ms max=${Math.max(...xs).toFixed(0)}ms`;
console.log(`${workspace}: ${runs} runs, ${navigator.hardwareConcurrency} cores`);
console.log(line("first search_code (Q1)", rows.map((r) => r.first)));
console.log(line("second search_code (Q1)", rows.map((r) => r.second)));
console.log(line("search_code (Q2)", rows.map((r) => r.other)));
console.log(line("rg -n -i (Q1 terms)", rows.map((r) => r.rg)));
