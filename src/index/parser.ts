/**
 * Parsing a file with web-tree-sitter and running its language's extraction.
 * Languages load lazily, once per thread. Requires `--allow-read` on `grammars/`.
 */
import { Language, Parser } from "web-tree-sitter";
import type { FileExtraction } from "../core/types.ts";
import { extract } from "./extract/engine.ts";
import { languageById } from "./languages/registry.ts";
import { readGrammar } from "../state/grammar_assets.ts";

let ready: Promise<void> | null = null;
const languages = new Map<string, Language>();
let parser: Parser | null = null;

/** Initializes the tree-sitter runtime once per thread. */
export function initParser(): Promise<void> {
  ready ??= Parser.init({ wasmBinary: readGrammar("tree-sitter.wasm") } as unknown as object).then(() => {
    parser = new Parser();
  });
  return ready;
}

async function languageFor(id: string): Promise<Language> {
  let lang = languages.get(id);
  if (!lang) {
    const spec = languageById(id);
    if (!spec) throw new Error(`unknown language ${id}`);
    lang = await Language.load(readGrammar(spec.grammar));
    languages.set(id, lang);
  }
  return lang;
}

/** Parses `source` as `language` and extracts its symbols and references. */
export async function parseAndExtract(language: string, path: string, source: string): Promise<FileExtraction> {
  const spec = languageById(language);
  if (!spec) return { symbols: [], refs: [], parseError: null }; // text-only language: chunks, no symbols
  await initParser();
  const lang = await languageFor(language);
  parser!.setLanguage(lang);
  const tree = parser!.parse(source);
  if (!tree) return { symbols: [], refs: [], parseError: "parser returned no tree" };
  try {
    return extract(tree, spec, path, source);
  } finally {
    tree.delete();
  }
}
