/**
 * Query latency benchmark (not a test): warm p50/p95/max of locate_symbol,
 * get_file_outline, get_code_context (4,000 tokens) and, when present,
 * search_code, on an existing index (default: the Go standard library).
 * Queries are sampled from the index itself with a fixed seed.
 *
 * Usage: deno task bench:query [--home DIR] [--root DIR] [--n N]
 *   index first: CRUXE_HOME=/tmp/cruxe-nav deno task cruxe index --path /work/corpora/go
 * Needs read access to the Cruxe home (and write for SQLite's WAL files).
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { openDb } from "../src/state/db.ts";
import type { Db } from "../src/state/db.ts";
import { getMeta } from "../src/state/db.ts";
import { splitIdentifier } from "../src/core/identifiers.ts";
import { locateSymbol, warmSymbolIndex } from "../src/query/locate_symbol.ts";
import { getFileOutline } from "../src/query/file_outline.ts";
import { getCodeContext } from "../src/query/code_context.ts";
import { getSymbolHierarchy } from "../src/query/symbol_hierarchy.ts";
import { findRelatedSymbols } from "../src/query/related_symbols.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    home: { type: "string", default: "/tmp/cruxe-nav" },
    root: { type: "string", default: "/work/corpora/go" },
    n: { type: "string", default: "300" },
  },
});

function findIndex(home: string, root: string): Db {
  for (const e of Deno.readDirSync(join(home, "projects"))) {
    const p = join(home, "projects", e.name, "index.db");
    try {
      const db = openDb(p);
      if (getMeta(db, "repo_root") === root) return db;
      db.close();
    } catch { /* not an index */ }
  }
  throw new Error(`no index of ${root} under ${home}; run: CRUXE_HOME=${home} deno task cruxe index --path ${root}`);
}

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6D2B79F5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sample<T>(xs: T[], n: number, r: () => number): T[] {
  const out: T[] = [];
  for (let i = 0; i < n && xs.length; i++) out.push(xs[Math.floor(r() * xs.length)]);
  return out;
}

function typo(s: string, r: () => number): string {
  if (s.length < 5) return s;
  const i = 1 + Math.floor(r() * (s.length - 2));
  return s.slice(0, i) + s[i + 1] + s[i] + s.slice(i + 2);
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)];
}

function measure(name: string, target: number | null, inputs: unknown[], run: (x: unknown) => unknown): void {
  for (const x of inputs.slice(0, 20)) tryRun(run, x); // warm statements and caches
  const times: number[] = [];
  let errors = 0;
  for (const x of inputs) {
    const t0 = performance.now();
    if (!tryRun(run, x)) errors++;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const p95 = pct(times, 0.95);
  const verdict = target === null
    ? ""
    : p95 <= target
    ? `  (target p95 <= ${target} ms: met)`
    : `  (target p95 <= ${target} ms: MISSED)`;
  console.log(
    `${name.padEnd(24)} n=${times.length} p50=${pct(times, 0.5).toFixed(2)}ms p95=${p95.toFixed(2)}ms ` +
      `max=${times[times.length - 1].toFixed(2)}ms not_found/errors=${errors}${verdict}`,
  );
}

function tryRun(run: (x: unknown) => unknown, x: unknown): boolean {
  try {
    run(x);
    return true;
  } catch {
    return false;
  }
}

const db = findIndex(values.home!, values.root!);
const n = Number(values.n);
const r = rng(42);
const t0 = performance.now();
const warm = warmSymbolIndex(db);
console.log(
  `index ${values.root}: ${getMeta(db, "file_count")} files, ${getMeta(db, "symbol_count")} symbols; ` +
    `name index ${warm.names} names built in ${(performance.now() - t0).toFixed(0)} ms`,
);

const defs = db.prepare(
  "SELECT name, qualified_name FROM symbols WHERE kind IN ('function','method','struct','interface','type','class','constant') ORDER BY id",
).all() as { name: string; qualified_name: string }[];
const paths = (db.prepare("SELECT path FROM files ORDER BY path").all() as { path: string }[]).map((x) => x.path);
const names = sample(defs, n, r);
const locateInputs = names.map((d, i) => i % 5 === 3 ? d.qualified_name : i % 5 === 4 ? typo(d.name, r) : d.name);
const phrases = sample(defs, n, r).map((d) => splitIdentifier(d.name).join(" "));

measure("locate_symbol", 10, locateInputs, (x) => locateSymbol(db, { name: x as string }));
measure("get_file_outline", 10, sample(paths, n, r), (x) => getFileOutline(db, { path: x as string }));
const ctxInputs = [...names.slice(0, Math.ceil(n / 6)).map((d) => d.name), ...phrases.slice(0, Math.ceil(n / 6))];
measure("get_code_context 4000", 150, ctxInputs, (x) => getCodeContext(db, { query: x as string, max_tokens: 4000 }));

// No targets for these two; symbol_id handles make every input unambiguous.
const handles = (kinds: string) =>
  (db.prepare(`SELECT symbol_id FROM symbols WHERE kind IN (${kinds}) ORDER BY id`).all() as { symbol_id: string }[])
    .map((x) => x.symbol_id);
const types = sample(handles("'class','struct','interface'"), Math.ceil(n / 3), r);
const funcs = sample(handles("'function','method'"), Math.ceil(n / 3), r);
measure("get_symbol_hierarchy", null, types.flatMap((id, i) => [[id, i % 2 ? "ancestors" : "descendants"]]), (x) => {
  const [id, direction] = x as [string, "ancestors" | "descendants"];
  return getSymbolHierarchy(db, { symbol_name: id, direction });
});
measure("find_related_symbols", null, funcs, (x) => findRelatedSymbols(db, { symbol_name: x as string }));

// search_code belongs to another module that may not exist yet in this checkout.
const searchUrl = new URL("../src/query/search_code.ts", import.meta.url);
try {
  const mod = await import(searchUrl.href);
  const searchInputs = [...names.map((d) => d.name).slice(0, n / 2), ...phrases.slice(0, n / 2)];
  measure("search_code", 50, searchInputs, (x) => mod.searchCode(db, { query: x as string, limit: 10 }));
} catch (e) {
  console.log(`search_code              skipped: ${(e as Error).message.split("\n")[0]}`);
}
console.log("(warm, single process, shared 2-core machine: numbers are noisy)");
db.close();
