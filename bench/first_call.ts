/**
 * First-call benchmark (numbers, not pass/fail): how long an agent waits for
 * the first answer after starting the stdio server on an existing index, the
 * way it is started in an agent's config (sandboxed, watching, no prewarm).
 * Each run spawns the server, times the handshake, the first
 * `locate_symbol`, and a few calls after it; runs alternate between cold
 * pages (the page cache dropped first: what a user meets after a reboot;
 * needs root, else the run says it is warm) and warm pages. `rg -n -w NAME`
 * over the tree is timed in the same run, cold and warm, as the reference.
 * The bound to meet: the first call ≤ 1 s, on cold pages too.
 *
 * Usage: deno run -A bench/first_call.ts HOME WORKSPACE [NAME=mutex_lock] [RUNS=3]
 *   (HOME must hold an index of WORKSPACE: CRUXE_HOME=HOME deno task cruxe index --path WORKSPACE)
 */
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CRUXE_FLAGS } from "../tests/mcp_helpers.ts";

const [home, workspace, nameArg, runsArg] = Deno.args;
if (!home || !workspace) throw new Error("usage: first_call.ts HOME WORKSPACE [NAME] [RUNS]");
const name = nameArg ?? "mutex_lock";
const runs = Number(runsArg ?? 3);
const main = new URL("../main.ts", import.meta.url).pathname;
const NEXT = ["kmalloc", "schedule", "vfs_read", "tcp_sendmsg", "ext4_fill_super"];

/** Drops the page cache; false when this process may not (not root). */
function dropCaches(): boolean {
  const r = new Deno.Command("sh", { args: ["-c", "sync && echo 3 > /proc/sys/vm/drop_caches"], stderr: "null" })
    .outputSync();
  return r.success;
}

function rg(): number {
  const t0 = performance.now();
  new Deno.Command("rg", { args: ["-n", "-w", "-c", name, workspace], stdout: "null", stderr: "null" }).outputSync();
  return performance.now() - t0;
}

async function startAndCall(): Promise<{ handshake: number; first: number; next: number[] }> {
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...CRUXE_FLAGS, main, "serve-mcp", "--workspace", workspace, "--no-prewarm"],
    env: { ...Deno.env.toObject(), CRUXE_HOME: home },
    stderr: "ignore",
  });
  const client = new Client({ name: "first-call-bench", version: "1" });
  await client.connect(transport);
  const t1 = performance.now();
  await client.callTool({ name: "locate_symbol", arguments: { name } });
  const t2 = performance.now();
  const next: number[] = [];
  for (const n of NEXT) {
    const a = performance.now();
    await client.callTool({ name: "locate_symbol", arguments: { name: n } });
    next.push(performance.now() - a);
  }
  await client.close();
  return { handshake: t1 - t0, first: t2 - t1, next };
}

const ms = (x: number) => `${Math.round(x)} ms`;
console.log(`first call after start: ${workspace}, locate_symbol ${name}; load ${Deno.loadavg().join(" ")}`);
console.log("| pages | handshake | first call | next 5 calls | rg -n -w, same pages |");
console.log("|---|---|---|---|---|");
for (let i = 0; i < runs; i++) {
  for (const cold of [true, false]) {
    const dropped = cold && dropCaches();
    if (!dropped) rg(); // the tree's pages in memory: the cold run before dropped them after its own read
    const rgMs = rg();
    if (dropped) dropCaches();
    const r = await startAndCall();
    console.log(
      `| ${dropped ? "cold" : "warm"} | ${ms(r.handshake)} | ${ms(r.first)} | ${r.next.map(ms).join(", ")} | ${
        ms(rgMs)
      } |`,
    );
  }
}
