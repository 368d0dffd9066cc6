/**
 * find_references and get_call_graph on Go against Go's own type checker:
 * `scripts/go_oracle` (go/types over the packages below `net/` and all they
 * import, test files left out) says which lines use each package-level
 * object, method and type, and which function calls which. A seeded sample
 * of objects — methods whose name other definitions share (the hard case),
 * methods with a unique name, functions and types — is asked of the index;
 * use sites compare by file and line, call-graph nodes by definition line,
 * both within the files the oracle checked and Cruxe indexed (generated
 * files left out: Cruxe records no uses in them).
 */
import type { Db } from "../src/state/db.ts";
import { findReferences, type FindReferencesResult, type Reference } from "../src/query/find_references.ts";
import { getCallGraph } from "../src/query/call_graph.ts";

interface OracleObject {
  name: string;
  kind: "func" | "method" | "type" | "var" | "const" | "field";
  pkg: string;
  recv?: string;
  iface?: boolean;
  def: string;
  uses: string[];
  value_reads: number;
}

/** What `scripts/go_oracle` prints (see its comment). */
export interface Oracle {
  objects: OracleObject[];
  calls: Record<string, string[]>;
  files: string[];
  implements: Record<string, string[]>;
}

/** Runs the go/types oracle over `root` (a Go source tree laid out by import path). */
export async function runOracle(root: string, prefixes: string[]): Promise<Oracle> {
  const dir = new URL("./go_oracle", import.meta.url).pathname;
  const out = await new Deno.Command("go", {
    args: ["run", "main.go", root, ...prefixes],
    cwd: dir,
    env: { GO111MODULE: "off", GOFLAGS: "", GOPROXY: "off" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`go_oracle failed: ${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** A seeded stable order (FNV-1a of seed and key). */
function seeded(seed: string, key: string): number {
  let h = 0x811c9dc5;
  const s = seed + "\0" + key;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Counts for recall and precision. */
class Score {
  tp = 0;
  truth = 0;
  got = 0;
  add(truth: string[], got: string[]): number {
    const want = new Map<string, number>();
    for (const s of truth) want.set(s, (want.get(s) ?? 0) + 1);
    let tp = 0;
    for (const s of got) {
      const n = want.get(s) ?? 0;
      if (n > 0) {
        tp++;
        want.set(s, n - 1);
      }
    }
    this.tp += tp;
    this.truth += truth.length;
    this.got += got.length;
    return tp;
  }
  line(label: string): string {
    const f = (x: number) => x.toFixed(3);
    return `${label.padEnd(44)} recall ${this.truth ? f(this.tp / this.truth) : "  -  "}  precision ${
      this.got ? f(this.tp / this.got) : "  -  "
    }  (${this.tp} right of ${this.got} returned, ${this.truth} true)`;
  }
}

function flat(r: FindReferencesResult): Reference[] {
  return r.references ?? r.files!.flatMap((f) => f.references.map((x) => ({ ...x, path: f.path }) as Reference));
}

/** Every use find_references answers for one symbol, all pages. */
function allUses(db: Db, symbolId: string, candidates: boolean): Reference[] {
  const out: Reference[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 200; page++) {
    const r = findReferences(db, { symbol_id: symbolId, limit: 500, cursor, include_candidates: candidates });
    out.push(...flat(r));
    cursor = r.next_cursor ?? undefined;
    if (!cursor) break;
  }
  return out;
}

/** The Cruxe symbol an oracle object is: same file, same name, its definition line inside the symbol. */
function symbolFor(db: Db, o: OracleObject): { symbol_id: string; id: number } | null {
  const [path, line] = [o.def.slice(0, o.def.lastIndexOf(":")), Number(o.def.slice(o.def.lastIndexOf(":") + 1))];
  const r = db.prepare(
    `SELECT symbol_id, id FROM symbols WHERE path = ? AND name = ? AND line_start <= ? AND line_end >= ?
      ORDER BY line_end - line_start LIMIT 1`,
  ).get(path, o.name, line, line) as { symbol_id: string; id: number } | undefined;
  return r ?? null;
}

/** Nodes within `depth` steps of `from` along `next` (the start left out). */
function reach(from: string, next: (k: string) => string[], depth: number): Set<string> {
  const seen = new Set<string>([from]);
  let frontier = [from];
  for (let d = 0; d < depth; d++) {
    const n: string[] = [];
    for (const k of frontier) {
      for (const m of next(k)) if (!seen.has(m)) seen.add(m), n.push(m);
    }
    frontier = n;
  }
  seen.delete(from);
  return seen;
}

/** Prints the Go oracle report for the index of `root`. */
export async function goOracleReport(
  db: Db,
  root: string,
  opts: { seed: string; sample: number; graphs: number; misses: number; prefixes?: string[] },
): Promise<void> {
  const prefixes = opts.prefixes ?? ["net"];
  const t0 = performance.now();
  const oracle = await runOracle(root, prefixes);
  // Generated files (`Code generated … DO NOT EDIT.`, such as net/http/h2_bundle.go) give no occurrences by design:
  // their uses are not measured.
  const indexed = new Set(
    (db.prepare("SELECT path FROM files WHERE language = 'go' AND generated = 0").all() as { path: string }[])
      .map((r) => r.path),
  );
  const universe = new Set(oracle.files.filter((f) => indexed.has(f) && !f.endsWith("_test.go")));
  const inUniverse = (site: string) => universe.has(site.slice(0, site.lastIndexOf(":")));
  console.log(
    `${root} [go, oracle go/types over ${prefixes.join(", ")} and its imports, ${universe.size} files, ` +
      `${((performance.now() - t0) / 1000).toFixed(1)} s]`,
  );
  const nameCount = new Map<string, number>();
  for (
    const r of db.prepare("SELECT name, count(*) AS n FROM symbols WHERE language = 'go' GROUP BY name").all() as {
      name: string;
      n: number;
    }[]
  ) nameCount.set(r.name, Number(r.n));
  const measured = (o: OracleObject) =>
    prefixes.some((p) => o.pkg === p || o.pkg.startsWith(p + "/")) && inUniverse(o.def) &&
    o.uses.some(inUniverse);
  const pool = oracle.objects.filter(measured);
  const pick = (f: (o: OracleObject) => boolean, n: number) =>
    pool.filter(f).sort((a, b) => seeded(opts.seed, a.def) - seeded(opts.seed, b.def)).slice(0, n);
  const shared = (o: OracleObject) => (nameCount.get(o.name) ?? 0) > 1;
  const n = opts.sample;
  const groups: [string, OracleObject[]][] = [
    ["methods whose name is shared", pick((o) => o.kind === "method" && shared(o), Math.round(n * 0.4))],
    ["methods with a unique name", pick((o) => o.kind === "method" && !shared(o), Math.round(n * 0.15))],
    ["functions and types", pick((o) => o.kind === "func" || o.kind === "type", n - Math.round(n * 0.55))],
  ];
  const all = new Score();
  const labels = new Map<string, Score>();
  const missed: string[] = [];
  const extra: string[] = [];
  let unmatched = 0;
  let valueReads = 0;
  for (const [label, objs] of groups) {
    const g = new Score();
    for (const o of objs) {
      const sym = symbolFor(db, o);
      if (!sym) {
        unmatched++;
        continue;
      }
      const truth = o.uses.filter(inUniverse);
      valueReads += o.value_reads;
      const def = allUses(db, sym.symbol_id, false).filter((r) => universe.has(r.path));
      const sites = def.map((r) => `${r.path}:${r.line}`);
      g.add(truth, sites);
      all.add(truth, sites);
      const want = new Set(truth);
      for (const s of truth) if (!sites.includes(s)) missed.push(`${o.recv ? o.recv + "." : ""}${o.name} missed ${s}`);
      for (const s of sites) if (!want.has(s)) extra.push(`${o.recv ? o.recv + "." : ""}${o.name} extra ${s}`);
      // Per label, over everything answered with candidates included.
      const withCands = allUses(db, sym.symbol_id, true).filter((r) => universe.has(r.path));
      for (const res of ["exact", "import", "candidate"]) {
        const got = withCands.filter((r) => r.resolution === res).map((r) => `${r.path}:${r.line}`);
        if (!labels.has(res)) labels.set(res, new Score());
        labels.get(res)!.add(truth, got);
      }
    }
    console.log("  " + g.line(`${label} (${objs.length})`));
  }
  console.log("  " + all.line(`references, default answer (${groups.reduce((a, [, o]) => a + o.length, 0)})`));
  for (const [res, s] of labels) console.log("  " + s.line(`  results labelled ${res}`));
  console.log(`  (${unmatched} sampled objects not found in the index; ${valueReads} plain value reads not counted)`);
  for (const m of missed.slice(0, opts.misses)) console.log("    " + m);
  for (const x of extra.slice(0, opts.misses)) console.log("    " + x);

  // Call graphs: functions and methods of the sample with calls in or out.
  const callers = new Map<string, string[]>();
  for (const [from, tos] of Object.entries(oracle.calls)) {
    for (const to of tos) (callers.get(to) ?? callers.set(to, []).get(to)!).push(from);
  }
  const inU = (xs: string[]) => xs.filter(inUniverse);
  const fns = pick(
    (o) => (o.kind === "func" || o.kind === "method") && (oracle.calls[o.def]?.length ?? 0) > 0,
    opts.graphs,
  );
  for (const direction of ["callees", "callers"] as const) {
    for (const depth of [1, 2]) {
      const s = new Score();
      const wrong: string[] = [];
      for (const o of fns) {
        const sym = symbolFor(db, o);
        if (!sym) continue;
        const next = (k: string) => inU(direction === "callees" ? oracle.calls[k] ?? [] : callers.get(k) ?? []);
        const truth = [...reach(o.def, next, depth)];
        const g = getCallGraph(db, { symbol_id: sym.symbol_id, direction, depth, max_nodes: 500 });
        const got = g.nodes.filter((x) => x.symbol_id !== sym.symbol_id).map((x) => `${x.path}:${x.line_start}`)
          .filter(inUniverse);
        s.add(truth, got);
        const want = new Set(truth);
        for (const x of got) if (!want.has(x)) wrong.push(`extra ${o.name}: ${x}`);
        const have = new Set(got);
        for (const x of truth) if (!have.has(x)) wrong.push(`missed ${o.name}: ${x}`);
      }
      console.log("  " + s.line(`${direction}, depth ${depth} (${fns.length} functions)`));
      for (const w of wrong.slice(0, opts.misses)) console.log("    " + w);
    }
  }
}
