/**
 * Parsing a file with web-tree-sitter and running its language's extraction.
 * Languages load lazily, once per thread. Requires `--allow-read` on `grammars/`.
 */
import { Language, Parser } from "web-tree-sitter";
import type { FileExtraction } from "../core/types.ts";
import { extract } from "./extract/engine.ts";
import { languageById } from "./languages/registry.ts";
import { readGrammar } from "../io/grammar_assets.ts";

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

/**
 * Longest one file's parse and extraction may take together (a 1 MiB file
 * takes well under a second). Deeply nested code can make the work grow
 * without bound; past this the file keeps what was found and is counted as
 * one with errors.
 */
export const PARSE_BUDGET_MS = 15_000;

/**
 * Parses `source` as `language` and extracts its symbols and references,
 * within `budgetMs`: a parse over it is abandoned (no symbols), an extraction
 * over it stops where it is; either way `parseError` says so.
 * Identifier occurrences are extracted only when `occurrences` is true.
 */
export async function parseAndExtract(
  language: string,
  path: string,
  source: string,
  budgetMs = PARSE_BUDGET_MS,
  occurrences = true,
): Promise<FileExtraction> {
  const spec = languageById(language);
  if (!spec) return { symbols: [], refs: [], parseError: null }; // text-only language: chunks, no symbols
  await initParser();
  const lang = await languageFor(language);
  parser!.setLanguage(lang);
  const deadline = performance.now() + budgetMs;
  const text = spec.parseText ? spec.parseText(source) : source;
  const tree = parser!.parse(text, null, { progressCallback: () => performance.now() > deadline });
  if (!tree) {
    parser!.reset(); // a cancelled parse would otherwise resume on the next file
    const over = performance.now() > deadline;
    return {
      symbols: [],
      refs: [],
      parseError: over
        ? `parsing gave up after ${budgetMs} ms (nesting too deep or syntax too ambiguous): no symbols extracted`
        : "parser returned no tree",
    };
  }
  try {
    return extract(tree, spec, path, source, deadline, occurrences);
  } finally {
    tree.delete();
  }
}
