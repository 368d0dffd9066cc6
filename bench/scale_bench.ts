/**
 * Scale benchmark (numbers, not pass/fail): one large corpus, every figure of
 * the scale table, with Universal Ctags (`ctags -R`) and ripgrep (`rg`) timed
 * in the same run for reference, since the machines are shared and noisy.
 *
 * Rows: reference tools; cold `cruxe index` (wall, peak RSS, store size by
 * part); `index --force` over it; no-op and one-file syncs; a server started
 * on the index: the first call of each tool, then p50/p95/max of
 * `locate_symbol`, `search_code`, `get_code_context`, `find_references`,
 * `get_call_graph` (depth 2) and `get_file_outline`, its RSS after queries,
 * bad input at scale (time and `result_completeness`), RSS idle; symbols defined
 * in files over 1 MiB found by `locate_symbol`; and over HTTP, a `/health`
 * monitor (a process of its own) while 20 connections run `search_code`,
 * with reader workers on and off (throughput and health latency).
 *
 * Usage: deno task bench:scale [CORPUS (default /work/corpora/linux)]
 *   BENCH_SECONDS (default 15) sets each HTTP load phase; BENCH_HOME reuses an index home (skips the cold
 *   index and the syncs); BENCH_TRANSPORT=stdio runs the query rows over stdio (default HTTP);
 *   BENCH_SKIP_LOAD=1 leaves out the HTTP load phases; BENCH_DROP_CACHES=1 empties the OS page cache (root) before
 *   the reference `rg` queries and before the server starts, so the first pass of `locate_symbol` and `search_code`
 *   reads cold pages (a second pass over the same inputs is the warm figure), and over stdio it then drops the
 *   cache again and starts a server with its default prewarm (what a user's server does) for one more pass of
 *   `locate_symbol` and `search_code` while the prewarm runs; BENCH_NO_WATCH=1 starts the server
 *   without its watcher; BENCH_TAGS names a kept `ctags -R --fields=+n` file of the corpus (ctags is then not timed); BENCH_WORKER_SCALING=0 leaves out the cold indexes with 1
 *   and 2 parse workers (wall time and peak RSS of each, and their ratio). Needs `ctags` (universal-ctags), `rg` and `/usr/bin/time` on PATH for every row.
 */
import { join, relative } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { DatabaseSync } from "node:sqlite";
import { awaitHttpPort, CRUXE_FLAGS } from "../tests/mcp_helpers.ts";
import { defaultWorkers } from "../src/core/config.ts";

const corpus = Deno.args[0] ?? "/work/corpora/linux";
const seconds = Number(Deno.env.get("BENCH_SECONDS") ?? 15);
const reuse = Deno.env.get("BENCH_HOME");
const home = reuse ?? Deno.makeTempDirSync({ prefix: "cruxe-bench-scale-" });
const main = new URL("../main.ts", import.meta.url).pathname;
const cores = navigator.hardwareConcurrency;
const dec = new TextDecoder();

try {
  Deno.statSync(corpus);
} catch {
  console.error(`no corpus at ${corpus}: fetch it first (Debian source packages unpacked into a directory)`);
  Deno.exit(2);
}

function row(measure: string, value: string): void {
  console.log(`| ${measure.padEnd(58)} | ${value}`);
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
}

const ms = (x: number) => x < 10 ? `${x.toFixed(1)} ms` : `${Math.round(x)} ms`;
const sec = (x: number) => `${(x / 1000).toFixed(1)} s`;
const mib = (b: number) => `${Math.round(b / 1048576)} MiB`;

/**
 * Runs a command; wall time and (through /usr/bin/time) peak RSS and CPU time (user + system) of it and its
 * children. On a shared machine the CPU time is the steadier figure.
 */
async function timed(
  cmd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ ms: number; rss: number; cpuMs: number; ok: boolean; out: string }> {
  const t0 = performance.now();
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "MAXRSS_KB=%M CPU_S=%U+%S", cmd, ...args],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const wall = performance.now() - t0;
  const err = dec.decode(out.stderr);
  const kb = Number(err.match(/MAXRSS_KB=(\d+)/)?.[1] ?? 0);
  const cpu = err.match(/CPU_S=([\d.]+)\+([\d.]+)/);
  const cpuMs = cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : NaN;
  return { ms: wall, rss: kb * 1024, cpuMs, ok: out.success, out: dec.decode(out.stdout) + err };
}

const cruxe = (args: string[], env: Record<string, string> = {}) =>
  timed(Deno.execPath(), ["run", ...CRUXE_FLAGS, main, ...args], { CRUXE_HOME: home, ...env });

console.log(`corpus ${corpus}, ${cores} cores, home ${home}`);
console.log(`| measure | value |\n|---|---|`);

// Reference tools, same run (BENCH_TAGS: a tags file of the corpus made earlier, kept, and ctags not timed).
const keptTags = Deno.env.get("BENCH_TAGS");
const tagsFile = keptTags ?? Deno.makeTempFileSync({ suffix: ".tags" });
const ctags = keptTags
  ? { ms: NaN, rss: 0, cpuMs: NaN, ok: true, out: "" }
  : await timed("ctags", ["-R", "--fields=+n", "-f", tagsFile, corpus]);
row(
  "ctags -R (reference)",
  keptTags
    ? `not timed (tags reused from ${keptTags})`
    : ctags.ok
    ? `${sec(ctags.ms)}, cpu ${sec(ctags.cpuMs)}, peak ${mib(ctags.rss)}`
    : "ctags failed or missing",
);
const rg = await timed("rg", ["-c", "--no-messages", "-e", "return", corpus]);
// rg exits 1 when nothing matches; only a missing binary or a failure prints nothing at all.
row("rg -c return (reference: read every file once)", rg.out.trim() ? sec(rg.ms) : "rg failed or missing");

function indexDb(): string {
  for (const e of Deno.readDirSync(join(home, "projects"))) {
    const p = join(home, "projects", e.name, "index.db");
    try {
      const db = new DatabaseSync(p, { readOnly: true });
      const root = (db.prepare("SELECT value FROM meta WHERE key = 'repo_root'").get() as { value: string } | undefined)
        ?.value;
      db.close();
      if (root === corpus) return p;
    } catch { /* not an index */ }
  }
  throw new Error(`no index of ${corpus} in ${home}`);
}

let coldMs = 0;
if (!reuse) {
  const cold = await cruxe(["index", "--json", "--path", corpus]);
  coldMs = cold.ms;
  if (!cold.ok) throw new Error(`cold index failed: ${cold.out.slice(-2000)}`);
  row(
    `cold \`cruxe index\`, ${defaultWorkers()} parse workers (the default)`,
    `${sec(cold.ms)} (${(cold.ms / ctags.ms).toFixed(1)}x ctags -R), cpu ${sec(cold.cpuMs)} ` +
      `(${(cold.cpuMs / ctags.cpuMs).toFixed(1)}x ctags -R), peak ${mib(cold.rss)}`,
  );
  const summary = JSON.parse(cold.out.slice(cold.out.indexOf("{"), cold.out.lastIndexOf("}") + 1));
  row(
    "  files, symbols, skipped",
    `${summary.total_files} files, ${summary.total_symbols} symbols, skipped ${JSON.stringify(summary.skipped)}`,
  );
  const t = summary.timings as Record<string, number>;
  row(
    "  where the writer's time goes (ms)",
    Object.entries(t).map(([k, v]) => `${k} ${v}`).join(", ") + ` (${cores} cores)`,
  );
}

// Store size by part.
{
  const p = indexDb();
  const db = new DatabaseSync(p, { readOnly: true });
  const parts = new Map<string, number>();
  for (
    const r of db.prepare("SELECT name, sum(pgsize) AS b FROM dbstat GROUP BY name").all() as {
      name: string;
      b: number;
    }[]
  ) {
    // Tables and their indexes by part (schema 5 names the row tables `symbol_rows`, `chunk_rows`, `edge_rows`).
    const part = r.name.startsWith("symbol_names") || r.name === "name_grams"
      ? "names"
      : /_fts/.test(r.name)
      ? "FTS"
      : /^chunk(s|_rows)/.test(r.name)
      ? "chunks"
      : /^symbol(s|_rows)/.test(r.name)
      ? "symbols"
      : /^edge(s|_rows)/.test(r.name)
      ? "edges"
      : /^ref(s|_names)/.test(r.name) || r.name === "sqlite_autoindex_ref_names_1"
      ? "references"
      : "other";
    parts.set(part, (parts.get(part) ?? 0) + Number(r.b));
  }
  const counts = db.prepare("SELECT (SELECT count(*) FROM files) AS f, (SELECT count(*) FROM symbol_rows) AS s")
    .get() as {
      f: number;
      s: number;
    };
  db.close();
  const total = Deno.statSync(p).size;
  row(
    "store size",
    `${mib(total)} for ${counts.f} files, ${counts.s} symbols (` +
      [...parts].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${mib(v)}`).join(", ") + ")",
  );
}

/** Source files under `dir` (sorted walk, up to `max`). */
function* walkSources(dir: string, max: number): Generator<string> {
  let n = 0;
  const stack = [dir];
  while (stack.length && n < max) {
    const d = stack.pop()!;
    for (const e of [...Deno.readDirSync(d)].sort((a, b) => a.name < b.name ? -1 : 1)) {
      if (e.name.startsWith(".")) continue;
      const p = join(d, e.name);
      if (e.isDirectory) stack.push(p);
      else if (e.isFile && /\.(go|c|h|py|rs|java)$/.test(e.name) && !/_test\.go$/.test(e.name)) {
        yield p;
        if (++n >= max) return;
      }
    }
  }
}

/** The lines of a text file, read in pieces (a kernel's tags file is larger than a string may be). */
async function* lines(path: string): AsyncGenerator<string> {
  const f = await Deno.open(path); // its readable closes it at the end
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of f.readable) {
    const parts = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = parts.pop()!;
    yield* parts;
  }
  if (rest) yield rest;
}

/** Resident memory of a process and its descendants (Linux /proc). */
function treeRss(pid: number): number {
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    try {
      const status = Deno.readTextFileSync(`/proc/${p}/status`);
      total += Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) * 1024;
      for (const t of Deno.readDirSync(`/proc/${p}/task`)) {
        const kids = Deno.readTextFileSync(`/proc/${p}/task/${t.name}/children`).trim();
        if (kids) stack.push(...kids.split(/\s+/).map(Number));
      }
    } catch { /* exited */ }
  }
  return total;
}

interface Server {
  child: Deno.ChildProcess;
  base: string;
  client(): Promise<Client>;
  stop(): Promise<void>;
}

/**
 * The server's arguments: the corpus as the one workspace, no prewarm unless `prewarm` (first calls are what is
 * measured); BENCH_NO_WATCH=1 also leaves out the watcher (its start is then not part of the first call).
 */
const serveArgs = (transport: string[], prewarm = false) => [
  "run",
  ...CRUXE_FLAGS,
  main,
  "serve-mcp",
  ...transport,
  ...(prewarm ? [] : ["--no-prewarm"]),
  ...(Deno.env.get("BENCH_NO_WATCH") === "1" ? ["--no-watch"] : []),
  "-v",
  "--workspace",
  corpus,
];

/** Empties the OS page cache (needs root): the next reads come from the disk, as after a reboot. */
async function dropPageCache(): Promise<void> {
  await new Deno.Command("sync").output();
  Deno.writeTextFileSync("/proc/sys/vm/drop_caches", "3\n");
}

async function serve(env: Record<string, string> = {}): Promise<Server> {
  const child = new Deno.Command(Deno.execPath(), {
    args: serveArgs(["--transport", "http", "--port", "0"]),
    env: { CRUXE_HOME: home, ...env },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const { port, stop } = await awaitHttpPort(child);
  const base = `http://127.0.0.1:${port}/`;
  return {
    child,
    base,
    client: async () => {
      const c = new Client({ name: "bench", version: "1" });
      await c.connect(new StreamableHTTPClientTransport(new URL(base)));
      return c;
    },
    stop,
  };
}

/** A stdio server and its one client (with the default prewarm when `prewarm`); the server's pid for RSS. */
async function serveStdio(prewarm = false): Promise<{ client: Client; pid: number; stop(): Promise<void> }> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: serveArgs([], prewarm),
    env: { ...Deno.env.toObject(), CRUXE_HOME: home },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return { client, pid: transport.pid ?? 0, stop: () => client.close() };
}

async function call(c: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await c.callTool({ name, arguments: args });
  return JSON.parse((r.content as { text: string }[])[0].text);
}

// Names from ctags: unique names (one definition), and those defined in files over 1 MiB.
const defs = new Map<string, { path: string; line: number; kind: string }[]>();
for await (const l of lines(tagsFile)) {
  if (!l || l.startsWith("!")) continue;
  const f = l.split("\t");
  const line = Number(l.match(/\tline:(\d+)/)?.[1] ?? 0);
  if (!/^[A-Za-z_][A-Za-z0-9_]{2,}$/.test(f[0]) || !line) continue;
  const list = defs.get(f[0]) ?? [];
  list.push({ path: relative(corpus, f[1]), line, kind: f[3] ?? "" });
  defs.set(f[0], list);
}
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
// Names ctags defines once (any kind), as functions, types, structs, classes or interfaces: what people look up.
const unique = [...defs].filter(([, v]) => v.length === 1 && /^[ftsic]$/.test(v[0].kind))
  .map(([k, v]) => ({ name: k, ...v[0] }));
const sample = Array.from({ length: Math.min(300, unique.length) }, () => unique[Math.floor(rand() * unique.length)]);
const bigFiles = new Set<string>();
for (const path of new Set([...defs.values()].flatMap((list) => list.map((d) => d.path)))) {
  try {
    if (Deno.statSync(join(corpus, path)).size > 1048576) bigFiles.add(path);
  } catch { /* gone */ }
}
const inBig = unique.filter((u) => bigFiles.has(u.path)).slice(0, 200);

/** The answer of a call, and the envelope's `result_completeness`. */
async function callFull(c: Client, name: string, args: Record<string, unknown>) {
  const r = await c.callTool({ name, arguments: args });
  const body = JSON.parse((r.content as { text: string }[])[0].text);
  const meta = (r as { _meta?: Record<string, unknown> })._meta ?? body.metadata ?? {};
  return { body, isError: r.isError === true, completeness: String(meta.result_completeness ?? "?") };
}

/** Timed calls of one tool: p50 / p95 / max row. */
async function timedRow(c: Client, label: string, tool: string, inputs: Record<string, unknown>[]): Promise<number[]> {
  const t: number[] = [];
  let errors = 0;
  for (const args of inputs) {
    const q0 = performance.now();
    const r = await c.callTool({ name: tool, arguments: args });
    t.push(performance.now() - q0);
    if (r.isError) errors++;
  }
  row(
    `\`${label}\` p50 / p95 / max`,
    `${ms(pct(t, 0.5))} / ${ms(pct(t, 0.95))} / ${ms(Math.max(...t))} (n=${t.length}${
      errors ? `, ${errors} errors` : ""
    })`,
  );
  return t;
}

/** `locate_symbol` over the sample: p50 / p95 / max row, and top-1 row on the first pass. */
async function locateRows(c: Client, pass: string, withTop1: boolean): Promise<void> {
  const lt: number[] = [];
  let top1 = 0;
  for (const u of sample) {
    const q0 = performance.now();
    const b = await call(c, "locate_symbol", { name: u.name });
    lt.push(performance.now() - q0);
    const r = (b.results as { path: string; line_start: number; line_end: number }[] | undefined)?.[0];
    if (r && r.path === u.path && r.line_start <= u.line && u.line <= Math.max(r.line_end, r.line_start)) top1++;
  }
  row(
    `\`locate_symbol\` p50 / p95 / max (${pass})`,
    `${ms(pct(lt, 0.5))} / ${ms(pct(lt, 0.95))} / ${ms(Math.max(...lt))} (n=${lt.length})`,
  );
  if (withTop1) {
    row("`locate_symbol` top-1 on unique ctags names", `${(100 * top1 / Math.max(1, sample.length)).toFixed(1)}%`);
  }
}

const words = (name: string) => name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();
const stdio = Deno.env.get("BENCH_TRANSPORT") === "stdio";
const dropCaches = Deno.env.get("BENCH_DROP_CACHES") === "1";
// ripgrep looking for one name and for one search's words, on cold pages (when dropped) then warm: what a
// query costs a tool that reads the files.
{
  const name = sample[0]?.name ?? "main";
  const phrase = words(sample[1]?.name ?? name).split(" ").filter(Boolean).join(".*");
  const rgOne = async (args: string[]) => (await timed("rg", [...args, corpus])).ms;
  if (dropCaches) await dropPageCache();
  const coldName = await rgOne(["-n", "-w", "-F", "-e", name]);
  const warmName = await rgOne(["-n", "-w", "-F", "-e", name]);
  const warmWords = await rgOne(["-n", "-i", "-e", phrase]);
  row(
    `rg -w ${name} (reference: one locate)${dropCaches ? ", cold then warm" : ", twice"}`,
    `${ms(coldName)}, ${ms(warmName)}; rg -i '${phrase}' warm ${ms(warmWords)}`,
  );
}
{
  if (dropCaches) await dropPageCache();
  row("page cache before the server starts", dropCaches ? "dropped (first pass on cold pages)" : "as it was");
  const s = stdio ? await serveStdio() : await serve();
  const c = stdio ? s.client as Client : await (s as Server).client();
  const pid = stdio ? (s as { pid: number }).pid : (s as Server).child.pid;
  row("query rows over", stdio ? "stdio" : "HTTP");
  // First call of each tool after the server starts (nothing prewarmed): what the first user waits.
  const probe = sample[0]?.name ?? "main";
  const firsts: [string, Record<string, unknown>][] = [
    ["locate_symbol", { name: probe }],
    ["search_code", { query: words(sample[1]?.name ?? probe) }],
    ["get_code_context", { query: sample[2]?.name ?? probe }],
    ["get_file_outline", { path: sample[3]?.path ?? "" }],
    ["find_references", { symbol_name: sample[4]?.name ?? probe, path: sample[4]?.path }],
    ["get_call_graph", { symbol_name: sample[5]?.name ?? probe, path: sample[5]?.path, depth: 2 }],
    ["find_related_symbols", { symbol_name: sample[6]?.name ?? probe }],
    ["get_symbol_hierarchy", { symbol_name: sample[7]?.name ?? probe }],
  ];
  const first: string[] = [];
  for (const [tool, args] of firsts) {
    const t0 = performance.now();
    await c.callTool({ name: tool, arguments: args });
    first.push(`${tool} ${ms(performance.now() - t0)}`);
  }
  row("first call of each tool after the server starts", first.join(", "));
  const searches = sample.slice(0, 150).map((u) => ({ query: words(u.name) }));
  await locateRows(c, "first pass", true);
  await timedRow(c, "search_code (first pass)", "search_code", searches);
  await timedRow(c, "get_code_context", "get_code_context", sample.slice(0, 60).map((u) => ({ query: u.name })));
  const pinned = sample.slice(0, 100).map((u) => ({ symbol_name: u.name, path: u.path }));
  await timedRow(c, "find_references (first page)", "find_references", pinned);
  const callables = sample.filter((u) => u.kind === "f").slice(0, 60).map((u) => ({
    symbol_name: u.name,
    path: u.path,
    depth: 2,
  }));
  await timedRow(c, "get_call_graph depth 2", "get_call_graph", callables);
  await timedRow(c, "get_file_outline", "get_file_outline", sample.slice(0, 60).map((u) => ({ path: u.path })));
  // The same names and searches again: the pages they read are now cached.
  await locateRows(c, "second pass, warm", false);
  await timedRow(c, "search_code (second pass, warm)", "search_code", searches);
  row("server RSS after these queries (process tree)", mib(treeRss(pid)));
  // Bad input at scale: bounded in time, says so, no memory blow-up.
  const bad: [string, string, Record<string, unknown>][] = [
    ["one-letter name", "locate_symbol", { name: "q" }],
    ["`*`", "locate_symbol", { name: "*" }],
    ["one-letter search", "search_code", { query: "a" }],
    ["common words only", "search_code", { query: "return if int the struct" }],
    ["100 KB query", "search_code", { query: "static int ".repeat(9310) }],
    ["100 KB context", "get_code_context", { query: "return value ".repeat(8534) }],
  ];
  const badOut: string[] = [];
  for (const [label, tool, args] of bad) {
    const t0 = performance.now();
    const r = await callFull(c, tool, args);
    const code = r.isError ? String(r.body.error?.code ?? r.body.code ?? "error") : r.completeness;
    badOut.push(`${label} (${tool}): ${ms(performance.now() - t0)} ${code}`);
  }
  row("bad input at scale", badOut.join("; "));
  row("server RSS after bad input (process tree)", mib(treeRss(pid)));
  await new Promise((r) => setTimeout(r, 2000));
  row("server RSS idle 2 s after the queries (process tree)", mib(treeRss(pid)));
  let found = 0;
  const missed: string[] = [];
  for (const u of inBig) {
    const b = await call(c, "locate_symbol", { name: u.name });
    if ((b.results as { path: string }[] | undefined)?.some((r) => r.path === u.path)) found++;
    else missed.push(`${u.name} (${u.path}:${u.line})`);
  }
  row(
    `unique names defined in files over 1 MiB (${bigFiles.size} files) found`,
    inBig.length
      ? `${found} / ${inBig.length}${missed.length ? `; missed ${missed.slice(0, 5).join(", ")}` : ""}`
      : "none",
  );
  await c.close();
  await s.stop();
}
// What a user's server meets on cold pages: its default prewarm reads the index while the first calls come.
if (dropCaches && stdio) {
  await dropPageCache();
  const s = await serveStdio(true);
  await locateRows(s.client, "cold pages, default prewarm", false);
  const searches = sample.slice(0, 150).map((u) => ({ query: words(u.name) }));
  await timedRow(s.client, "search_code (cold pages, default prewarm)", "search_code", searches);
  const warmset = (await call(s.client, "health_check", {})).workspace_warmset as { prewarm_ms?: number | null };
  row(
    "default prewarm of the index, alongside those calls",
    warmset?.prewarm_ms ? ms(warmset.prewarm_ms) : "still running",
  );
  await s.stop();
}

/**
 * The `/health` monitor: a process of its own polling every 20 ms for `ms`,
 * so its timings are the server's and not this process's event loop, which
 * the 20 load clients keep busy. Resolves to the latencies and timeouts.
 */
async function healthMonitor(base: string, ms: number): Promise<{ health: number[]; timeouts: number }> {
  const script = `const end = performance.now() + ${ms}; const health = []; let timeouts = 0;
    while (performance.now() < end) {
      const t0 = performance.now();
      try { const r = await fetch(${JSON.stringify(base + "health")}, { signal: AbortSignal.timeout(2000) });
        await r.arrayBuffer(); } catch { timeouts++; }
      health.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
    console.log(JSON.stringify({ health, timeouts }));`;
  const out = await new Deno.Command(Deno.execPath(), { args: ["eval", script], stdout: "piped" }).output();
  return JSON.parse(dec.decode(out.stdout));
}

/** 20 connections calling search_code while a monitor process polls /health every 20 ms. */
async function httpLoad(label: string, env: Record<string, string>): Promise<void> {
  const s = await serve(env);
  const clients = await Promise.all(Array.from({ length: 20 }, () => s.client()));
  let calls = 0;
  const qt: number[] = [];
  const end = performance.now() + seconds * 1000;
  const monitor = healthMonitor(s.base, seconds * 1000);
  await Promise.all(clients.map(async (c, i) => {
    let k = i;
    while (performance.now() < end) {
      const u = sample[k++ % sample.length];
      const t0 = performance.now();
      await call(c, "search_code", { query: u.name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ") });
      qt.push(performance.now() - t0);
      calls++;
    }
  }));
  const { health, timeouts } = await monitor;
  row(
    `HTTP /health while 20 connections run search_code (${label})`,
    `p50 ${ms(pct(health, 0.5))}, p95 ${ms(pct(health, 0.95))}, timeouts ${timeouts}`,
  );
  row(
    `HTTP search_code throughput, 20 connections (${label})`,
    `${(calls / seconds).toFixed(0)} req/s, p50 ${ms(pct(qt, 0.5))}`,
  );
  await Promise.all(clients.map((c) => c.close()));
  await new Promise((r) => setTimeout(r, 2000));
  row(`server RSS after the load, idle 2 s (${label})`, mib(treeRss(s.child.pid)));
  await s.stop();
}

if (Deno.env.get("BENCH_SKIP_LOAD") !== "1") {
  await httpLoad("reader workers on", {});
  await httpLoad("reader workers off", { CRUXE_READER_WORKERS: "0" });
}
if (!keptTags) Deno.removeSync(tagsFile);

// Syncs and the forced rebuild last: on a large corpus they take long, and the rows above do not need them.
if (!reuse) {
  const cold = coldMs;
  const noop = await cruxe(["index", "--path", corpus]);
  row("no-op sync (`cruxe index` again)", sec(noop.ms));
  const victim = [...walkSources(corpus, 200)].pop();
  if (victim) {
    const before = Deno.readTextFileSync(victim);
    Deno.writeTextFileSync(victim, before + "\n");
    try {
      const one = await cruxe(["index", "--path", corpus]);
      row("1-file sync", sec(one.ms));
    } finally {
      Deno.writeTextFileSync(victim, before);
    }
    await cruxe(["index", "--path", corpus]);
  }
  const force = await cruxe(["index", "--force", "--path", corpus]);
  row("`index --force` over the existing index", `${sec(force.ms)} (cold: ${sec(cold)})`);
}

// Scaling with cores: cold indexes with 1 and 2 parse workers, each in a home of its own.
if (!reuse && Deno.env.get("BENCH_WORKER_SCALING") !== "0") {
  const runs: { workers: number; ms: number; rss: number }[] = [];
  for (const workers of [1, 2]) {
    const other = Deno.makeTempDirSync({ prefix: "cruxe-bench-workers-" });
    const r = await timed(Deno.execPath(), ["run", ...CRUXE_FLAGS, main, "index", "--path", corpus], {
      CRUXE_HOME: other,
      CRUXE_WORKERS: String(workers),
    });
    Deno.removeSync(other, { recursive: true });
    if (!r.ok) throw new Error(`cold index with ${workers} parse worker(s) failed: ${r.out.slice(-2000)}`);
    runs.push({ workers, ms: r.ms, rss: r.rss });
    row(`cold \`cruxe index\`, ${workers} parse worker(s)`, `${sec(r.ms)}, cpu ${sec(r.cpuMs)}, peak ${mib(r.rss)}`);
  }
  row("  1 worker / 2 workers (wall)", `${(runs[0].ms / runs[1].ms).toFixed(2)}x`);
}
if (!reuse) console.log(`(index home kept at ${home}; BENCH_HOME=${home} reruns the query rows only)`);
