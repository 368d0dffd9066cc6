/**
 * "Did you mean" for a name that matched nothing: close spellings from the
 * fuzzy name index, then definitions sharing the name's words (full-text over
 * the split identifiers), so `rate limit thing` still points at `checkRateLimit`.
 */
import type { Db } from "../state/db.ts";
import { splitIdentifier } from "../core/identifiers.ts";
import { type FuzzyName, fuzzyNames } from "./symbol_name_index.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { symbolsByName } from "../state/read/symbols.ts";
import { symbolsForWords, symbolsWithWordAtMost } from "../state/read/search.ts";
import { allOf, anyOf } from "./search/fts_query.ts";

/** A suggested symbol: enough to call the tool again with a real name. */
export interface SymbolSuggestion {
  name: string;
  qualified_name: string;
  kind: string;
  path: string;
  line_start: number;
}

/** The words an FTS5 query over `words` searches: lower-case, letters and digits only, each once, at most 32. */
function searchableWords(words: readonly string[]): string[] {
  return [...new Set(words.map((w) => w.toLowerCase()).filter((w) => /^[a-z0-9]+$/.test(w)))].slice(0, 32);
}

/** FTS5 query matching any of the words, each quoted so no input is ever FTS syntax. */
export function ftsAnyWords(words: readonly string[]): string | null {
  return anyOf(searchableWords(words));
}

/** Definitions counted at most per word when choosing which words a suggestion search ranks. */
export const COMMON_WORD_DEFINITIONS = 2000;

/**
 * The full-text query of a suggestion search, or null. A word found in
 * thousands of names (`config`, `i2c`) says little next to a rare one
 * (`ocores`), and ranking its rows costs most of the time: when some words
 * are carried by at most COMMON_WORD_DEFINITIONS definitions, the search
 * ranks the names carrying any of those. When every word the index holds is
 * common, a name carrying one of them is no better than any other (ranking
 * would pick among the first RANK_SCAN_ROWS rows read, in the order files
 * were written), so the search asks for names that carry them all.
 */
function suggestionQuery(db: Db, words: readonly string[]): string | null {
  const uniq = searchableWords(words);
  if (uniq.length < 2) return anyOf(uniq);
  const counts = new Map(uniq.map((w) => [w, symbolsWithWordAtMost(db, w, COMMON_WORD_DEFINITIONS + 1)]));
  const held = uniq.filter((w) => counts.get(w)! > 0);
  const rare = held.filter((w) => counts.get(w)! <= COMMON_WORD_DEFINITIONS);
  if (rare.length) return anyOf(rare);
  // A word no definition carries adds nothing to any row's rank.
  return held.length < 2 ? anyOf(uniq) : allOf(held);
}

/** Close spellings of a leaf name already looked up (`fuzzyNames(db, leaf, limit)` with `limit` at least `n`). */
export interface KnownSpellings {
  leaf: string;
  names: readonly FuzzyName[];
}

/**
 * Up to `n` definitions that look like what `name` meant. `known` saves the
 * spelling lookup when the caller already made it for the same leaf (the
 * closest names come first, so its first `n` are what a new lookup returns).
 */
export function suggestSymbols(db: Db, name: string, n = 5, known?: KnownSpellings): SymbolSuggestion[] {
  const out: SymbolSuggestion[] = [];
  const seen = new Set<string>();
  const add = (r: SymbolRow) => {
    if (out.length >= n || seen.has(r.qualified_name + "\0" + r.path)) return;
    seen.add(r.qualified_name + "\0" + r.path);
    out.push({ name: r.name, qualified_name: r.qualified_name, kind: r.kind, path: r.path, line_start: r.line_start });
  };
  const leaf = name.split(/::|[.#/\\]/).filter(Boolean).pop() ?? name;
  const spellings = known?.leaf === leaf ? known.names.slice(0, n) : fuzzyNames(db, leaf, n);
  for (const f of spellings) {
    for (const r of symbolsByName(db, f.name_lower, { limit: 3 })) add(r);
  }
  if (out.length < n) {
    const q = suggestionQuery(db, splitIdentifier(name.slice(0, 500)));
    if (q) {
      for (const r of symbolsForWords(db, q, n * 2)) add(r);
    }
  }
  return out;
}
