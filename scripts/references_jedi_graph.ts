/**
 * get_call_graph on Python against jedi: for `roots` functions (defined once
 * in the tree, sampled in a stable order), jedi's `goto` on each call inside a
 * function gives its callees, and on each call site spelling a function's
 * name, its callers (the innermost function or class around the site), two
 * levels out. Calls jedi cannot resolve are unknown: an edge of Cruxe's on
 * such a line only is not judged. Names with more call sites than `--site-cap`
 * are not expanded as callers (their callers stay unknown).
 */
import type { Db } from "../src/state/db.ts";
import { callGraphReport, type CallOracle } from "./references_graph.ts";

const PROGRAM = `
import ast, json, sys, collections, os
import jedi
root, nroots, cap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
files = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs if f.endswith(".py"))
defs = {}            # key "rel:line:name" -> (rel, line, end, name)
by_name = collections.defaultdict(list)
sites = collections.defaultdict(list)   # callee name -> [(rel, line, col, enclosing key or None)]
inside = collections.defaultdict(list)  # def key -> [(rel, line, col, name)] every call in its lines
trees = {}
def key(rel, n): return "%s:%d:%s" % (rel, n.lineno, n.name)
for rel in files:
    try:
        tree = ast.parse(open(os.path.join(root, rel), encoding="utf-8").read(), rel)
    except Exception:
        continue
    stack = []
    def visit(n, enclosing):
        for c in ast.iter_child_nodes(n):
            e = enclosing
            if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                k = key(rel, c)
                defs[k] = (rel, c.lineno, c.end_lineno, c.name, isinstance(c, ast.ClassDef))
                by_name[c.name].append(k)
                e = enclosing + [k]
            if isinstance(c, ast.Call):
                f = c.func
                if isinstance(f, ast.Name):
                    site = (rel, f.lineno, f.col_offset, f.id)
                elif isinstance(f, ast.Attribute):
                    site = (rel, f.end_lineno, f.end_col_offset - len(f.attr), f.attr)
                else:
                    site = None
                if site:
                    sites[site[3]].append((site[0], site[1], site[2], e[-1] if e else None))
                    for i, k in enumerate(e):
                        # A class calls what its body and its __init__ call, not what its methods do.
                        if defs[k][4] and not (i == len(e) - 1 or (i == len(e) - 2 and defs[e[-1]][3] == "__init__")):
                            continue
                        inside[k].append(site)
            visit(c, e)
    visit(tree, [])
def order(s):
    x = 0x811c9dc5
    for ch in s:
        x = ((x ^ ord(ch)) * 0x01000193) & 0xffffffff
    return x
STUBS = "/django-stubs/django-stubs/"
project = jedi.Project(root, added_sys_path=[os.path.dirname(root)])
scripts = {}
resolved = {}
unknown = set()
def goto(rel, line, col):
    k = (rel, line, col)
    if k in resolved:
        return resolved[k]
    try:
        if rel not in scripts:
            if len(scripts) > 200:
                scripts.clear()
            scripts[rel] = jedi.Script(open(os.path.join(root, rel), encoding="utf-8").read(), path=os.path.join(root, rel), project=project)
        got = scripts[rel].goto(line, col, follow_imports=True)
    except Exception:
        got = []
    out = []
    for d in got:
        p = str(d.module_path) if d.module_path else ""
        if d.type not in ("function", "class"):
            continue
        if STUBS in p:
            # jedi's bundled Django stubs: the same module's definition of that name in the tree.
            rel = p[p.index(STUBS) + len(STUBS):-1]
            ks = [k for k in by_name.get(d.name, []) if defs[k][0] == rel]
            if len(ks) == 1:
                out.append(ks[0])
        elif p.startswith(root):
            out.append("%s:%d:%s" % (os.path.relpath(p, root), d.line, d.name))
    if not got:
        unknown.add("%s:%d" % (rel, line))
    resolved[k] = out
    return out
def callees(k):
    out = set()
    for rel, line, col, name in inside.get(k, []):
        for t in goto(rel, line, col):
            if t in defs and t != k:
                out.add(t)
    return sorted(out)
capped = set()
def callers(k):
    name = defs[k][3]
    if len(sites[name]) > cap:
        capped.add(k)
        return []
    out = set()
    for rel, line, col, enc in sites[name]:
        if enc and k in goto(rel, line, col) and enc != k:
            out.add(enc)
    return sorted(out)
names = sorted((n for n, ks in by_name.items() if len(ks) == 1 and not defs[ks[0]][3][0].isupper()
                and 0 < len(sites.get(n, [])) <= cap), key=lambda n: (order(n), n))
roots = [by_name[n][0] for n in names[:nroots]]
rel_out, rel_in = {}, {}
def walk(root, rel, step):
    frontier = [root]
    for depth in range(2):
        nxt = []
        for k in frontier:
            if k not in rel:
                rel[k] = step(k)
                nxt += rel[k]
        frontier = nxt
for r in roots:
    walk(r, rel_out, callees)
    walk(r, rel_in, callers)
json.dump({"roots": roots, "callees": rel_out, "callers": rel_in, "unknown": sorted(unknown),
           "capped": sorted(capped), "defs": {k: list(v) for k, v in defs.items() if k in rel_out or k in rel_in
           or any(k in x for x in rel_out.values()) or any(k in x for x in rel_in.values())}}, sys.stdout)
`;

interface JediGraph {
  roots: string[];
  callees: Record<string, string[]>;
  callers: Record<string, string[]>;
  unknown: string[];
  capped: string[];
  defs: Record<string, [string, number, number, string, boolean]>;
}

/** Runs the jedi call oracle over `root` and prints the call-graph report for the index `db`. */
export async function jediCallGraphReport(
  db: Db,
  root: string,
  opts: { roots: number; siteCap: number; show: number },
): Promise<void> {
  const t0 = performance.now();
  const out = await new Deno.Command("python3", {
    args: ["-c", PROGRAM, root, String(opts.roots), String(opts.siteCap)],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error("the jedi call oracle failed");
  const g = JSON.parse(new TextDecoder().decode(out.stdout)) as JediGraph;
  if (Deno.env.get("JEDI_GRAPH_DUMP")) Deno.writeTextFileSync(Deno.env.get("JEDI_GRAPH_DUMP")!, JSON.stringify(g));
  const symbolOf = db.prepare(
    `SELECT symbol_id FROM symbols WHERE path = ? AND name = ? AND line_start <= ?3 AND line_end >= ?3
      ORDER BY line_end - line_start LIMIT 1`,
  );
  const toId = new Map<string, string>();
  const fromId = new Map<string, string>();
  const idOf = (k: string): string | null => {
    if (!toId.has(k)) {
      const [path, line, name] = [k.slice(0, k.indexOf(":")), Number(k.split(":").at(-2)), k.split(":").at(-1)!];
      const r = symbolOf.get(path, name, line) as { symbol_id: string } | undefined;
      toId.set(k, r?.symbol_id ?? "");
      if (r) fromId.set(r.symbol_id, k);
    }
    return toId.get(k) || null;
  };
  const map = (ks: string[] | undefined) => (ks ?? []).map(idOf).filter((x): x is string => !!x);
  const roots = g.roots.map(idOf).filter((x): x is string => !!x);
  for (const k of [...Object.keys(g.callees), ...Object.keys(g.callers)]) idOf(k);
  const unknown = new Set(g.unknown);
  const capped = new Set(g.capped.map(idOf));
  const row = db.prepare("SELECT symbol_id, kind, parent_id, path FROM symbols WHERE symbol_id = ?");
  const parent = db.prepare("SELECT symbol_id, kind, parent_id, path FROM symbols WHERE id = ?");
  type Row = { symbol_id: string; kind: string; parent_id: number | null; path: string };
  // Callers are functions, methods and classes (a call in a class attribute's value is the class's).
  const canon = (id: string): string => {
    let r = row.get(id) as Row | undefined;
    for (let i = 0; r && i < 8 && !["function", "method", "class"].includes(r.kind); i++) {
      r = r.parent_id === null ? undefined : parent.get(r.parent_id) as Row | undefined;
    }
    return r?.symbol_id ?? "";
  };
  const oracle: CallOracle = {
    callees: (id) => map(g.callees[fromId.get(id) ?? ""]),
    callers: (id) => map(g.callers[fromId.get(id) ?? ""]),
    known: (edge, direction) => {
      if (direction === "callers" && capped.has(edge.to)) return false;
      const r = row.get(edge.from) as Row | undefined;
      return !!r && edge.lines.every((l) => !unknown.has(`${r.path}:${l}`));
    },
    describe: (id) => fromId.get(id) ?? id,
    canon,
  };
  console.log(
    `  call graphs against jedi (${roots.length} functions, ${Object.keys(g.callees).length} callee and ` +
      `${Object.keys(g.callers).length} caller expansions, ${unknown.size} call lines jedi could not resolve, ` +
      `${((performance.now() - t0) / 1000).toFixed(0)} s):`,
  );
  callGraphReport(db, roots, oracle, opts.show);
}
