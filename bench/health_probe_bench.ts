/**
 * `/health` latency seen by one monitoring client while a full index runs
 * (not a test): starts `serve-mcp --transport http` (sandboxed, as users run
 * it) on a corpus, calls `index_repo` with force, and polls `GET /health`
 * every 20 ms until the index is ready. Prints p50/p95/max and any stall
 * over 100 ms with the job's stage. (Saturating load is
 * `mcp_http_load_bench.ts`.)
 *
 * Usage: deno run -A bench/health_probe_bench.ts [CORPUS (default /work/corpora/go)] [PORT (default 9477)]
 */
import { CRUXE_FLAGS } from "../tests/mcp_helpers.ts";

const corpus = Deno.args[0] ?? "/work/corpora/go";
const port = Number(Deno.args[1] ?? 9477);
const base = `http://127.0.0.1:${port}/`;
const home = Deno.makeTempDirSync({ prefix: "cruxe-bench-health-" });
const main = new URL("../main.ts", import.meta.url).pathname;
const child = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    ...CRUXE_FLAGS,
    main,
    "serve-mcp",
    "--transport",
    "http",
    "--port",
    String(port),
    "--workspace",
    corpus,
  ],
  env: { CRUXE_HOME: home },
  stdout: "null",
  stderr: "null",
}).spawn();
let exitCode: number | null = null;
child.status.then((st) => exitCode = st.code);
let up = false;
for (let i = 0; i < 600 && !up && exitCode === null; i++) {
  try {
    await (await fetch(`${base}health`)).text();
    up = true;
  } catch {
    await new Promise((r) => setTimeout(r, 100));
  }
}
if (!up) {
  console.error(
    exitCode === null
      ? "the server never answered GET /health"
      : `the server exited (code ${exitCode}) before answering GET /health`,
  );
  if (exitCode === null) child.kill("SIGTERM");
  await child.status;
  Deno.exit(1);
}
const rpc = (id: number, method: string, params: unknown) =>
  fetch(base, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  }).then((r) => r.text());
await rpc(1, "initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "bench", version: "1" },
});
/** The JSON-RPC message of an answer (plain JSON or one SSE `data:` event). */
function rpcMessage(text: string): { result?: { isError?: boolean; content?: { text: string }[] }; error?: unknown } {
  const data = text.split("\n").find((l) => l.startsWith("data: "));
  return JSON.parse(data ? data.slice(6) : text);
}
const started = rpcMessage(await rpc(2, "tools/call", { name: "index_repo", arguments: { force: true } }));
const startedBody = started.result?.content?.[0] ? JSON.parse(started.result.content[0].text) : null;
if (started.error || started.result?.isError || startedBody?.status !== "running") {
  console.error(`index_repo did not start a job: ${JSON.stringify(started).slice(0, 500)}`);
  child.kill("SIGTERM");
  await child.status;
  Deno.exit(1);
}
const t0 = performance.now();
const lat: number[] = [];
let status = "indexing";
let indexFailed = false;
while ((status !== "ready" || performance.now() - t0 < 3000) && performance.now() - t0 < 120_000) {
  const t = performance.now();
  const body = JSON.parse(await (await fetch(`${base}health`)).text());
  const dt = performance.now() - t;
  lat.push(dt);
  status = body.status;
  if (dt > 100) {
    console.log(`${((t - t0) / 1000).toFixed(1)}s: ${dt.toFixed(0)} ms (stage ${body.active_jobs?.[0]?.stage ?? "-"})`);
  }
  await new Promise((r) => setTimeout(r, 20));
}
if (status !== "ready") {
  console.error(
    `the index never became ready (last status ${status}): the latencies below are not of a finished index`,
  );
  indexFailed = true;
}
lat.sort((a, b) => a - b);
const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(2);
console.log(
  `index ready after ${((performance.now() - t0) / 1000).toFixed(1)} s; GET /health n=${lat.length} ` +
    `p50=${q(0.5)} ms p95=${q(0.95)} ms max=${lat[lat.length - 1].toFixed(2)} ms (goal p95 <= 10 ms)`,
);
child.kill("SIGTERM");
await child.status;
Deno.removeSync(home, { recursive: true });
if (indexFailed) Deno.exit(1);
