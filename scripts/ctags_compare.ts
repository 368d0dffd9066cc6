/**
 * Accuracy check against Universal Ctags: the share of ctags' function /
 * class / method / type definitions that Cruxe also extracts at the same file
 * and line, over the files Cruxe indexed.
 *
 * Run: deno task ctags-compare DIR [--keep] [--samples N]
 * Languages: Go and Python (the targets), plus Rust and Java when present.
 * Needs `ctags` (Universal Ctags) on PATH; permissions: read, write (temp
 * CRUXE_HOME), env, run (ctags, deno, git).
 *
 * Line rule: Cruxe's line_start is where the declaration node starts, which
 * includes decorators/annotations/attributes (`@cached` above `def f`); ctags
 * reports the line of the name. A ctags tag matches when Cruxe has a symbol
 * with the same name in the same file whose *definition line* is the ctags
 * line, where the definition line is the first line at or after line_start
 * that contains the name as a word and is not a decorator/annotation/attribute
 * line, or line_start itself (ctags puts some multi-line heads, such as a Rust
 * `impl<...>` split over lines, on the keyword line). Strict `line_start == ctags line` matches
 * are reported too.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { registerStoreFunctions } from "../src/state/store_functions.ts";

/** ctags kinds counted per language ("function/class/method/type-like"). */
const MAIN_KINDS: Record<string, Set<string>> = {
  Go: new Set(["func", "type", "struct", "interface", "talias"]),
  Python: new Set(["class", "function", "member"]),
  Rust: new Set(["function", "method", "struct", "enum", "interface", "typedef", "implementation", "macro"]),
  Java: new Set(["class", "interface", "enum", "method", "annotation"]),
};
/** Reported separately: secondary definitions (fields, constants, interface methods). */
const EXTRA_KINDS: Record<string, Set<string>> = {
  Go: new Set(["methodSpec", "member", "const", "var"]),
  Python: new Set(["variable"]),
  Rust: new Set(["field", "enumerator", "module", "variable", "constant"]),
  Java: new Set(["field", "enumConstant"]),
};
const CTAGS_LANG_TO_CRUXE: Record<string, string> = { Go: "go", Python: "python", Rust: "rust", Java: "java" };

interface Tag {
  name: string;
  path: string;
  line: number;
  kind: string;
  language: string;
  scope?: string;
}

interface CruxeSym {
  name: string;
  kind: string;
  line_start: number;
  line_end: number;
}

function parseArgs(args: string[]) {
  const dir = args.find((a) => !a.startsWith("--"));
  if (!dir) {
    console.error("usage: ctags_compare.ts DIR [--keep] [--samples N]");
    Deno.exit(2);
  }
  const i = args.indexOf("--samples");
  return { dir: Deno.realPathSync(dir), keep: args.includes("--keep"), samples: i >= 0 ? Number(args[i + 1]) : 12 };
}

async function runCtags(dir: string): Promise<Tag[]> {
  const out = await new Deno.Command("ctags", {
    args: [
      "-R",
      "--output-format=json",
      "--fields=+nKZl",
      `--languages=${Object.keys(MAIN_KINDS).join(",")}`,
      "--extras=-F",
      "-f",
      "-",
      ".",
    ],
    cwd: dir,
    stdout: "piped",
    stderr: "null",
  }).output();
  const tags: Tag[] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    if (!line.startsWith("{")) continue;
    const t = JSON.parse(line);
    if (t._type !== "tag") continue;
    tags.push({
      name: t.name,
      path: String(t.path).replace(/^\.\//, ""),
      line: t.line,
      kind: t.kind,
      language: t.language,
      scope: t.scope,
    });
  }
  return tags;
}

async function runCruxe(dir: string, home: string): Promise<number> {
  const started = performance.now();
  const root = new URL("../", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "cruxe", "index", "--path", dir],
    cwd: root,
    env: { CRUXE_HOME: home },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    console.error(new TextDecoder().decode(out.stderr));
    throw new Error("cruxe index failed");
  }
  return performance.now() - started;
}

function findIndex(home: string): string {
  const projects = join(home, "projects");
  for (const e of Deno.readDirSync(projects)) {
    const p = join(projects, e.name, "index.db");
    try {
      if (Deno.statSync(p).isFile) return p;
    } catch { /* not this one */ }
  }
  throw new Error(`no index.db under ${projects}`);
}

const wordRe = (name: string) =>
  new RegExp(`(^|[^A-Za-z0-9_])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([^A-Za-z0-9_]|$)`);

/** First line at or after line_start mentioning the name: where ctags would put the tag. */
function definitionLine(lines: string[], s: CruxeSym): number {
  const re = wordRe(s.name);
  for (let l = s.line_start; l <= Math.min(s.line_end, s.line_start + 40); l++) {
    const text = lines[l - 1] ?? "";
    // Decorator / annotation / attribute lines may mention the name (`@x.setter`); the definition follows.
    if (/^\s*(@|#\[)/.test(text)) continue;
    if (re.test(text)) return l;
  }
  return s.line_start;
}

type Cause = string;

/** Why Cruxe has no symbol at the ctags line: a short, groupable explanation. */
function missCause(tag: Tag, syms: CruxeSym[]): Cause {
  const same = syms.filter((s) => s.name === tag.name);
  if (same.length) {
    const near = same.map((s) => `${s.kind}@${s.line_start}`).join(",");
    return `name present at other line (${near.slice(0, 40)})`;
  }
  const covering = syms.filter((s) => s.line_start <= tag.line && s.line_end >= tag.line);
  if (covering.length === 0) return "no Cruxe symbol covers the line (parse error or skipped node)";
  return `not extracted inside ${covering[covering.length - 1].kind}`;
}

async function main() {
  const { dir, keep, samples } = parseArgs(Deno.args);
  const home = Deno.makeTempDirSync({ prefix: "cruxe-ctags-" });
  console.log(`corpus: ${dir}`);
  // One after the other, so the indexing time is not shared with ctags.
  const ms = await runCruxe(dir, home);
  const tags = await runCtags(dir);
  console.log(`cruxe index: ${(ms / 1000).toFixed(1)} s (wall, includes deno startup; shared noisy machine)`);
  const db = new DatabaseSync(findIndex(home), { readOnly: true });
  registerStoreFunctions(db); // the symbols view spells handles with them
  const files = new Map<string, string>();
  for (const r of db.prepare("SELECT path, language FROM files").all() as { path: string; language: string }[]) {
    files.set(r.path, r.language);
  }
  const symsByPath = new Map<string, CruxeSym[]>();
  for (
    const r of db.prepare("SELECT path, name, kind, line_start, line_end FROM symbols").all() as unknown as (
      CruxeSym & { path: string }
    )[]
  ) {
    let list = symsByPath.get(r.path);
    if (!list) symsByPath.set(r.path, list = []);
    list.push(r);
  }
  db.close();

  const fileLines = new Map<string, string[]>();
  const linesOf = (p: string) => {
    let l = fileLines.get(p);
    if (!l) fileLines.set(p, l = Deno.readTextFileSync(join(dir, p)).split("\n"));
    return l;
  };
  const defLines = new Map<string, Map<string, Set<number>>>(); // path → name → lines
  const defLinesOf = (p: string) => {
    let m = defLines.get(p);
    if (!m) {
      m = new Map();
      const lines = linesOf(p);
      for (const s of symsByPath.get(p) ?? []) {
        let set = m.get(s.name);
        if (!set) m.set(s.name, set = new Set());
        set.add(definitionLine(lines, s));
        set.add(s.line_start);
      }
      defLines.set(p, m);
    }
    return m;
  };

  for (const lang of Object.keys(MAIN_KINDS)) {
    for (const [label, kinds] of [["main", MAIN_KINDS[lang]], ["secondary", EXTRA_KINDS[lang]]] as const) {
      let total = 0, matched = 0, strict = 0, skippedFiles = 0;
      const skippedDirs = new Map<string, number>();
      const skippedOther = new Set<string>();
      const perKind = new Map<string, { total: number; matched: number }>();
      const causes = new Map<Cause, Tag[]>();
      for (const t of tags) {
        if (t.language !== lang || !kinds.has(t.kind)) continue;
        if (files.get(t.path) !== CTAGS_LANG_TO_CRUXE[lang]) {
          skippedFiles++;
          const top = t.path.split("/").find((p) => /^(testdata|vendor|third_party|node_modules)$/.test(p)) ?? "other";
          skippedDirs.set(top, (skippedDirs.get(top) ?? 0) + 1);
          if (top === "other") skippedOther.add(t.path);
          continue;
        }
        total++;
        const k = perKind.get(t.kind) ?? { total: 0, matched: 0 };
        k.total++;
        perKind.set(t.kind, k);
        const syms = symsByPath.get(t.path) ?? [];
        if (syms.some((s) => s.name === t.name && s.line_start === t.line)) strict++;
        if (defLinesOf(t.path).get(t.name)?.has(t.line)) {
          matched++;
          k.matched++;
          continue;
        }
        const cause = missCause(t, syms);
        const list = causes.get(cause) ?? [];
        list.push(t);
        causes.set(cause, list);
      }
      if (total === 0) continue;
      const pct = (n: number) => (100 * n / total).toFixed(2) + "%";
      console.log(`\n== ${lang} (${label} kinds: ${[...kinds].join(", ")})`);
      console.log(`ctags definitions in files Cruxe indexed: ${total}`);
      console.log(`matched (same file, name, definition line): ${matched} = ${pct(matched)}`);
      console.log(`strict (line_start equals ctags line): ${strict} = ${pct(strict)}`);
      console.log(
        `excluded (file not indexed by Cruxe): ${skippedFiles} (${
          [...skippedDirs].map(([d, n]) => `${d}: ${n}`).join(", ")
        })`,
      );
      if (skippedOther.size) {
        const ex = [...skippedOther].slice(0, 4).map((p) => {
          const size = Deno.statSync(join(dir, p)).size;
          return `${p} (${(size / 1024).toFixed(0)} KiB)`;
        });
        console.log(`  not indexed for other reasons (${skippedOther.size} files), e.g. ${ex.join(", ")}`);
      }
      for (const [k, v] of perKind) {
        console.log(`  ${k}: ${v.matched}/${v.total} (${(100 * v.matched / v.total).toFixed(2)}%)`);
      }
      const grouped = [...causes].sort((a, b) => b[1].length - a[1].length);
      for (const [cause, list] of grouped.slice(0, 8)) {
        console.log(`  miss ×${list.length}: ${cause}`);
        for (const t of list.slice(0, Math.max(1, Math.floor(samples / 4)))) {
          console.log(
            `      ${t.path}:${t.line} ${t.kind} ${t.name}  | ${
              (linesOf(t.path)[t.line - 1] ?? "").trim().slice(0, 90)
            }`,
          );
        }
      }
    }
  }
  if (!keep) Deno.removeSync(home, { recursive: true });
  else console.log(`\nCRUXE_HOME kept at ${home}`);
}

if (import.meta.main) await main();
