/**
 * Cost of the semantic layer's brute-force scan: cosine top-60 over N int8
 * vectors of D dimensions (random, so the timing is the scan's, not a
 * model's), and the bytes one stored vector takes. Prints one line per size.
 * Usage: deno run bench/semantic_scan.ts [D] (default 768)
 */
import { quantize, type StoredVector } from "../src/state/chunk_vectors.ts";
import { nearest, SEMANTIC_DEPTH } from "../src/query/semantic_search.ts";

const dims = Number(Deno.args[0] ?? 768);
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5;
const vec = () => Array.from({ length: dims }, rand);

for (const n of [10_000, 50_000, 100_000]) {
  const rows: StoredVector[] = Array.from({ length: n }, (_, i) => ({ hash: `h${i}`, ...quantize(vec()) }));
  const norms = new Float32Array(rows.map((r) => Math.hypot(...r.data)));
  const times: number[] = [];
  for (let q = 0; q < 7; q++) {
    const query = vec();
    const t0 = performance.now();
    nearest(rows, norms, query, SEMANTIC_DEPTH);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  // A stored row: int8 data + 64-hex hash + model name + scale and dims, before SQLite's page overhead.
  const rowBytes = dims + 64 + 16 + 8 + 4;
  console.log(
    `vectors ${String(n).padStart(7)} dims ${dims}: scan p50 ${times[3].toFixed(1)} ms  max ${
      times[6].toFixed(1)
    } ms; ~${rowBytes} bytes per chunk (${((rowBytes * n) / 1048576).toFixed(1)} MiB)`,
  );
}
