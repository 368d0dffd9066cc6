/**
 * find_references on Python against jedi (`Script.goto`) as the oracle:
 * for the functions and methods defined once in the tree (in a stable
 * pseudo-random order), every `x.m(...)` call site is asked of jedi until
 * `--sites` are read. A site jedi resolves to the definition is a use; one it
 * resolves elsewhere is not; one it cannot resolve is left out. Prints the
 * recall and precision of the default answer and with candidates, then the
 * uses missed and the answers jedi disagrees with; then get_call_graph callees
 * and callers at depth 1 and 2 against jedi (scripts/references_jedi_graph.ts).
 *
 * Usage: deno run -A scripts/references_jedi.ts [--home DIR] [--sites N] [--show N] [--graph-roots N]
 *   [--site-cap N] ROOT
 *   (ROOT must already be indexed in the home, e.g. by `deno task references-accuracy`; needs `python3` with jedi)
 */
import { parseArgs } from "node:util";
import { findIndex } from "./find_index.ts";
import { printLabelsAndSamples, ratio } from "./references_report.ts";
import { jediCallGraphReport } from "./references_jedi_graph.ts";
import { findReferences, type FindReferencesResult, type Reference } from "../src/query/find_references.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    home: { type: "string", default: "/tmp/cruxe-refs-bench" },
    sites: { type: "string", default: "3000" },
    show: { type: "string", default: "10" },
    "graph-roots": { type: "string", default: "30" },
    "site-cap": { type: "string", default: "150" },
  },
});
const root = positionals[0] ?? "/work/corpora/django";

const PROGRAM = `
import ast, json, sys, collections, os
import jedi
root, limit = sys.argv[1], int(sys.argv[2])
files = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs if f.endswith(".py"))
defs = collections.defaultdict(list)
calls = collections.defaultdict(list)
for rel in files:
    try:
        tree = ast.parse(open(os.path.join(root, rel), encoding="utf-8").read(), rel)
    except Exception:
        continue
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[n.name].append((rel, n.lineno))
        elif isinstance(n, ast.ClassDef):
            defs[n.name].append((rel, -1))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            f = n.func
            calls[f.attr].append((rel, f.end_lineno, f.end_col_offset - len(f.attr)))
def order(s):
    x = 0x811c9dc5
    for ch in s:
        x = ((x ^ ord(ch)) * 0x01000193) & 0xffffffff
    return x
names = sorted((n for n, d in defs.items() if len(d) == 1 and d[0][1] > 0 and calls.get(n)), key=lambda n: (order(n), n))
STUBS = "/django-stubs/django-stubs/"
def place(d):
    # jedi may answer with its bundled Django stubs: the same module's definition of that name in the tree.
    p = str(d.module_path)
    if STUBS in p:
        rel = p[p.index(STUBS) + len(STUBS):-1]
        ds = [x for x in defs.get(d.name, []) if x[0] == rel and x[1] > 0]
        if len(ds) == 1:
            return "%s:%d" % ds[0]
    return "%s:%d" % (os.path.relpath(p, root), d.line)
project = jedi.Project(root, added_sys_path=[os.path.dirname(root)])
out = []
for name in names:
    if len(out) >= limit:
        break
    path, line = defs[name][0]
    for rel, l, col in calls[name]:
        try:
            src = open(os.path.join(root, rel), encoding="utf-8").read()
            got = jedi.Script(src, path=os.path.join(root, rel), project=project).goto(l, col)
            to = [place(d) for d in got if d.module_path]
        except Exception:
            to = []
        out.append({"name": name, "path": path, "line": line, "site": "%s:%d" % (rel, l), "goto": to})
json.dump(out, sys.stdout)
`;

interface Site {
  name: string;
  path: string;
  line: number;
  site: string;
  goto: string[];
}

const child = await new Deno.Command("python3", { args: ["-c", PROGRAM, root, values.sites!], stderr: "inherit" })
  .output();
if (!child.success) throw new Error("the jedi oracle failed");
const sites = JSON.parse(new TextDecoder().decode(child.stdout)) as Site[];
const db = findIndex(values.home!, root);
if (!db) throw new Error(`no index of ${root} in ${values.home}; run deno task references-accuracy first`);

const flat = (r: FindReferencesResult): Reference[] =>
  r.references ?? r.files!.flatMap((f) => f.references.map((x) => ({ ...x, path: f.path }) as Reference));

/** Every call site find_references gives the definition at `path:line` (the symbol spanning it), by resolution. */
function answers(path: string, name: string, line: number): Map<string, string> {
  const got = new Map<string, string>();
  const row = db!.prepare(
    "SELECT symbol_id FROM symbols WHERE path = ? AND name = ? AND line_start <= ?3 AND line_end >= ?3 ORDER BY line_start DESC",
  ).get(path, name, line) as { symbol_id: string } | undefined;
  let cursor: string | undefined;
  for (let page = 0; row && page < 50; page++) {
    const r = findReferences(db!, {
      symbol_id: row.symbol_id,
      reference_kind: "call",
      include_candidates: true,
      limit: 500,
      cursor,
    });
    for (const x of flat(r)) got.set(`${x.path}:${x.line}`, x.resolution);
    cursor = r.next_cursor ?? undefined;
    if (!cursor) break;
  }
  return got;
}

const cache = new Map<string, Map<string, string>>();
let uses = 0, others = 0, unknown = 0, found = 0, wrong = 0, foundAll = 0, wrongAll = 0;
const missed: string[] = [];
const disagreed: string[] = [];
/** Per resolution label: answers jedi confirms and answers it does not. */
const labels = new Map<string, { right: number; wrong: number }>();
for (const s of sites) {
  const key = `${s.path}\0${s.name}`;
  if (!cache.has(key)) cache.set(key, answers(s.path, s.name, s.line));
  if (!s.goto.length) {
    unknown++;
    continue;
  }
  const res = cache.get(key)!.get(s.site);
  const truth = s.goto.includes(`${s.path}:${s.line}`);
  const resolved = res === "exact" || res === "import";
  if (truth) uses++;
  else others++;
  if (resolved) truth ? found++ : (wrong++, disagreed.push(`${s.name} ${s.site} ${res}, jedi: ${s.goto.join(" ")}`));
  else if (truth) missed.push(`${s.name} ${s.site} ${res ?? "absent"}`);
  if (res) truth ? foundAll++ : wrongAll++;
  if (res) {
    const l = labels.get(res) ?? labels.set(res, { right: 0, wrong: 0 }).get(res)!;
    truth ? l.right++ : l.wrong++;
  }
}
console.log(
  `${root}: ${sites.length} call sites; jedi resolves ${uses + others} (${uses} to the definition), not ${unknown}`,
);
console.log(`  default answer: recall ${ratio(found, uses)}  precision ${ratio(found, found + wrong)}`);
console.log(`  with candidates: recall ${ratio(foundAll, uses)}  precision ${ratio(foundAll, foundAll + wrongAll)}`);
const n = Number(values.show);
printLabelsAndSamples(labels, disagreed, missed, n);
if (Number(values["graph-roots"]) > 0) {
  await jediCallGraphReport(db, root, {
    roots: Number(values["graph-roots"]),
    siteCap: Number(values["site-cap"]),
    show: n,
  });
}
db.close();
