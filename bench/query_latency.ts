/**
 * Query latency benchmark (not a test): p50/p95/max of every query tool
 * (locate_symbol, get_file_outline, get_code_context at 4,000 tokens,
 * get_symbol_hierarchy, find_related_symbols, find_references, get_call_graph
 * depth 2, search_code) on an existing index (default: the Go standard
 * library; `--root /work/corpora/linux` for the kernel). Each tool is timed
 * twice over the same inputs: a cold first pass (a fresh connection, nothing
 * warmed; the OS page cache is whatever it is) and a warm pass. Wall time and
 * the process's CPU time are both printed: on a shared, loaded machine the
 * CPU time is the steadier figure. Queries are sampled from the index itself
 * with a fixed seed (random row ids, so a kernel-sized index is never read
 * whole). Only calls that answered are timed; "not found" answers are
 * counted, and any other error is a failure: counted, its first message
 * printed, and the process exits 1. `--ref NAME` times the same tools on an
 * indexed git ref of the root (its commit read from the refs store, the way
 * the server reads it), to compare with the working tree's index.
 *
 * Usage: deno task bench:query [--home DIR] [--root DIR] [--n N] [--ref NAME]
 *   index first: CRUXE_HOME=/tmp/cruxe-nav deno task cruxe index --path /work/corpora/go
 * Needs read access to the Cruxe home (and write for SQLite's WAL files).
 */
import { parseArgs } from "node:util";
import { dirname, join } from "node:path";
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
import process from "node:process";
import { readRefStores, refsStorePath, scopeToRef } from "../src/state/ref_stores.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    home: { type: "string", default: "/tmp/cruxe-nav" },
    root: { type: "string", default: "/work/corpora/go" },
    n: { type: "string", default: "300" },
    ref: { type: "string" },
  },
});

function findIndex(home: string, root: string): { db: Db; path: string } {
  if (values.ref) return findRefIndex(home, root);
  for (const e of Deno.readDirSync(join(home, "projects"))) {
    const p = join(home, "projects", e.name, "index.db");
    try {
      const db = openDb(p, { readOnly: true });
      if (getMeta(db, "repo_root") === root) return { db, path: p };
      db.close();
    } catch { /* not an index */ }
  }
  throw new Error(`no index of ${root} under ${home}; run: CRUXE_HOME=${home} deno task cruxe index --path ${root}`);
}

/** The refs store of `root` under `home` holding the commit `--ref` names, opened on that commit. */
function findRefIndex(home: string, root: string): { db: Db; path: string } {
  for (const e of Deno.readDirSync(join(home, "projects"))) {
    const p = refsStorePath(join(home, "projects", e.name));
    try {
      const db = openIndex(p);
      if (getMeta(db, "repo_root") === root) return { db, path: p };
      db.close();
    } catch { /* no refs store, or not that ref */ }
  }
  throw new Error(`no indexed ref ${values.ref} of ${root} under ${home}`);
}

/** A read-only connection to the index timed: with `--ref`, scoped to that commit of the refs store at `path`. */
function openIndex(path: string): Db {
  const db = openDb(path, { readOnly: true });
  if (!values.ref) return db;
  const found = readRefStores(db, dirname(path)).find((s) => s.commit === values.ref || s.refName === values.ref);
  if (!found || !scopeToRef(db, found.refId)) {
    db.close();
    throw new Error(`ref ${values.ref} is not indexed in ${path}`);
  }
  return db;
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

interface Timing {
  wall: number[];
  cpu: number[];
  notFound: number;
  failures: string[];
}

function pass(inputs: unknown[], run: (x: unknown) => unknown): Timing {
  const t: Timing = { wall: [], cpu: [], notFound: 0, failures: [] };
  for (const x of inputs) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const outcome = attempt(run, x);
    const dt = performance.now() - t0;
    const c = process.cpuUsage(c0);
    if (outcome === "ok") t.wall.push(dt), t.cpu.push((c.user + c.system) / 1000);
    else if (outcome === "not_found") t.notFound++;
    else t.failures.push(`${JSON.stringify(x)}: ${outcome.failed}`);
  }
  t.wall.sort((a, b) => a - b);
  t.cpu.sort((a, b) => a - b);
  return t;
}

function line(label: string, target: number | null, n: number, t: Timing): void {
  const p95 = t.wall.length ? pct(t.wall, 0.95) : NaN;
  const verdict = target === null || !t.wall.length
    ? ""
    : p95 <= target
    ? `  (target p95 <= ${target} ms: met)`
    : `  (target p95 <= ${target} ms: MISSED)`;
  const f = (x: number) => x.toFixed(x < 10 ? 2 : 0);
  const timing = t.wall.length
    ? `p50=${f(pct(t.wall, 0.5))} p95=${f(p95)} max=${f(t.wall[t.wall.length - 1])} ms ` +
      `(cpu p50=${f(pct(t.cpu, 0.5))} p95=${f(pct(t.cpu, 0.95))})`
    : "no successful call";
  console.log(
    `${label.padEnd(30)} n=${n} timed=${t.wall.length} ${timing} not_found=${t.notFound} ` +
      `FAILED=${t.failures.length}${verdict}`,
  );
  if (t.failures.length) console.log(`  first failure: ${t.failures[0]}`);
}

/** A cold first pass over `inputs` on a fresh connection, then a warm pass on the shared one. */
function measure(name: string, target: number | null, inputs: unknown[], run: (db: Db, x: unknown) => unknown): void {
  const fresh = openIndex(dbPath);
  const cold = pass(inputs, (x) => run(fresh, x));
  fresh.close();
  const warm = pass(inputs, (x) => run(db, x));
  failedTotal += cold.failures.length + warm.failures.length;
  line(`${name} (cold)`, null, inputs.length, cold);
  line(`${name} (warm)`, target, inputs.length, warm);
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

const { db, path: dbPath } = findIndex(values.home!, values.root!);
const n = Number(values.n);
const r = rng(42);
const t0 = performance.now();
const warmed = warmSymbolIndex(db);
console.log(
  `index ${values.root}${values.ref ? ` at ${values.ref}` : ""}: ${getMeta(db, "file_count")} files, ${
    getMeta(db, "symbol_count")
  } symbols; ` +
    `${warmed.names} distinct names, counted in ${(performance.now() - t0).toFixed(0)} ms; ` +
    `load average ${Deno.loadavg().map((x) => x.toFixed(1)).join(" ")}`,
);

const topId = Number((db.prepare("SELECT max(id) AS m FROM symbols").get() as { m: number }).m);
/** `count` rows of `kinds` at random row ids (the first such row at or after each id). */
function sampleSymbols(kinds: string, count: number): { name: string; qualified_name: string; symbol_id: string }[] {
  const at = db.prepare(
    `SELECT name, qualified_name, symbol_id FROM symbols WHERE id >= ? AND kind IN (${kinds}) ORDER BY id LIMIT 1`,
  );
  const out: { name: string; qualified_name: string; symbol_id: string }[] = [];
  for (let i = 0; i < count * 3 && out.length < count; i++) {
    const row = at.get(1 + Math.floor(r() * topId)) as typeof out[number] | undefined;
    if (row) out.push(row);
  }
  return out;
}

const names = sampleSymbols("'function','method','struct','interface','type','class','constant'", n);
const paths = (db.prepare("SELECT path FROM files ORDER BY path").all() as { path: string }[]).map((x) => x.path);
const locateInputs = names.map((d, i) => i % 5 === 3 ? d.qualified_name : i % 5 === 4 ? typo(d.name, r) : d.name);
const phrases = sampleSymbols("'function','method','struct','interface','type','class','constant'", n)
  .map((d) => splitIdentifier(d.name).join(" ")).filter((p) => p.trim());

measure("locate_symbol", 20, locateInputs, (d, x) => locateSymbol(d, { name: x as string }));
measure("get_file_outline", 10, sample(paths, n, r), (d, x) => getFileOutline(d, { path: x as string }));
const ctxInputs = [...names.slice(0, Math.ceil(n / 6)).map((d) => d.name), ...phrases.slice(0, Math.ceil(n / 6))];
measure(
  "get_code_context 4000",
  150,
  ctxInputs,
  (d, x) => getCodeContext(d, { query: x as string, max_tokens: 4000 }),
);

// No targets for these two; symbol_id handles make every input unambiguous.
const types = sampleSymbols("'class','struct','interface'", Math.ceil(n / 3)).map((x) => x.symbol_id);
const funcs = sampleSymbols("'function','method'", Math.ceil(n / 3)).map((x) => x.symbol_id);
measure("get_symbol_hierarchy", null, types.flatMap((id, i) => [[id, i % 2 ? "ancestors" : "descendants"]]), (d, x) => {
  const [id, direction] = x as [string, "ancestors" | "descendants"];
  return getSymbolHierarchy(d, { symbol_name: id, direction });
});
measure("find_related_symbols", null, funcs, (d, x) => findRelatedSymbols(d, { symbol_name: x as string }));
// Targets for the reference index's tools: a first page of uses, a call graph two levels deep.
measure("find_references", 50, [...types, ...funcs], (d, x) => findReferences(d, { symbol_id: x as string }));
measure("get_call_graph depth 2", 100, funcs, (d, x) => getCallGraph(d, { symbol_id: x as string, depth: 2 }));

const searchInputs = [...names.map((d) => d.name).slice(0, n / 2), ...phrases.slice(0, n / 2)];
measure("search_code", 100, searchInputs, (d, x) => searchCode(d, { query: x as string, limit: 10 }));
console.log(
  `(single process; load average after: ${Deno.loadavg().map((x) => x.toFixed(1)).join(" ")}; ` +
    `cpu = this process's CPU time per call, steadier than wall time on a loaded machine)`,
);
db.close();
if (failedTotal) {
  console.log(`${failedTotal} call(s) FAILED: the timings above exclude them`);
  Deno.exit(1);
}
