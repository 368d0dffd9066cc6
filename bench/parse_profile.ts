/**
 * Where a parse worker's time goes, on one thread: decode, tree-sitter parse,
 * extraction (symbols, references, occurrences), chunking, row building and
 * the trip of the rows to the writer (packed, copied as postMessage copies
 * them, unpacked), each in process CPU time.
 *
 *   deno run -A bench/parse_profile.ts DIR [--files N]
 */
import { cpuUsage } from "node:process";
import { Parser } from "web-tree-sitter";
import { scanRepository } from "../src/index/scan.ts";
import { languageById, languageForPath } from "../src/index/languages/registry.ts";
import { readRepoFile } from "../src/io/safe_open.ts";
import { initParser } from "../src/index/parser.ts";
import { extract } from "../src/index/extract/engine.ts";
import { chunkFile } from "../src/index/chunker.ts";
import { buildFileRows } from "../src/state/file_rows.ts";
import { isGeneratedFile } from "../src/index/generated.ts";
import { type ParseResultMessage, postResult, receiveResult } from "../src/index/worker_pool.ts";
import { Language } from "web-tree-sitter";
import { readGrammar } from "../src/io/grammar_assets.ts";

const root = Deno.args[0];
const fi = Deno.args.indexOf("--files");
const maxFiles = fi >= 0 ? Number(Deno.args[fi + 1]) : Infinity;
const scan = await scanRepository(root, { maxFileBytes: 16 * 1024 * 1024, useGit: false });
await initParser();
const parser = new Parser();
const langs = new Map<string, Language>();
const t: Record<string, number> = {
  read: 0,
  decode: 0,
  generated: 0,
  parse: 0,
  extract: 0,
  chunk: 0,
  rows: 0,
  clone: 0,
};
// Phases are timed in process CPU (user + system): on a shared machine wall laps count other sessions' work.
const cpuMs = () => {
  const u = cpuUsage();
  return (u.user + u.system) / 1000;
};
let mark = cpuMs();
const lap = (k: string) => {
  const now = cpuMs();
  t[k] += now - mark;
  mark = now;
};
const c0 = cpuUsage();
const w0 = performance.now();
let n = 0;
for (const f of scan.files) {
  if (n >= maxFiles) break;
  const spec = languageForPath(f.path);
  if (!spec) continue;
  mark = cpuMs();
  const bytes = readRepoFile(root, f.path, { maxBytes: 16 * 1024 * 1024 }).bytes;
  if (bytes.indexOf(0) >= 0) continue;
  n++;
  lap("read");
  const source = new TextDecoder().decode(bytes);
  lap("decode");
  isGeneratedFile(f.path, source);
  lap("generated");
  let lang = langs.get(spec.id);
  if (!lang) langs.set(spec.id, lang = await Language.load(readGrammar(languageById(spec.id)!.grammar)));
  parser.setLanguage(lang);
  const tree = parser.parse(languageById(spec.id)!.parseText?.(source) ?? source)!;
  lap("parse");
  const ex = extract(tree, languageById(spec.id)!, f.path, source);
  tree.delete();
  lap("extract");
  const chunks = f.size <= 1024 * 1024 ? chunkFile(source, ex.symbols) : [];
  lap("chunk");
  const facts = { path: f.path, hash: "", size: f.size, mtimeMs: 0, language: spec.id, lineCount: 0, parseError: null };
  const rows = buildFileRows(facts, ex.symbols, ex.refs, chunks, ex.occurrences);
  lap("rows");
  // What the trip to the writer costs: the message packed, copied as postMessage copies it, unpacked.
  let sent: unknown = null;
  postResult({ postMessage: (m) => sent = structuredClone(m) }, { id: 0, rows, problem: null });
  receiveResult(sent as ParseResultMessage);
  lap("clone");
}
const c = cpuUsage(c0);
console.log(
  `${n} files, wall ${((performance.now() - w0) / 1000).toFixed(1)} s, cpu ${((c.user + c.system) / 1e6).toFixed(1)} s`,
);
console.log("cpu by phase: " + Object.entries(t).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`).join(", "));
