/**
 * Writes the generated tuning set, labelled by no one:
 * `deno task eval:generate OUT [--corpora DIR] [--semble DIR] [--seed N] [--per-repo N] [--only a,b]`.
 *
 * For each source tree (a part of a corpus, or a semble dev repository's
 * benchmark tree) it parses every non-test source file, samples documented
 * definitions by seed (at most three per file), makes each one's query from the
 * first sentence of its doc comment (`doc_queries.ts`), copies the tree to
 * `OUT/trees/NAME` with those doc comments blanked (line numbers unchanged),
 * re-parses the blanked files and keeps only samples whose doc is gone. The
 * target is the definition's file and lines. `OUT/repos.json` and
 * `OUT/annotations/NAME.json` are in the format `deno task eval` reads
 * (category: the definition's kind group, `function` or `type`).
 * Needs --allow-read (sources, grammars) and --allow-write (OUT).
 */
import { dirname, join, relative } from "node:path";
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { languageForPath } from "../../src/index/languages/registry.ts";
import { parseAndExtract } from "../../src/index/parser.ts";
import { isTestPath } from "../../src/core/test_paths.ts";
import { isGeneratedFile } from "../../src/index/generated.ts";
import type { ExtractedSymbol } from "../../src/core/types.ts";
import { blankLines, docLines, docQuery, QUERY_KINDS, seededRandom, seedFor, shuffled } from "./doc_queries.ts";

/** One source tree of the set: where it is, and the language it is reported under. */
interface Source {
  name: string;
  language: string;
  /** `corpora:REL` (under --corpora) or `semble:REL` (under --semble). */
  dir: string;
}

/** The default sources: parts of the corpora, and semble dev trees in languages the corpora lack. */
export const SOURCES: Source[] = [
  { name: "g-go-net-http", language: "go", dir: "corpora:go/net/http" },
  { name: "g-go-encoding", language: "go", dir: "corpora:go/encoding" },
  { name: "g-go-types", language: "go", dir: "corpora:go/go/types" },
  { name: "g-go-text", language: "go", dir: "corpora:go/text" },
  { name: "g-django-db", language: "python", dir: "corpora:django/db" },
  { name: "g-django-auth", language: "python", dir: "corpora:django/contrib/auth" },
  { name: "g-django-forms", language: "python", dir: "corpora:django/forms" },
  { name: "g-django-core", language: "python", dir: "corpora:django/core" },
  { name: "g-rust-core", language: "rust", dir: "corpora:rust/core/src" },
  { name: "g-rust-alloc", language: "rust", dir: "corpora:rust/alloc/src" },
  { name: "g-rust-std", language: "rust", dir: "corpora:rust/std/src" },
  { name: "g-java-util", language: "java", dir: "corpora:java/java.base/java/util" },
  { name: "g-java-net", language: "java", dir: "corpora:java/java.base/java/net" },
  { name: "g-java-time", language: "java", dir: "corpora:java/java.base/java/time" },
  { name: "g-java-sql", language: "java", dir: "corpora:java/java.sql" },
  { name: "g-zod", language: "typescript", dir: "semble:zod/packages/zod/src" },
  { name: "g-trpc", language: "typescript", dir: "semble:trpc/packages/server/src" },
  { name: "g-laravel", language: "php", dir: "semble:laravel-framework/src/Illuminate" },
  { name: "g-newtonsoft", language: "csharp", dir: "semble:newtonsoft-json/Src/Newtonsoft.Json" },
  { name: "g-rails", language: "ruby", dir: "semble:rails/railties/lib/rails" },
  { name: "g-curl", language: "c", dir: "semble:curl/lib" },
  { name: "g-abseil", language: "cpp", dir: "semble:abseil-cpp/absl" },
  { name: "g-cats", language: "scala", dir: "semble:cats/core/src/main/scala" },
  { name: "g-phoenix", language: "elixir", dir: "semble:phoenix/lib" },
];

/** Largest source file parsed (bigger ones are copied as they are). */
const MAX_FILE_BYTES = 256 * 1024;
const PER_FILE = 3;

interface Sample {
  path: string;
  sym: ExtractedSymbol;
  query: string;
  lines: number[];
  docstring: boolean;
}

function kindGroup(kind: string): string {
  return ["function", "method", "constructor", "macro"].includes(kind) ? "function" : "type";
}

function* walk(root: string, rel = ""): Generator<string> {
  for (const e of [...Deno.readDirSync(join(root, rel))].sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith(".")) continue;
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory) yield* walk(root, p);
    else if (e.isFile) yield p;
  }
}

/** The documented definitions of one file that make usable queries. */
async function candidates(path: string, lang: string, source: string): Promise<Sample[]> {
  const ex = await parseAndExtract(lang, path, source, 5000, false);
  const lines = source.split("\n");
  const out: Sample[] = [];
  const seen = new Set<number>();
  for (const sym of ex.symbols) {
    if (!sym.doc || !QUERY_KINDS.has(sym.kind) || sym.lineEnd - sym.lineStart < 2 || sym.name.length < 3) continue;
    const query = docQuery(sym.doc, sym.name);
    if (!query) continue;
    const at = docLines(lines, sym.lineStart);
    if (!at.length || at.some((i) => seen.has(i))) continue;
    at.forEach((i) => seen.add(i));
    out.push({ path, sym, query, lines: at, docstring: at[0] >= sym.lineStart - 1 });
  }
  return out;
}

/** Builds one source's tree copy and queries; returns how many queries were kept. */
async function generateOne(src: Source, root: string, out: string, seed: number, perRepo: number) {
  const tree = join(out, "trees", src.name);
  if (existsSync(tree)) Deno.removeSync(tree, { recursive: true });
  const files: { path: string; lang: string; source: string }[] = [];
  for (const p of walk(root)) {
    const dest = join(tree, p);
    Deno.mkdirSync(dirname(dest), { recursive: true });
    Deno.copyFileSync(join(root, p), dest);
    const spec = languageForPath(p);
    if (!spec || isTestPath(p) || Deno.statSync(join(root, p)).size > MAX_FILE_BYTES) continue;
    const source = Deno.readTextFileSync(join(root, p));
    if (isGeneratedFile(p, source)) continue;
    files.push({ path: p, lang: spec.id, source });
  }
  const all: Sample[] = [];
  for (const f of files) all.push(...await candidates(f.path, f.lang, f.source));
  // Queries said twice in one tree cannot be told apart: both are dropped.
  const count = new Map<string, number>();
  for (const s of all) count.set(s.query.toLowerCase(), (count.get(s.query.toLowerCase()) ?? 0) + 1);
  const rand = seededRandom(seedFor(seed, src.name));
  const perFile = new Map<string, number>();
  const chosen: Sample[] = [];
  for (const s of shuffled(all.filter((s) => count.get(s.query.toLowerCase()) === 1), rand)) {
    if ((perFile.get(s.path) ?? 0) >= PER_FILE) continue;
    perFile.set(s.path, (perFile.get(s.path) ?? 0) + 1);
    chosen.push(s);
    if (chosen.length >= perRepo) break;
  }
  const kept: Sample[] = [];
  const byFile = Map.groupBy(chosen, (s) => s.path);
  for (const [path, samples] of byFile) {
    const f = files.find((x) => x.path === path)!;
    let lines = f.source.split("\n");
    for (const s of samples) lines = blankLines(lines, s.lines, s.docstring);
    const blanked = lines.join("\n");
    Deno.writeTextFileSync(join(tree, path), blanked);
    // Kept only when the re-parsed definition has no doc left (and is still where it was).
    const again = await parseAndExtract(f.lang, path, blanked, 5000, false);
    for (const s of samples) {
      const now = again.symbols.find((x) => x.name === s.sym.name && x.lineStart === s.sym.lineStart);
      if (now && !now.doc) kept.push(s);
    }
  }
  kept.sort((a, b) => a.path.localeCompare(b.path) || a.sym.lineStart - b.sym.lineStart);
  const annotations = kept.map((s) => ({
    query: s.query,
    relevant: [{ path: s.path, start_line: s.sym.lineStart, end_line: s.sym.lineEnd }],
    secondary: [],
    category: kindGroup(s.sym.kind),
  }));
  Deno.writeTextFileSync(join(out, "annotations", `${src.name}.json`), JSON.stringify(annotations, null, 1));
  return { files: files.length, candidates: all.length, kept: kept.length };
}

async function main() {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      corpora: { type: "string", default: "/work/corpora" },
      semble: { type: "string", default: "/work/semble" },
      seed: { type: "string", default: "31" },
      "per-repo": { type: "string", default: "200" },
      only: { type: "string" },
    },
  });
  const out = positionals[0];
  if (!out) {
    console.error("usage: deno task eval:generate OUT [--corpora DIR] [--semble DIR] [--seed N] [--per-repo N]");
    Deno.exit(2);
  }
  const only = values.only ? new Set(values.only.split(",")) : null;
  Deno.mkdirSync(join(out, "annotations"), { recursive: true });
  Deno.mkdirSync(join(out, "trees"), { recursive: true });
  const reposFile = join(out, "repos.json");
  const repos: Record<string, unknown> = existsSync(reposFile) ? JSON.parse(Deno.readTextFileSync(reposFile)) : {};
  for (const src of SOURCES) {
    if (only && !only.has(src.name)) continue;
    const [base, rel] = src.dir.split(":");
    const root = join(base === "corpora" ? values.corpora! : values.semble!, rel);
    if (!existsSync(root)) {
      console.error(`${src.name}: no tree at ${root}, skipped`);
      continue;
    }
    const t0 = performance.now();
    const r = await generateOne(src, root, out, Number(values.seed), Number(values["per-repo"]));
    repos[src.name] = { language: src.language, path: relative(out, join(out, "trees", src.name)), source: src.dir };
    Deno.writeTextFileSync(reposFile, JSON.stringify(repos, null, 2));
    console.error(
      `${src.name.padEnd(18)} ${src.language.padEnd(10)} files ${r.files} documented ${r.candidates} ` +
        `queries ${r.kept} (${((performance.now() - t0) / 1000).toFixed(1)}s)`,
    );
  }
}

if (import.meta.main) await main();
