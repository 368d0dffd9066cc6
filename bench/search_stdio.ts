/**
 * search_code and locate_symbol latency over stdio (numbers, not pass/fail),
 * with `rg` over the same tree timed in the same run. One stdio server is
 * started per `--main` (default: this checkout's `main.ts`) on a workspace
 * whose index exists under HOME; each waits until `health_check` says
 * `ready`. Queries are sampled from the index by a fixed seed (symbol names
 * for locate_symbol, their words for search_code) and sent to the servers in
 * turn, query by query (A B A B), so a loaded machine slows them alike. With
 * two or more servers, every answer is compared with the first server's
 * (results only: times and metadata differ by run) and differences counted.
 *
 * Usage: deno run -A bench/search_stdio.ts HOME WORKSPACE [--n 200] [--rg 20] [--main PATH ...] [--cpu-prof DIR]
 *   (HOME must hold an index of WORKSPACE: CRUXE_HOME=HOME deno task cruxe index --path WORKSPACE)
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DatabaseSync } from "node:sqlite";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CRUXE_FLAGS } from "../tests/mcp_helpers.ts";
import { registerStoreFunctions } from "../src/state/store_functions.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    n: { type: "string", default: "200" },
    rg: { type: "string", default: "20" },
    main: { type: "string", multiple: true },
    "cpu-prof": { type: "string" },
  },
});
const [home, workspace] = positionals;
if (!home || !workspace) throw new Error("usage: search_stdio.ts HOME WORKSPACE [--n N] [--rg N] [--main PATH ...]");
const mains = values.main?.length ? values.main : [new URL("../main.ts", import.meta.url).pathname];
const n = Number(values.n);
/** With `--cpu-prof DIR`, each server writes a V8 CPU profile there when it exits. */
const profile = values["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${values["cpu-prof"]}`] : [];

function text(r: unknown): Record<string, unknown> {
  return JSON.parse((r as { content: { text: string }[] }).content[0].text);
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)];
}

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6D2B79F5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` symbol names of the index of `workspace` under `home`, sampled by row id with a fixed seed. */
function sampleNames(count: number): string[] {
  for (const e of Deno.readDirSync(join(home, "projects"))) {
    const db = new DatabaseSync(join(home, "projects", e.name, "index.db"), { readOnly: true });
    registerStoreFunctions(db); // the symbols view spells handles with them
    try {
      const root = db.prepare("SELECT value FROM meta WHERE key = 'repo_root'").get() as { value: string } | undefined;
      if (root?.value !== workspace) continue;
      const top = Number((db.prepare("SELECT max(id) AS m FROM symbols").get() as { m: number }).m);
      const at = db.prepare(
        "SELECT name FROM symbols WHERE id >= ? AND kind IN ('function','method','struct','interface','type') " +
          "ORDER BY id LIMIT 1",
      );
      const r = rng(7);
      const out: string[] = [];
      while (out.length < count) {
        const row = at.get(1 + Math.floor(r() * top)) as { name: string } | undefined;
        if (row && row.name.length >= 3) out.push(row.name);
      }
      return out;
    } finally {
      db.close();
    }
  }
  throw new Error(`no index of ${workspace} under ${home}`);
}

const words = (name: string) => name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();

/** CPU seconds (user + system) of process `pid` and all its descendants, from /proc (Linux; 0 elsewhere). */
function treeCpu(pid: number): number {
  const kids = new Map<number, number[]>();
  const own = new Map<number, number>();
  try {
    for (const e of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(e.name)) continue;
      try {
        const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        const id = Number(e.name);
        own.set(id, (Number(f[11]) + Number(f[12])) / 100);
        kids.set(Number(f[1]), [...(kids.get(Number(f[1])) ?? []), id]);
      } catch { /* gone */ }
    }
  } catch {
    return 0;
  }
  let sum = 0;
  const walk = (id: number) => {
    sum += own.get(id) ?? 0;
    for (const k of kids.get(id) ?? []) walk(k);
  };
  walk(pid);
  return sum;
}

async function start(main: string): Promise<{ client: Client; pid: number }> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...CRUXE_FLAGS, ...profile, main, "serve-mcp", "--workspace", workspace],
    env: { ...Deno.env.toObject(), CRUXE_HOME: home, NO_COLOR: "1" },
    stderr: "ignore",
  });
  const client = new Client({ name: "search-stdio-bench", version: "1" });
  await client.connect(transport);
  const t0 = performance.now();
  for (;;) {
    const h = text(await client.callTool({ name: "health_check", arguments: {} }));
    if (h.status === "ready") return { client, pid: transport.pid! };
    if (performance.now() - t0 > 120_000) throw new Error(`not ready after 120 s: ${JSON.stringify(h).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function rgMs(query: string): Promise<number> {
  const args = ["-n", "-i", "--no-messages", ...query.split(" ").flatMap((t) => ["-e", t]), workspace];
  const t0 = performance.now();
  await new Deno.Command("rg", { args, stdout: "null", stderr: "null" }).output();
  return performance.now() - t0;
}

const names = sampleNames(n);
const calls: [string, Record<string, unknown>][] = [
  ...names.map((name): [string, Record<string, unknown>] => ["locate_symbol", { name }]),
  ...names.map((name): [string, Record<string, unknown>] => ["search_code", { query: words(name) }]),
];
const clients: Client[] = [];
const pids: number[] = [];
for (const m of mains) {
  const s = await start(m);
  clients.push(s.client);
  pids.push(s.pid);
}
// One unmeasured call of each tool per server: the first call's one-time costs are another benchmark's.
for (const c of clients) {
  await c.callTool({ name: "locate_symbol", arguments: { name: "main" } });
  await c.callTool({ name: "search_code", arguments: { query: "main" } });
}
const times = clients.map(() => new Map<string, number[]>());
const cpu0 = pids.map(treeCpu);
const diffs = new Map<string, number>();
const firstDiff: string[] = [];
for (const [tool, args] of calls) {
  let first = "";
  for (let i = 0; i < clients.length; i++) {
    const t0 = performance.now();
    const r = await clients[i].callTool({ name: tool, arguments: args });
    const ms = performance.now() - t0;
    const list = times[i].get(tool) ?? [];
    list.push(ms);
    times[i].set(tool, list);
    const answer = JSON.stringify(text(r).results ?? text(r));
    if (i === 0) first = answer;
    else if (answer !== first) {
      diffs.set(tool, (diffs.get(tool) ?? 0) + 1);
      if (firstDiff.length < 3) firstDiff.push(`${tool} ${JSON.stringify(args)}`);
    }
  }
}
const cpu = pids.map((p, i) => treeCpu(p) - cpu0[i]);
const rgTimes: number[] = [];
for (const name of names.slice(0, Number(values.rg))) rgTimes.push(await rgMs(words(name)));
for (const c of clients) await c.close();

const f = (x: number) => x.toFixed(1);
const row = (label: string, t: number[]) => {
  const s = [...t].sort((a, b) => a - b);
  console.log(`${label.padEnd(44)} n=${s.length} p50=${f(pct(s, 0.5))} p95=${f(pct(s, 0.95))} max=${f(s.at(-1)!)} ms`);
};
console.log(`${workspace}, ${n} sampled names; load average ${Deno.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
for (let i = 0; i < clients.length; i++) {
  for (const tool of ["locate_symbol", "search_code"]) row(`${tool} [${mains[i]}]`, times[i].get(tool) ?? []);
  console.log(`  server CPU over all timed calls (process tree, user+sys): ${cpu[i].toFixed(2)} s`);
}
row("rg -n -i -e WORD... (same search words)", rgTimes);
if (clients.length > 1) {
  console.log(`answers differing from the first server: ${JSON.stringify(Object.fromEntries(diffs))}`);
  for (const d of firstDiff) console.log(`  e.g. ${d}`);
}
