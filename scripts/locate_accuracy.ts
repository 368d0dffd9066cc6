/**
 * locate_symbol accuracy against an independent source: Universal Ctags.
 * For every name that ctags defines exactly once in a corpus (over the same
 * files Cruxe indexed), locate_symbol(name) should put that definition first
 * (top-1) or at least among the first three (top-3). A result matches when it
 * is in the same file and its line range contains the ctags line.
 *
 * Usage: deno task locate-accuracy [--home DIR] [--sample N] [ROOT ...]
 *   (default roots: /work/corpora/go /work/corpora/django; index each first with
 *    CRUXE_HOME=DIR deno task cruxe index --path ROOT; needs `ctags` (universal-ctags) on PATH)
 * Needs read access to the Cruxe home and the corpora, and to run ctags.
 */
import { parseArgs } from "node:util";
import { locateSymbol, warmSymbolIndex } from "../src/query/locate_symbol.ts";
import { findIndex } from "./find_index.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    home: { type: "string", default: "/tmp/cruxe-nav" },
    sample: { type: "string", default: "0" },
    misses: { type: "string", default: "15" },
  },
});
const roots = positionals.length ? positionals : ["/work/corpora/go", "/work/corpora/django"];

/** Ctags kinds that are definitions Cruxe also extracts (imports, packages, locals and parameters are not). */
const DEFINITION_KINDS: Record<string, Set<string>> = {
  Go: new Set(["func", "const", "type", "var", "struct", "interface", "member", "methodSpec", "talias"]),
  Python: new Set(["class", "function", "member", "variable"]),
  TypeScript: new Set(["function", "class", "interface", "method", "enum", "enumerator", "alias", "property"]),
  JavaScript: new Set(["function", "class", "method", "property"]),
};
const CTAGS_LANGUAGES: Record<string, string> = {
  go: "Go",
  python: "Python",
  typescript: "TypeScript",
  javascript: "JavaScript",
};

interface Tag {
  name: string;
  path: string;
  line: number;
  kind: string;
  language: string;
}

/** Ctags definitions over exactly the files the index holds. */
async function ctagsRun(root: string, files: { path: string; language: string }[]): Promise<Tag[]> {
  const langs = [...new Set(files.map((f) => CTAGS_LANGUAGES[f.language]).filter(Boolean))];
  const list = files.filter((f) => CTAGS_LANGUAGES[f.language]).map((f) => f.path).join("\n") + "\n";
  const child = new Deno.Command("ctags", {
    args: [
      "--output-format=json",
      "--fields=+nKl",
      "--sort=no",
      `--languages=${langs.join(",")}`,
      "-L",
      "-",
      "-f",
      "-",
    ],
    cwd: root,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(list));
  await w.close();
  const { stdout } = await child.output();
  const tags: Tag[] = [];
  for (const line of new TextDecoder().decode(stdout).split("\n")) {
    if (!line.startsWith("{")) continue;
    const t = JSON.parse(line);
    if (t._type !== "tag" || !DEFINITION_KINDS[t.language]?.has(t.kind)) continue;
    // ctags' names for anonymous things, and keys that are not identifiers (`"%"` in an object literal).
    if (/^(__anon|AnonymousFunction)/.test(t.name) || t.name === "_" || !/^[A-Za-z_$][\w$]*$/.test(t.name)) continue;
    tags.push({ name: t.name, path: t.path.replace(/^\.\//, ""), line: t.line, kind: t.kind, language: t.language });
  }
  return tags;
}

/** Deterministic sample (every k-th) so runs are comparable. */
function everyKth<T>(xs: T[], n: number): T[] {
  if (!n || xs.length <= n) return xs;
  const k = xs.length / n;
  return Array.from({ length: n }, (_, i) => xs[Math.floor(i * k)]);
}

for (const root of roots) {
  const db = findIndex(values.home!, root);
  if (!db) {
    console.log(
      `${root}: no index under ${values.home}; run: CRUXE_HOME=${values.home} deno task cruxe index --path ${root}`,
    );
    continue;
  }
  warmSymbolIndex(db);
  const files = db.prepare("SELECT path, language FROM files").all() as { path: string; language: string }[];
  const t0 = performance.now();
  const tags = await ctagsRun(root, files);
  const byName = new Map<string, Tag[]>();
  for (const t of tags) {
    const l = byName.get(t.name);
    if (l) l.push(t);
    else byName.set(t.name, [t]);
  }
  const single = everyKth(
    [...byName.values()].filter((l) => l.length === 1).map((l) => l[0]).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0
    ),
    Number(values.sample),
  );
  let top1 = 0;
  let top3 = 0;
  let notFound = 0;
  const perLang = new Map<string, { n: number; top1: number; top3: number }>();
  const misses: string[] = [];
  const times: number[] = [];
  for (const tag of single) {
    const s = performance.now();
    let results: { path: string; line_start: number; line_end: number; match: string; qualified_name: string }[] = [];
    try {
      results = locateSymbol(db, { name: tag.name, limit: 3 }).results;
    } catch {
      notFound++;
    }
    times.push(performance.now() - s);
    const hit = (r: (typeof results)[number]) =>
      r.match === "definition" && r.path === tag.path && r.line_start <= tag.line && tag.line <= r.line_end;
    const lang = perLang.get(tag.language) ?? { n: 0, top1: 0, top3: 0 };
    perLang.set(tag.language, lang);
    lang.n++;
    if (results[0] && hit(results[0])) top1++, lang.top1++;
    if (results.slice(0, 3).some(hit)) top3++, lang.top3++;
    else if (misses.length < Number(values.misses)) {
      misses.push(
        `  ${tag.name} (${tag.kind}) ctags ${tag.path}:${tag.line}; got ${
          results.map((r) => `${r.qualified_name}@${r.path}:${r.line_start}-${r.line_end}`).join(", ") || "nothing"
        }`,
      );
    }
  }
  times.sort((a, b) => a - b);
  const n = single.length;
  const pct = (x: number) => (100 * x / Math.max(1, n)).toFixed(2) + "%";
  console.log(
    `${root}: ${tags.length} ctags definitions, ${byName.size} names, ${n} single-definition names checked ` +
      `(ctags ${(performance.now() - t0 - times.reduce((a, b) => a + b, 0)).toFixed(0)} ms)`,
  );
  console.log(
    `  top-1 ${pct(top1)} (target >= 95%)  top-3 ${pct(top3)} (target >= 99%)  not found ${notFound}  ` +
      `locate p50 ${times[Math.floor(n / 2)]?.toFixed(2)} ms p95 ${times[Math.floor(n * 0.95)]?.toFixed(2)} ms`,
  );
  for (const [lang, x] of perLang) {
    console.log(
      `  ${lang}: ${x.n} names, top-1 ${(100 * x.top1 / x.n).toFixed(2)}%, top-3 ${(100 * x.top3 / x.n).toFixed(2)}%`,
    );
  }
  if (misses.length) console.log("  first misses (not in top 3):\n" + misses.join("\n"));
  db.close();
}
