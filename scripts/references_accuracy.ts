/**
 * find_references accuracy, latency and index size against independent oracles.
 *
 * - Python, exact oracle: Python's own `ast` module over the files Cruxe
 *   indexed. For functions/methods whose name is defined once in the tree,
 *   the truth is every `Call` whose callee is that `Name` or an `Attribute`
 *   with that name; find_references(reference_kind: call) is compared by
 *   (path, line) — micro recall and precision over all call sites.
 * - Go, exact oracle: Go's type checker (`scripts/references_go_oracle.ts`):
 *   a seeded sample of methods (shared and unique names), functions and types,
 *   recall and precision of the default answer, of each label, and of callees
 *   and callers at depth 1 and 2. Needs the `go` tool (no network). The
 *   latency figures below still sample unique function names found as
 *   `Name(` outside comments and strings.
 * - Python, jedi (`scripts/references_jedi.ts`, when `python3` has jedi): the
 *   default answer on `x.m(...)` sites, and callees and callers at depth 1
 *   and 2 (`--jedi-sites`, `--graph-roots`; `--jedi-sites 0` skips it).
 * - TypeScript, the compiler's language service (`scripts/references_ts.ts`):
 *   references per label and callees and callers at depth 1 and 2 against its
 *   call hierarchy, for a root whose files are mostly TypeScript.
 * - Latency: first page of find_references, get_call_graph depth 2 (both ways).
 * - Size: bytes of the reference tables (SQLite's dbstat) per reference and
 *   as a share of the rest of the index.
 *
 * Usage: deno task references-accuracy [--home DIR] [--sample N] [--go-sample N] [--seed S] [--reindex]
 *   [--jedi-sites N] [--graph-roots N] [ROOT ...]
 *   (default roots: /work/corpora/django /work/corpora/go and this repository's src/; a root not yet indexed in the home is indexed
 *    first with `cruxe index`. The language of each root is the one most of its indexed files have.)
 * Needs read/write on the home, read on the corpora, and to run `python3` and this Deno binary.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import type { Db } from "../src/state/db.ts";
import { findIndex } from "./find_index.ts";
import { findReferences, type FindReferencesResult, type Reference } from "../src/query/find_references.ts";
import { getCallGraph } from "../src/query/call_graph.ts";
import { CruxeError } from "../src/core/errors.ts";
import { goOracleReport } from "./references_go_oracle.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    home: { type: "string", default: "/tmp/cruxe-refs-bench" },
    sample: { type: "string", default: "300" },
    "go-sample": { type: "string", default: "60" },
    "go-graphs": { type: "string", default: "20" },
    seed: { type: "string", default: "1" },
    misses: { type: "string", default: "8" },
    reindex: { type: "boolean", default: false },
    "jedi-sites": { type: "string", default: "1000" },
    "graph-roots": { type: "string", default: "30" },
  },
});
const OWN_SRC = new URL("../src", import.meta.url).pathname;
const roots = positionals.length ? positionals : ["/work/corpora/django", "/work/corpora/go", OWN_SRC];
const SAMPLE = Number(values.sample);
const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** Indexes `root` into the home with the CLI; returns the wall time in seconds. */
async function indexRoot(home: string, root: string, force: boolean): Promise<number> {
  const t0 = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "index", "--path", root, ...(force ? ["--force"] : [])],
    env: { CRUXE_HOME: home },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`cruxe index failed: ${new TextDecoder().decode(out.stderr)}`);
  return (performance.now() - t0) / 1000;
}

/** Runs one of the oracle scripts beside this one, its report printed as it comes. */
async function oracleScript(script: string, args: string[]): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(script, import.meta.url).pathname, ...args],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!out.success) console.log(`  ${script} failed (exit ${out.code})`);
}

/** A stable pseudo-random order (FNV-1a of the key), so samples are the same run to run. */
function stableOrder(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN;
}

function flat(r: FindReferencesResult): Reference[] {
  return r.references ?? r.files!.flatMap((f) => f.references.map((x) => ({ ...x, path: f.path }) as Reference));
}

/** Every call site find_references reports for one definition, all pages; and the first page's time. */
function cruxeCalls(
  db: Db,
  name: string,
  path: string,
  candidates = false,
): { sites: string[]; firstMs: number } | null {
  const sites: string[] = [];
  let cursor: string | undefined;
  let firstMs = 0;
  for (let page = 0; page < 100; page++) {
    const t0 = performance.now();
    let r: FindReferencesResult;
    try {
      r = findReferences(db, {
        symbol_name: name,
        path,
        reference_kind: "call",
        limit: 500,
        cursor,
        include_candidates: candidates,
      });
    } catch (e) {
      if (e instanceof CruxeError && e.code === "ambiguous_symbol") return null;
      throw e;
    }
    if (page === 0) firstMs = performance.now() - t0;
    for (const x of flat(r)) sites.push(`${x.path}:${x.line}`);
    cursor = r.next_cursor ?? undefined;
    if (!cursor) break;
  }
  return { sites, firstMs };
}

interface Truth {
  name: string;
  path: string;
  sites: string[];
}

/** Python oracle: unique function/method names and their call sites, from `ast`. */
async function pythonTruth(root: string, files: string[]): Promise<Truth[]> {
  const program = `
import ast, json, sys, collections
root = sys.argv[1]
files = [l for l in sys.stdin.read().split("\\n") if l]
defs = collections.defaultdict(list)
calls = collections.defaultdict(list)
for rel in files:
    try:
        tree = ast.parse(open(root + "/" + rel, encoding="utf-8").read(), rel)
    except Exception:
        continue
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[n.name].append((rel, "function"))
        elif isinstance(n, ast.ClassDef):
            defs[n.name].append((rel, "class"))
        elif isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name):
                calls[f.id].append("%s:%d" % (rel, f.lineno))
            elif isinstance(f, ast.Attribute):
                calls[f.attr].append("%s:%d" % (rel, f.end_lineno))
out = []
for name, ds in defs.items():
    if len(ds) == 1 and ds[0][1] == "function" and calls.get(name):
        out.append({"name": name, "path": ds[0][0], "sites": calls[name]})
json.dump(out, sys.stdout)
`;
  const child = new Deno.Command("python3", {
    args: ["-c", program, root],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(files.join("\n") + "\n"));
  await w.close();
  const out = await child.output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** Go source with comments, strings, runes and raw strings blanked (newlines kept). */
function goCodeOnly(src: string): string {
  const out = src.split("");
  let i = 0;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to && k < out.length; k++) if (out[k] !== "\n") out[k] = " ";
  };
  while (i < src.length) {
    const c = src[i];
    if (c === "/" && src[i + 1] === "/") {
      const e = src.indexOf("\n", i);
      const end = e < 0 ? src.length : e;
      blank(i, end);
      i = end;
    } else if (c === "/" && src[i + 1] === "*") {
      const e = src.indexOf("*/", i + 2);
      const end = e < 0 ? src.length : e + 2;
      blank(i, end);
      i = end;
    } else if (c === "`") {
      const e = src.indexOf("`", i + 1);
      const end = e < 0 ? src.length : e + 1;
      blank(i, end);
      i = end;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== "\n") j += src[j] === "\\" ? 2 : 1;
      blank(i, j + 1);
      i = j + 1;
    } else i++;
  }
  return out.join("");
}

/** Go approximate oracle: `Name(` outside comments and strings, minus `func Name(`. */
function goTruth(db: Db, root: string, files: string[]): Truth[] {
  const unique = db.prepare(
    `SELECT name, min(path) AS path FROM symbols WHERE language = 'go' GROUP BY name
      HAVING count(*) = 1 AND min(kind) = 'function' AND max(kind) = 'function'`,
  ).all() as { name: string; path: string }[];
  const wanted = new Map(unique.map((u) => [u.name, { ...u, sites: [] as string[] }]));
  const re = /(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)\(/g;
  for (const rel of files) {
    let text: string;
    try {
      text = goCodeOnly(Deno.readTextFileSync(join(root, rel)));
    } catch {
      continue;
    }
    const lines = text.split("\n");
    for (let l = 0; l < lines.length; l++) {
      for (const m of lines[l].matchAll(re)) {
        const t = wanted.get(m[1]);
        if (!t) continue;
        if (/\bfunc\s*$/.test(lines[l].slice(0, m.index))) continue; // the definition
        t.sites.push(`${rel}:${l + 1}`);
      }
    }
  }
  return [...wanted.values()].filter((t) => t.sites.length > 0);
}

/** Multiset comparison of call sites. */
function compare(truth: string[], got: string[]): { tp: number; missed: string[]; extra: string[] } {
  const want = new Map<string, number>();
  for (const s of truth) want.set(s, (want.get(s) ?? 0) + 1);
  let tp = 0;
  const extra: string[] = [];
  for (const s of got) {
    const n = want.get(s) ?? 0;
    if (n > 0) {
      tp++;
      want.set(s, n - 1);
    } else extra.push(s);
  }
  const missed = [...want.entries()].flatMap(([s, n]) => Array(n).fill(s) as string[]);
  return { tp, missed, extra };
}

/** Bytes of the reference tables and of everything else (pages, from dbstat). */
function sizes(db: Db): { refBytes: number; otherBytes: number; refs: number } {
  const rows = db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all() as {
    name: string;
    bytes: number;
  }[];
  const isRef = (n: string) =>
    n === "refs" || n === "refs_name" || n === "ref_file_names" || n === "ref_names" || n.includes("ref_names");
  const refBytes = rows.filter((r) => isRef(r.name)).reduce((a, r) => a + Number(r.bytes), 0);
  const otherBytes = rows.filter((r) => !isRef(r.name)).reduce((a, r) => a + Number(r.bytes), 0);
  const refs = Number((db.prepare("SELECT count(*) AS n FROM refs").get() as { n: number }).n);
  return { refBytes, otherBytes, refs };
}

for (const root of roots) {
  let db = findIndex(values.home!, root);
  if (!db || values.reindex) {
    db?.close();
    const secs = await indexRoot(values.home!, root, values.reindex!);
    console.log(`${root}: indexed in ${secs.toFixed(1)} s`);
    db = findIndex(values.home!, root);
    if (!db) throw new Error(`no index for ${root} after indexing`);
  }
  const langs = db.prepare("SELECT language, count(*) AS n FROM files GROUP BY language ORDER BY n DESC").all() as {
    language: string;
    n: number;
  }[];
  const language = langs[0]?.language;
  const files = (db.prepare("SELECT path FROM files WHERE language = ? ORDER BY path").all(language) as {
    path: string;
  }[]).map((f) => f.path);
  let truth: Truth[];
  if (language === "python") truth = await pythonTruth(root, files);
  else if (language === "go") {
    await goOracleReport(db, root, {
      seed: values.seed!,
      sample: Number(values["go-sample"]),
      graphs: Number(values["go-graphs"]),
      misses: Number(values.misses),
    });
    truth = goTruth(db, root, files);
  } else if (language === "typescript" || language === "tsx") {
    db.close();
    await oracleScript("references_ts.ts", [
      "--home",
      values.home!,
      "--seed",
      values.seed!,
      "--show",
      values.misses!,
      root,
    ]);
    continue;
  } else {
    console.log(`${root}: no oracle for ${language}; skipped`);
    continue;
  }
  truth.sort((a, b) => stableOrder(a.name) - stableOrder(b.name) || (a.name < b.name ? -1 : 1));
  const sample = truth.slice(0, SAMPLE);
  let tp = 0, oracle = 0, found = 0, perfect = 0, skipped = 0;
  let tpAll = 0, foundAll = 0; // with candidates included
  const firstPage: number[] = [];
  const misses: string[] = [];
  const extras: string[] = [];
  for (const t of sample) {
    const got = cruxeCalls(db, t.name, t.path);
    if (!got) {
      skipped++;
      continue;
    }
    firstPage.push(got.firstMs);
    const c = compare(t.sites, got.sites);
    tp += c.tp;
    oracle += t.sites.length;
    found += got.sites.length;
    if (!c.missed.length && !c.extra.length) perfect++;
    for (const m of c.missed) misses.push(`${t.name} missed at ${m}`);
    for (const x of c.extra) extras.push(`${t.name} extra at ${x}`);
    const all = cruxeCalls(db, t.name, t.path, true)!;
    tpAll += compare(t.sites, all.sites).tp;
    foundAll += all.sites.length;
  }
  // Latency of an agent's first call (no kind filter, default page) and of a depth-2 call graph.
  const agentFirst: number[] = [];
  const graph: number[] = [];
  for (const t of sample.slice(0, 200)) {
    let t0 = performance.now();
    try {
      findReferences(db, { symbol_name: t.name, path: t.path });
    } catch { /* ambiguous in that file: not timed */ }
    agentFirst.push(performance.now() - t0);
    t0 = performance.now();
    try {
      getCallGraph(db, { symbol_name: t.name, path: t.path, depth: 2, direction: "both" });
    } catch { /* as above */ }
    graph.push(performance.now() - t0);
  }
  const kind = language === "python" ? "exact (ast)" : "approximate (Name( outside comments/strings)";
  const s = sizes(db);
  const pct = (x: number) => (100 * x).toFixed(1) + "%";
  if (language === "python") {
    console.log(`${root} [${language}, oracle ${kind}]: ${sample.length} unique functions, ${skipped} skipped`);
    console.log(`  call sites: oracle ${oracle}, find_references ${found}, matched ${tp}, functions exact ${perfect}`);
    console.log(`  default answer: recall ${pct(oracle ? tp / oracle : 1)}  precision ${pct(found ? tp / found : 1)}`);
    console.log(
      `  with candidates: recall ${pct(oracle ? tpAll / oracle : 1)}  precision ${
        pct(foundAll ? tpAll / foundAll : 1)
      }`,
    );
  } else console.log(`${root} latency over ${sample.length} unique function names (${kind}):`);
  console.log(
    `  find_references first page p50 ${percentile(agentFirst, 0.5).toFixed(2)} ms p95 ${
      percentile(agentFirst, 0.95).toFixed(2)
    } ms (calls only, 500/page: p95 ${percentile(firstPage, 0.95).toFixed(2)} ms)`,
  );
  console.log(
    `  get_call_graph depth 2 p50 ${percentile(graph, 0.5).toFixed(2)} ms p95 ${percentile(graph, 0.95).toFixed(2)} ms`,
  );
  console.log(
    `  reference index: ${s.refs} references, ${(s.refBytes / Math.max(1, s.refs)).toFixed(1)} bytes/reference, ` +
      `${(s.refBytes / 1048576).toFixed(1)} MiB = +${pct(s.refBytes / s.otherBytes)} over the rest of the index ` +
      `(${(s.otherBytes / 1048576).toFixed(1)} MiB)`,
  );
  const n = Number(values.misses);
  if (language === "python") {
    for (const m of misses.slice(0, n)) console.log("  " + m);
    for (const x of extras.slice(0, n)) console.log("  " + x);
  }
  db.close();
  if (language === "python" && Number(values["jedi-sites"]) > 0) {
    await oracleScript("references_jedi.ts", [
      "--home",
      values.home!,
      "--sites",
      values["jedi-sites"]!,
      "--graph-roots",
      values["graph-roots"]!,
      "--show",
      values.misses!,
      root,
    ]);
  }
}
