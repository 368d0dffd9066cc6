/**
 * find_references on TypeScript against the TypeScript compiler's language
 * service (`findReferences`) as the oracle: ROOT is indexed into the home,
 * every `.ts` file under it forms one program, and `--sample` exported
 * functions, classes and methods of exported classes are drawn in a stable
 * pseudo-random order (`--seed`), half of them methods whose name more than
 * one declaration shares. For each, the lines the compiler says use it (its
 * declaration left out) are the truth; the lines find_references gives are
 * compared to them. Prints recall and precision of the default answer and with
 * candidates, overall and per label (function, class, method, shared method),
 * then the uses missed and the answers the compiler disagrees with.
 *
 * Usage: deno run -A scripts/references_ts.ts [--home DIR] [--sample N] [--seed S] [--show N] ROOT
 */
import { parseArgs } from "node:util";
import { join, relative } from "node:path";
import ts from "typescript";
import { findIndex } from "./find_index.ts";
import { languageService, tsFiles } from "./ts_program.ts";
import { printLabelsAndSamples, ratio } from "./references_report.ts";
import { findReferences, type FindReferencesResult, type Reference } from "../src/query/find_references.ts";
import { callGraphReport, type CallOracle } from "./references_graph.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    home: { type: "string", default: "/tmp/cruxe-refs-ts" },
    sample: { type: "string", default: "60" },
    seed: { type: "string", default: "1" },
    show: { type: "string", default: "10" },
  },
});
const root = positionals[0];
if (!root) throw new Error("usage: references_ts.ts [--home DIR] [--sample N] [--seed S] ROOT");
const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** A stable pseudo-random order (FNV-1a of the key). */
function order(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const index = await new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", MAIN, "index", "--path", root, "--force"],
  env: { CRUXE_HOME: values.home! },
  stdout: "piped",
  stderr: "piped",
}).output();
if (!index.success) throw new Error(`cruxe index failed: ${new TextDecoder().decode(index.stderr)}`);

const files = tsFiles(root);
const { service, program, texts } = languageService(root, files);

interface Target {
  label: "function" | "class" | "method" | "shared method";
  name: string;
  file: string;
  line: number;
  pos: number;
}

const exported = (n: ts.Node) =>
  ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const all: Target[] = [];
const methodCount = new Map<string, number>();
for (const file of files) {
  const sf = program.getSourceFile(file)!;
  const at = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st) && st.name && exported(st)) {
      all.push({ label: "function", name: st.name.text, file, line: at(st.name), pos: st.name.getStart(sf) });
    } else if (ts.isClassDeclaration(st) && st.name) {
      if (exported(st)) {
        all.push({ label: "class", name: st.name.text, file, line: at(st.name), pos: st.name.getStart(sf) });
      }
      for (const m of st.members) {
        if (!ts.isMethodDeclaration(m) || !m.name || !ts.isIdentifier(m.name)) continue;
        methodCount.set(m.name.text, (methodCount.get(m.name.text) ?? 0) + 1);
        if (!exported(st)) continue;
        all.push({ label: "method", name: m.name.text, file, line: at(m.name), pos: m.name.getStart(sf) });
      }
    }
  }
}
for (const t of all) if (t.label === "method" && (methodCount.get(t.name) ?? 0) > 1) t.label = "shared method";
const ranked = all.sort((a, b) =>
  order(values.seed + a.file + a.name) - order(values.seed + b.file + b.name) || a.pos - b.pos
);
const want = Number(values.sample);
const shared = ranked.filter((t) => t.label === "shared method").slice(0, Math.floor(want / 2));
const sample = [...shared, ...ranked.filter((t) => t.label !== "shared method").slice(0, want - shared.length)];

const db = findIndex(values.home!, root);
if (!db) throw new Error(`no index of ${root} in ${values.home}`);
const flat = (r: FindReferencesResult): Reference[] =>
  r.references ?? r.files!.flatMap((f) => f.references.map((x) => ({ ...x, path: f.path }) as Reference));

/** Every line find_references gives the definition at `path:line`, with its best resolution. */
function answers(path: string, name: string, line: number): Map<string, string> | null {
  const got = new Map<string, string>();
  const row = db!.prepare(
    "SELECT symbol_id FROM symbols WHERE path = ? AND name = ? AND line_start <= ?3 AND line_end >= ?3 ORDER BY line_start DESC",
  ).get(path, name, line) as { symbol_id: string } | undefined;
  if (!row) return null;
  const rank = (r: string | undefined) => r === "exact" || r === "import" ? 2 : r ? 1 : 0;
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const r = findReferences(db!, { symbol_id: row.symbol_id, include_candidates: true, limit: 500, cursor });
    for (const x of flat(r)) {
      const key = `${x.path}:${x.line}`;
      if (rank(x.resolution) > rank(got.get(key))) got.set(key, x.resolution);
    }
    cursor = r.next_cursor ?? undefined;
    if (!cursor) break;
  }
  return got;
}

interface Tally {
  uses: number;
  found: number;
  wrong: number;
  foundAll: number;
  wrongAll: number;
}
const tallies = new Map<string, Tally>();
const tally = (k: string) =>
  tallies.get(k) ?? tallies.set(k, { uses: 0, found: 0, wrong: 0, foundAll: 0, wrongAll: 0 }).get(k)!;
/** Per resolution label: answers the compiler confirms and answers it does not. */
const labels = new Map<string, { right: number; wrong: number }>();
const missed: string[] = [];
const disagreed: string[] = [];
let unmatched = 0;
const inProgram = new Set(files.map((f) => relative(root, f)));
for (const t of sample) {
  const path = relative(root, t.file);
  const got = answers(path, t.name, t.line);
  if (!got) {
    unmatched++;
    continue;
  }
  const truth = new Set<string>();
  for (const s of service.findReferences(t.file, t.pos) ?? []) {
    for (const r of s.references) {
      if (r.isDefinition) continue;
      const sf = program.getSourceFile(r.fileName);
      if (!sf || !texts.has(r.fileName)) continue;
      truth.add(`${relative(root, r.fileName)}:${sf.getLineAndCharacterOfPosition(r.textSpan.start).line + 1}`);
    }
  }
  truth.delete(`${path}:${t.line}`);
  got.delete(`${path}:${t.line}`);
  for (const k of ["all", t.label]) {
    const c = tally(k);
    c.uses += truth.size;
    for (const [site, res] of got) {
      if (!inProgram.has(site.slice(0, site.lastIndexOf(":")))) continue;
      const use = truth.has(site);
      const resolved = res === "exact" || res === "import";
      if (resolved) use ? c.found++ : c.wrong++;
      use ? c.foundAll++ : c.wrongAll++;
      if (k === "all" && resolved && !use) disagreed.push(`${t.name} (${path}:${t.line}) ${site} ${res}`);
      if (k === "all") {
        const l = labels.get(res) ?? labels.set(res, { right: 0, wrong: 0 }).get(res)!;
        use ? l.right++ : l.wrong++;
      }
    }
    for (const site of truth) {
      if (k === "all" && !["exact", "import"].includes(got.get(site) ?? "")) {
        missed.push(`${t.name} (${path}:${t.line}) ${site} ${got.get(site) ?? "absent"}`);
      }
    }
  }
}
console.log(
  `${root}: ${files.length} TypeScript files, ${sample.length} sampled definitions (seed ${values.seed}), ` +
    `${unmatched} not found in the index`,
);
for (const [k, c] of [...tallies].sort(([a], [b]) => a === "all" ? -1 : b === "all" ? 1 : a < b ? -1 : 1)) {
  console.log(
    `  ${k.padEnd(14)} ${String(c.uses).padStart(5)} uses  default: recall ${ratio(c.found, c.uses)} precision ${
      ratio(c.found, c.found + c.wrong)
    }  with candidates: recall ${ratio(c.foundAll, c.uses)} precision ${ratio(c.foundAll, c.foundAll + c.wrongAll)}`,
  );
}
const n = Number(values.show);
printLabelsAndSamples(labels, disagreed, missed, n);

/**
 * The language service's call hierarchy as the call oracle: outgoing and incoming calls of a symbol, each end
 * mapped to the index's symbol of that name spanning the item's name (calls from a file's top level have none).
 */
function hierarchyOracle(): CallOracle {
  const rowOf = db!.prepare(
    `SELECT symbol_id FROM symbols WHERE path = ? AND name = ? AND line_start <= ?3 AND line_end >= ?3
      ORDER BY line_end - line_start LIMIT 1`,
  );
  const bySymbol = db!.prepare("SELECT path, name, line_start, line_end FROM symbols WHERE symbol_id = ?");
  const idOf = (item: ts.CallHierarchyItem): string | null => {
    if (!texts.has(item.file)) return null;
    const sf = program.getSourceFile(item.file)!;
    const line = sf.getLineAndCharacterOfPosition(item.selectionSpan.start).line + 1;
    const r = rowOf.get(relative(root, item.file), item.name, line) as { symbol_id: string } | undefined;
    return r?.symbol_id ?? null;
  };
  const described = new Map<string, string>();
  /** The call hierarchy item of a symbol: prepared at the first spelling of its name in its lines. */
  const itemOf = (id: string): ts.CallHierarchyItem | null => {
    const s = bySymbol.get(id) as { path: string; name: string; line_start: number; line_end: number } | undefined;
    if (!s) return null;
    const file = join(root, s.path);
    const sf = program.getSourceFile(file);
    if (!sf) return null;
    const lines = texts.get(file)!.split("\n");
    for (let l = s.line_start; l <= Math.min(s.line_end, s.line_start + 20); l++) {
      const col = (lines[l - 1] ?? "").search(new RegExp(`(?<![\\w$])${s.name.replace(/\$/g, "\\$")}(?![\\w$])`));
      if (col < 0) continue;
      const prepared = service.prepareCallHierarchy(file, sf.getPositionOfLineAndCharacter(l - 1, col));
      const item = Array.isArray(prepared) ? prepared[0] : prepared;
      if (item) return item;
    }
    return null;
  };
  // The call hierarchy names a class for the calls in its constructor, and the function around a variable;
  // calls at a file's top level have no caller.
  const symbolRow = db!.prepare("SELECT symbol_id, kind, parent_id FROM symbols WHERE symbol_id = ?");
  const parentRow = db!.prepare("SELECT symbol_id, kind, parent_id FROM symbols WHERE id = ?");
  type Row = { symbol_id: string; kind: string; parent_id: number | null };
  // A function that is a variable's or a property's value (`const o = { f: () => … }`) is no item of its own.
  const canon = (id: string): string => {
    let r = symbolRow.get(id) as Row | undefined;
    for (let i = 0; r && i < 8; i++) {
      const p = r.parent_id === null ? undefined : parentRow.get(r.parent_id) as Row | undefined;
      const named = r.kind === "class" ||
        (r.kind === "method" && ["class", "interface"].includes(p?.kind ?? "")) ||
        (r.kind === "function" && !["variable", "constant", "property", "field"].includes(p?.kind ?? ""));
      if (named) break;
      r = p;
    }
    return r?.symbol_id ?? "";
  };
  const enclosingRow = db!.prepare(
    `SELECT symbol_id FROM symbols WHERE path = ? AND line_start <= ?2 AND line_end >= ?2
      ORDER BY line_end - line_start LIMIT 1`,
  );
  const lineOf = (item: ts.CallHierarchyItem) =>
    program.getSourceFile(item.file)!.getLineAndCharacterOfPosition(item.selectionSpan.start).line + 1;
  /** An item no symbol of the index is (a local function): the symbol around it. */
  const around = (item: ts.CallHierarchyItem): string | null =>
    texts.has(item.file)
      ? (enclosingRow.get(relative(root, item.file), lineOf(item)) as { symbol_id: string } | undefined)
        ?.symbol_id ?? null
      : null;
  const memo = new Map<string, string[]>();
  /** Outgoing calls of `item`, through the local functions inside it that the index has no symbol for. */
  const outgoing = (item: ts.CallHierarchyItem, out: Set<string>, level: number) => {
    for (const c of service.provideCallHierarchyOutgoingCalls(item.file, item.selectionSpan.start)) {
      const x = idOf(c.to);
      if (x) {
        out.add(canon(x));
        described.set(canon(x), `${c.to.name} (${relative(root, c.to.file)})`);
      } else if (
        level < 3 && c.to.file === item.file && c.to.span.start >= item.span.start &&
        c.to.span.start + c.to.span.length <= item.span.start + item.span.length
      ) outgoing(c.to, out, level + 1);
    }
  };
  /**
   * The named functions declared inside `item` that the index has no symbol for (`const search = async () => …`):
   * the call hierarchy gives them their own calls, which the index counts as the enclosing symbol's, as the
   * callers above count calls from them.
   */
  const localFunctions = (item: ts.CallHierarchyItem): ts.CallHierarchyItem[] => {
    const sf = program.getSourceFile(item.file);
    if (!sf) return [];
    const out: ts.CallHierarchyItem[] = [];
    const end = item.span.start + item.span.length;
    const visit = (n: ts.Node) => {
      if (n.getEnd() <= item.span.start || n.getStart(sf) >= end) return;
      const name = ts.isVariableDeclaration(n) && n.initializer &&
          (ts.isArrowFunction(n.initializer) || ts.isFunctionExpression(n.initializer)) && ts.isIdentifier(n.name)
        ? n.name
        : ts.isFunctionDeclaration(n) && n.name
        ? n.name
        : undefined;
      const start = name?.getStart(sf) ?? -1;
      if (name && start > item.selectionSpan.start && start < end) {
        const line = sf.getLineAndCharacterOfPosition(start).line + 1;
        if (!rowOf.get(relative(root, item.file), name.text, line)) {
          const prepared = service.prepareCallHierarchy(item.file, start);
          const local = Array.isArray(prepared) ? prepared[0] : prepared;
          if (local) out.push(local);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
    return out;
  };
  const ends = (id: string, way: "in" | "out"): string[] => {
    const key = way + id;
    if (memo.has(key)) return memo.get(key)!;
    const item = itemOf(id);
    const out = new Set<string>();
    if (item && way === "out") {
      outgoing(item, out, 0);
      for (const local of localFunctions(item)) outgoing(local, out, 1);
    } else if (item) {
      for (const c of service.provideCallHierarchyIncomingCalls(item.file, item.selectionSpan.start)) {
        const x = idOf(c.from) ?? around(c.from);
        if (x) out.add(canon(x)), described.set(canon(x), `${c.from.name} (${relative(root, c.from.file)})`);
      }
    }
    out.delete("");
    out.delete(canon(id));
    memo.set(key, [...out]);
    return memo.get(key)!;
  };
  return {
    callees: (id) => ends(id, "out"),
    callers: (id) => ends(id, "in"),
    describe: (id) => described.get(id) ?? id,
    canon,
  };
}

const graphRoots: string[] = [];
for (const t of sample) {
  if (t.label === "class") continue;
  const row = db.prepare(
    "SELECT symbol_id FROM symbols WHERE path = ? AND name = ? AND line_start <= ?3 AND line_end >= ?3 ORDER BY line_start DESC",
  ).get(relative(root, t.file), t.name, t.line) as { symbol_id: string } | undefined;
  if (row) graphRoots.push(row.symbol_id);
}
console.log(
  `  call graphs against the language service's call hierarchy (${graphRoots.length} functions and methods):`,
);
callGraphReport(db, graphRoots, hierarchyOracle(), n);
db.close();
