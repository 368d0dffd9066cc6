/**
 * find_related_symbols' `calls` against a compiler's own resolution: for a
 * sample of functions and methods (the first `--sample` by symbol id) of a
 * root's majority language, every `calls` entry is checked at its call site.
 *
 * - Go: Go's type checker (`scripts/go_oracle` over the packages below
 *   `--go-packages`, and all they import): the entry is right when go/types
 *   says the function calls that definition; recall is over the callees
 *   go/types lists for the sampled functions.
 * - TypeScript: the compiler's language service, the definition of the called
 *   name at the call site (every `.ts` file under the root forms one program).
 * - Python: jedi's `goto` at the call site (`python3` with jedi).
 *
 * An entry the oracle resolves nowhere is counted apart; precision is over the
 * entries it resolves. Prints the counts and the first disagreements.
 *
 * Usage: deno run -A scripts/related_accuracy.ts [--home DIR] [--sample N] [--go-packages P,…] [--show N] ROOT
 * Needs read/write on the home, read on the root, and to run this Deno binary (and `go` or `python3`).
 */
import { parseArgs } from "node:util";
import { join, relative } from "node:path";
import { findIndex } from "./find_index.ts";
import { languageService, tsFiles } from "./ts_program.ts";
import { runOracle } from "./references_go_oracle.ts";
import { findRelatedSymbols } from "../src/query/related_symbols.ts";
import type { Db } from "../src/state/db.ts";
import { allRows } from "../src/state/read/rows.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    home: { type: "string", default: "/tmp/cruxe-related-bench" },
    sample: { type: "string", default: "400" },
    "go-packages": { type: "string", default: "net/http" },
    show: { type: "string", default: "8" },
  },
});
const root = positionals[0]?.replace(/\/$/, "");
if (!root) throw new Error("usage: related_accuracy.ts [--home DIR] [--sample N] [--go-packages P,…] ROOT");
const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** One `calls` entry: the call site (a line of the caller's file) and the definition it names. */
interface CallEntry {
  caller: string;
  file: string;
  line: number;
  name: string;
  to: { path: string; line: number };
}

/** How an oracle judged one entry. */
type Verdict = "agrees" | "elsewhere" | "unresolved";

async function indexed(): Promise<Db> {
  const existing = findIndex(values.home!, root!);
  if (existing) return existing;
  const run = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "index", "--path", root!],
    env: { CRUXE_HOME: values.home! },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!run.success) throw new Error(`cruxe index failed: ${new TextDecoder().decode(run.stderr)}`);
  return findIndex(values.home!, root!)!;
}

/** The root's majority language among the indexed files. */
function majority(db: Db): string {
  return allRows<{ language: string }>(
    db,
    "SELECT language, count(*) AS n FROM files GROUP BY language ORDER BY n DESC LIMIT 1",
  )[0].language;
}

/** The sampled functions' `calls` entries (`prefix`: only symbols under that directory). */
function entriesOf(db: Db, language: string, prefix: string): { entries: CallEntry[]; sampled: string[] } {
  const rows = allRows<{ symbol_id: string; path: string; line_start: number }>(
    db,
    `SELECT symbol_id, path, line_start FROM symbols WHERE language = ? AND kind IN ('function', 'method')
       AND path >= ? AND path < ? ORDER BY symbol_id LIMIT ?`,
    language,
    prefix,
    prefix + "\uffff",
    Number(values.sample),
  ).filter((r) => !/(^|\/)(tests?|testdata)\/|_test\.|\.test\./.test(r.path));
  const entries: CallEntry[] = [];
  for (const r of rows) {
    let answer;
    try {
      answer = findRelatedSymbols(db, { symbol_name: r.symbol_id, limit: 200 });
    } catch {
      continue;
    }
    for (const x of answer.related) {
      if (x.relation !== "calls" || x.line === undefined) continue;
      entries.push({
        caller: `${r.path}:${r.line_start}`,
        file: r.path,
        line: x.line,
        name: x.name,
        to: { path: x.path ?? answer.symbol.path, line: x.line_start },
      });
    }
  }
  return { entries, sampled: rows.map((r) => `${r.path}:${r.line_start}`) };
}

/** Go: the entry is right when go/types lists its definition among the caller's callees. */
async function judgeGo(entries: CallEntry[], sampled: string[]): Promise<{ verdicts: Verdict[]; recall: string }> {
  const oracle = await runOracle(root!, values["go-packages"]!.split(","));
  const verdicts = entries.map((e): Verdict => {
    const callees = oracle.calls[e.caller];
    if (!callees) return "unresolved";
    return callees.includes(`${e.to.path}:${e.to.line}`) ? "agrees" : "elsewhere";
  });
  const found = new Set(entries.map((e) => `${e.caller}>${e.to.path}:${e.to.line}`));
  let truth = 0, hit = 0;
  for (const s of sampled) {
    for (const c of oracle.calls[s] ?? []) {
      truth++;
      if (found.has(`${s}>${c}`)) hit++;
    }
  }
  return { verdicts, recall: `recall ${ratio(hit, truth)} (${hit} of ${truth} callees go/types lists)` };
}

/** TypeScript: the language service's definition of the called name at the call site. */
function judgeTs(entries: CallEntry[]): Verdict[] {
  const { service, program, texts } = languageService(root!, tsFiles(root!));
  return entries.map((e): Verdict => {
    const file = join(root!, e.file);
    const sf = program.getSourceFile(file);
    const lineText = texts.get(file)?.split("\n")[e.line - 1] ?? "";
    const at = new RegExp(`\\b${e.name.replace(/\$/g, "\\$")}\\b`).exec(lineText);
    if (!sf || !at) return "unresolved";
    const defs = service.getDefinitionAtPosition(file, sf.getPositionOfLineAndCharacter(e.line - 1, at.index)) ?? [];
    if (!defs.length) return "unresolved";
    return defs.some((d) => {
        const dsf = program.getSourceFile(d.fileName);
        const line = dsf ? dsf.getLineAndCharacterOfPosition(d.textSpan.start).line + 1 : -1;
        return relative(root!, d.fileName) === e.to.path && line >= e.to.line && line <= e.to.line + 3;
      })
      ? "agrees"
      : "elsewhere";
  });
}

/** The jedi program: reads entries as JSON on stdin, prints one verdict per line. */
const JEDI = `
import json, os, re, sys, jedi
root = sys.argv[1]
project = jedi.Project(os.path.dirname(root))
scripts = {}
for e in json.load(sys.stdin):
    path = os.path.join(root, e["file"])
    if path not in scripts:
        scripts[path] = jedi.Script(open(path).read(), path=path, project=project)
    script = scripts[path]
    lines = script._code_lines
    text = lines[e["line"] - 1] if 0 < e["line"] <= len(lines) else ""
    m = re.search(r"\\b" + re.escape(e["name"]) + r"\\s*\\(", text)
    defs = []
    if m:
        try:
            defs = [d for d in script.goto(e["line"], m.start(), follow_imports=True) if d.module_path]
        except Exception:
            defs = []
    if not defs:
        print("unresolved")
        continue
    ok = any(os.path.relpath(str(d.module_path), root) == e["to"]["path"] and d.line is not None
             and 0 <= d.line - e["to"]["line"] <= 5 for d in defs)
    print("agrees" if ok else "elsewhere")
`;

/** Python: jedi's `goto` at the call site. */
async function judgePython(entries: CallEntry[]): Promise<Verdict[]> {
  const child = new Deno.Command("python3", { args: ["-c", JEDI, root!], stdin: "piped", stdout: "piped" }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(entries)));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error("the jedi oracle failed (is python3-jedi installed?)");
  return new TextDecoder().decode(out.stdout).trim().split("\n") as Verdict[];
}

function ratio(a: number, b: number): string {
  return b ? (a / b).toFixed(3) : "-";
}

const db = await indexed();
const language = majority(db);
const prefix = language === "go" ? values["go-packages"]!.split(",")[0] + "/" : "";
const { entries, sampled } = entriesOf(db, language, prefix);
let verdicts: Verdict[];
let recall = "";
if (language === "go") ({ verdicts, recall } = await judgeGo(entries, sampled));
else if (language === "typescript") verdicts = judgeTs(entries);
else if (language === "python") verdicts = await judgePython(entries);
else throw new Error(`no oracle for ${language}`);
const count = (v: Verdict) => verdicts.filter((x) => x === v).length;
const [agrees, elsewhere, unresolved] = [count("agrees"), count("elsewhere"), count("unresolved")];
console.log(`${root} [${language}, ${sampled.length} functions and methods, ${entries.length} calls entries]`);
console.log(
  `  precision ${ratio(agrees, agrees + elsewhere)} where the oracle resolves (${agrees} agree, ${elsewhere} ` +
    `resolve elsewhere, ${unresolved} unresolved)${recall ? `; ${recall}` : ""}`,
);
for (const [i, e] of entries.entries()) {
  if (verdicts[i] !== "elsewhere") continue;
  if (Number(values.show) <= 0) break;
  values.show = String(Number(values.show) - 1);
  console.log(`  elsewhere: ${e.file}:${e.line} ${e.name} -> ${e.to.path}:${e.to.line}`);
}
db.close();
