/**
 * Query latency benchmark (not a test): warm p50/p95/max of locate_symbol,
 * get_file_outline, get_code_context (4,000 tokens) and, when present,
 * search_code, on an existing index (default: the Go standard library).
 * Queries are sampled from the index itself with a fixed seed. Only calls
 * that answered are timed; "not found" answers are counted, and any other
 * error is a failure: counted, its first message printed, and the process
 * exits 1.
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
import { findReferences } from "../src/query/find_references.ts";
import { getCallGraph } from "../src/query/call_graph.ts";
import { searchCode } from "../src/query/search_code.ts";
import { CruxeError } from "../src/core/errors.ts";

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

/** Error codes that are an answer ("there is no such symbol/file"), not a failure. */
const NOT_FOUND = new Set(["symbol_not_found", "file_not_found"]);
let failedTotal = 0;

function measure(name: string, target: number | null, inputs: unknown[], run: (x: unknown) => unknown): void {
  for (const x of inputs.slice(0, 20)) attempt(run, x); // warm statements and caches
  const times: number[] = [];
  let notFound = 0;
  const failures: string[] = [];
  for (const x of inputs) {
    const t0 = performance.now();
    const outcome = attempt(run, x);
    const dt = performance.now() - t0;
    if (outcome === "ok") times.push(dt);
    else if (outcome === "not_found") notFound++;
    else failures.push(`${JSON.stringify(x)}: ${outcome.failed}`);
  }
  failedTotal += failures.length;
  times.sort((a, b) => a - b);
  const p95 = times.length ? pct(times, 0.95) : NaN;
  const verdict = target === null || !times.length
    ? ""
    : p95 <= target
    ? `  (target p95 <= ${target} ms: met)`
    : `  (target p95 <= ${target} ms: MISSED)`;
  const timing = times.length
    ? `p50=${pct(times, 0.5).toFixed(2)}ms p95=${p95.toFixed(2)}ms max=${times[times.length - 1].toFixed(2)}ms`
    : "no successful call";
  console.log(
    `${name.padEnd(24)} n=${inputs.length} timed=${times.length} ${timing} not_found=${notFound} ` +
      `FAILED=${failures.length}${verdict}`,
  );
  if (failures.length) console.log(`  first failure: ${failures[0]}`);
}

/** Runs one call: "ok", "not_found" (an answer), or the failure's message. */
function attempt(run: (x: unknown) => unknown, x: unknown): "ok" | "not_found" | { failed: string } {
  try {
    run(x);
    return "ok";
  } catch (e) {
    if (e instanceof CruxeError && NOT_FOUND.has(e.code)) return "not_found";
    return { failed: e instanceof CruxeError ? `${e.code}: ${e.message}` : String((e as Error)?.stack ?? e) };
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
// Targets for the reference index's tools: a first page of uses, a call graph two levels deep.
measure("find_references", 50, [...types, ...funcs], (x) => findReferences(db, { symbol_id: x as string }));
measure("get_call_graph depth 2", 100, funcs, (x) => getCallGraph(db, { symbol_id: x as string, depth: 2 }));

const searchInputs = [...names.map((d) => d.name).slice(0, n / 2), ...phrases.slice(0, n / 2)];
measure("search_code", 50, searchInputs, (x) => searchCode(db, { query: x as string, limit: 10 }));
console.log("(warm, single process, shared 2-core machine: numbers are noisy)");
db.close();
if (failedTotal) {
  console.log(`${failedTotal} call(s) FAILED: the timings above exclude them`);
  Deno.exit(1);
}
