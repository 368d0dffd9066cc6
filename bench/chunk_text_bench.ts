/**
 * What reading chunk text from the files costs queries (numbers, not
 * pass/fail): one index, and a copy of it whose chunk rows hold their text
 * (as the store kept it before), queried alternately in one process so the
 * machine's load falls on both alike. Prints p50 / p95 of `search_code` and
 * `get_code_context` for each, and the bytes the text takes in the copy.
 *
 * Usage: deno run -A bench/chunk_text_bench.ts INDEX_DB [N (default 150)]
 *   INDEX_DB: a working tree's index.db (e.g. the one `deno task bench:scale` keeps in its home).
 */
import { join } from "node:path";
import { openDb } from "../src/state/db.ts";
import { storeSeedChunkText } from "../src/state/write/ref_seed_text.ts";
import { searchCode } from "../src/query/search_code.ts";
import { getCodeContext } from "../src/query/code_context.ts";

const source = Deno.args[0];
const n = Number(Deno.args[1] ?? 150);
if (!source) {
  console.error("usage: chunk_text_bench.ts INDEX_DB [N]");
  Deno.exit(2);
}
const dir = Deno.makeTempDirSync({ prefix: "cruxe-chunk-text-bench-" });
const copy = join(dir, "index.db");
const src = openDb(source, { readOnly: true });
src.exec(`VACUUM INTO '${copy.replaceAll("'", "''")}'`);
src.close();
const t0 = performance.now();
storeSeedChunkText(copy);
console.log(`text stored in the copy in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const fromFiles = openDb(source, { readOnly: true });
const stored = openDb(copy, { readOnly: true });
const bytes = stored.prepare("SELECT sum(pgsize) AS b FROM dbstat WHERE name LIKE 'chunk_rows%'").get() as {
  b: number;
};
const before = fromFiles.prepare("SELECT sum(pgsize) AS b FROM dbstat WHERE name LIKE 'chunk_rows%'").get() as {
  b: number;
};
console.log(
  `chunk rows and their index: ${(before.b / 2 ** 20).toFixed(1)} MiB (text in files), ` +
    `${(bytes.b / 2 ** 20).toFixed(1)} MiB (text stored)`,
);

let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const names = (fromFiles.prepare(
  "SELECT name FROM symbols WHERE kind IN ('function', 'method', 'struct', 'interface') AND length(name) > 4",
).all() as { name: string }[]).map((r) => r.name);
const sample = Array.from({ length: n }, () => names[Math.floor(rand() * names.length)]);
const words = (name: string) => name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
}

for (
  const [tool, run] of [
    ["search_code", (db: typeof stored, q: string) => searchCode(db, { query: words(q) })],
    ["get_code_context", (db: typeof stored, q: string) => getCodeContext(db, { query: q })],
  ] as const
) {
  const t = { files: [] as number[], stored: [] as number[] };
  let differ = 0;
  for (const q of sample) {
    const a0 = performance.now();
    const a = run(fromFiles, q);
    t.files.push(performance.now() - a0);
    const b0 = performance.now();
    const b = run(stored, q);
    t.stored.push(performance.now() - b0);
    if (JSON.stringify(a) !== JSON.stringify(b)) differ++;
  }
  const row = (xs: number[]) => `${pct(xs, 0.5).toFixed(1)} / ${pct(xs, 0.95).toFixed(1)} ms`;
  console.log(
    `${tool} p50 / p95 (n=${sample.length}): text from files ${row(t.files)}, text stored ${row(t.stored)}; ` +
      `answers differing: ${differ}`,
  );
}
fromFiles.close();
stored.close();
Deno.removeSync(dir, { recursive: true });
