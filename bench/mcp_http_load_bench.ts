/**
 * HTTP load while a full index runs (numbers, not pass/fail; loopback only):
 * - `GET /health` with wrk, 50 connections for 30 s: p50/p95/p99 and errors
 *   (goal: p95 <= 10 ms, zero errors);
 * - 8 concurrent SDK clients calling search_code/locate_symbol for the same
 *   30 s against an indexed project: calls, failures, "database is locked".
 * Usage: deno run -A bench/mcp_http_load_bench.ts [BIG (default /work/corpora/go)] [QUERY_REPO (default BIG/net)]
 * Needs `wrk` (Debian package); without it a bounded fetch loop measures /health instead.
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { awaitHttpPort, CRUXE_FLAGS } from "../tests/mcp_helpers.ts";

const big = Deno.args[0] ?? "/work/corpora/go";
const queryRepo = Deno.args[1] ?? join(big, "net");
const seconds = Number(Deno.env.get("BENCH_SECONDS") ?? 30);
const home = Deno.makeTempDirSync({ prefix: "cruxe-bench-http-" });
const root = new URL("../", import.meta.url).pathname;
const flags = CRUXE_FLAGS;

// Index the query target first (CLI), then serve.
const pre = await new Deno.Command(Deno.execPath(), {
  args: ["run", ...flags, join(root, "main.ts"), "index", "--path", queryRepo],
  env: { CRUXE_HOME: home },
  stdout: "null",
  stderr: "inherit",
}).output();
if (!pre.success) throw new Error("pre-index failed");

const child = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    ...flags,
    join(root, "main.ts"),
    "serve-mcp",
    "--transport",
    "http",
    "--port",
    "0",
    "-v",
    "--workspace",
    queryRepo,
    // The big repository is registered at start: the permission sandbox grants reads on registered workspaces.
    "--workspace",
    big,
  ],
  env: { CRUXE_HOME: home },
  stdout: "null",
  stderr: "piped",
}).spawn();
const server = await awaitHttpPort(child);
const port = server.port;
const base = `http://127.0.0.1:${port}/`;

async function client(): Promise<Client> {
  const c = new Client({ name: "bench", version: "1" });
  await c.connect(new StreamableHTTPClientTransport(new URL(base)));
  return c;
}

// Start the full index of the big repository.
const ctl = await client();
const started = await ctl.callTool({ name: "index_repo", arguments: { workspace: big, force: true } });
console.log(`index job: ${(started.content as { text: string }[])[0].text.slice(0, 160)}`);
await new Promise((r) => setTimeout(r, 1000));

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
}

async function healthLoad(): Promise<string> {
  const script = Deno.makeTempFileSync({ suffix: ".lua" });
  Deno.writeTextFileSync(
    script,
    `done = function(summary, latency, requests)
  io.write(string.format("wrk /health: requests=%d errors(connect/read/write/status/timeout)=%d/%d/%d/%d/%d p50=%.2fms p95=%.2fms p99=%.2fms max=%.2fms\\n",
    summary.requests, summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.status,
    summary.errors.timeout, latency:percentile(50)/1000, latency:percentile(95)/1000, latency:percentile(99)/1000, latency.max/1000))
end`,
  );
  try {
    const out = await new Deno.Command("wrk", {
      args: ["-t2", "-c50", `-d${seconds}s`, "-s", script, `${base}health`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l.startsWith("wrk /health")).join("\n");
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
    // Fallback: 50 concurrent loops with fetch.
    const t: number[] = [];
    let errors = 0;
    const end = performance.now() + seconds * 1000;
    await Promise.all(Array.from({ length: 50 }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          const r = await fetch(`${base}health`);
          await r.arrayBuffer();
          if (r.status !== 200) errors++;
        } catch {
          errors++;
        }
        t.push(performance.now() - t0);
      }
    }));
    return `fetch loop /health: requests=${t.length} errors=${errors} p50=${pct(t, 0.5).toFixed(2)}ms p95=${
      pct(t, 0.95).toFixed(2)
    }ms`;
  }
}

async function queryLoad(): Promise<string> {
  const names = ["Dial", "Listen", "ParseIP", "Conn", "Resolver", "LookupHost", "TCPConn", "Interface"];
  const t: number[] = [];
  let calls = 0;
  let failures = 0;
  let locked = 0;
  const end = performance.now() + seconds * 1000;
  const connects: number[] = [];
  await Promise.all(names.map(async (name, i) => {
    const tc = performance.now();
    const c = await client();
    connects.push(performance.now() - tc);
    try {
      while (performance.now() < end) {
        const tool = i % 2 ? "search_code" : "locate_symbol";
        const args = tool === "search_code" ? { query: `${name} timeout` } : { name };
        const t0 = performance.now();
        try {
          const r = await c.callTool({ name: tool, arguments: args });
          const text = (r.content as { text: string }[])[0].text;
          if (/database is locked/i.test(text)) locked++;
          if (r.isError && !/symbol_not_found/.test(text)) failures++;
        } catch {
          failures++;
        }
        calls++;
        t.push(performance.now() - t0);
      }
    } finally {
      await c.close();
    }
  }));
  return `8 clients search_code/locate_symbol: connect max=${Math.max(...connects).toFixed(0)}ms ` +
    `calls=${calls} failures=${failures} database_is_locked=${locked} ` +
    `p50=${pct(t, 0.5).toFixed(1)}ms p95=${pct(t, 0.95).toFixed(1)}ms`;
}

async function jobState(): Promise<string> {
  const st = await ctl.callTool({ name: "index_status", arguments: { workspace: big } });
  const body = JSON.parse((st.content as { text: string }[])[0].text);
  const a = body.active_job;
  return `index ${body.index_status}${
    a ? ` (${a.stage} ${a.files_indexed}/${a.files_scanned} files, ${a.estimated_completion_pct}%)` : ""
  }`;
}

// Phase 1: /health alone while the index runs. Phase 2: 8 query clients alone. Phase 3: both.
console.log(`phase 1 (${seconds}s, /health only): ${await healthLoad()}`);
console.log(`  ${await jobState()}`);
console.log(`phase 2 (${seconds}s, queries only): ${await queryLoad()}`);
console.log(`  ${await jobState()}`);
const [h, q] = await Promise.all([healthLoad(), queryLoad()]);
console.log(`phase 3 (${seconds}s, /health + queries): ${h}`);
console.log(`  ${q}`);
console.log(`  ${await jobState()}`);
console.log(
  `server log lines mentioning 'locked': ${server.stderr().split("\n").filter((l) => /locked/i.test(l)).length}`,
);
await ctl.close();
child.kill("SIGTERM");
const status = await child.status;
console.log(`server exit on SIGTERM: code=${status.code}`);
