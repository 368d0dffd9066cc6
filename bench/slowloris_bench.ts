/**
 * `/health` latency while 300 connections hold half-sent request heads
 * (slowloris), and how long the server keeps those connections (not a
 * test). Starts `serve-mcp --transport http` (sandboxed, as users run it)
 * on a fixture repository, measures GET /health with no attack, opens 300
 * connections that each send part of a request head and stop, measures
 * GET /health again, then waits for the server to close the 300 (the
 * header-read timeout). Prints one line per measure; goals: p95 <= 50 ms
 * under attack, every partial connection closed within 30 s (the timeout is 20 s).
 *
 * Usage: deno run -A bench/slowloris_bench.ts [CONNECTIONS (default 300)] [PORT (default 9479)]
 */
import { CRUXE_FLAGS } from "../tests/mcp_helpers.ts";
import { copyFixture } from "../tests/helpers/fixture_repo.ts";

const N = Number(Deno.args[0] ?? 300);
const port = Number(Deno.args[1] ?? 9479);
const enc = new TextEncoder();
const home = Deno.makeTempDirSync({ prefix: "cruxe-bench-slowloris-" });
const repo = copyFixture("go_basic");
const main = new URL("../main.ts", import.meta.url).pathname;
const child = new Deno.Command(Deno.execPath(), {
  args: ["run", ...CRUXE_FLAGS, main, "serve-mcp", "--transport", "http", "--port", String(port), "--workspace", repo],
  env: { CRUXE_HOME: home },
  stdout: "null",
  stderr: "null",
}).spawn();
const base = `http://127.0.0.1:${port}/`;
for (let i = 0; i < 200; i++) {
  try {
    await (await fetch(`${base}health`)).text();
    break;
  } catch {
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** GET /health `n` times, 10 ms apart, on a kept-alive connection; latency percentiles. */
async function probe(n: number): Promise<string> {
  const lat: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await fetch(`${base}health`);
    await res.text();
    if (res.status !== 200) throw new Error(`/health answered ${res.status}`);
    lat.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 10));
  }
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(2);
  return `n=${n} p50=${q(0.5)} ms p95=${q(0.95)} ms max=${lat[lat.length - 1].toFixed(2)} ms`;
}

console.log(`GET /health, no attack: ${await probe(200)}`);

const t0 = performance.now();
const conns = await Promise.all(Array.from({ length: N }, async () => {
  const c = await Deno.connect({ hostname: "127.0.0.1", port });
  await c.write(enc.encode(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Partial: `));
  return c;
}));
const closedAt: number[] = [];
let gaveUp = false;
const watching = conns.map(async (c) => {
  const buf = new Uint8Array(512);
  try {
    while ((await c.read(buf)) !== null) { /* drain */ }
  } catch { /* reset */ }
  if (!gaveUp) closedAt.push(performance.now() - t0);
});
console.log(`GET /health, ${N} partial heads open: ${await probe(200)} (goal p95 <= 50 ms)`);
const limit = setTimeout(() => {
  gaveUp = true;
  conns.forEach((c) => c.close());
}, 45_000 - (performance.now() - t0));
await Promise.all(watching);
clearTimeout(limit);
closedAt.sort((a, b) => a - b);
const span = closedAt.length
  ? `first after ${(closedAt[0] / 1000).toFixed(1)} s, last after ${
    (closedAt[closedAt.length - 1] / 1000).toFixed(1)
  } s`
  : "none";
console.log(
  `partial heads closed by the server within 45 s: ${closedAt.length} of ${N} (${span}; goal: all, within 30 s)`,
);
console.log(`GET /health afterwards: ${await probe(50)}`);
child.kill("SIGTERM");
await child.status;
Deno.removeSync(home, { recursive: true });
Deno.removeSync(repo, { recursive: true });
