/**
 * "Did you mean" for a name that matched nothing: close spellings from the
 * fuzzy name index, then definitions sharing the name's words (full-text over
 * the split identifiers), so `rate limit thing` still points at `checkRateLimit`.
 */
import type { Db } from "../state/db.ts";
import { splitIdentifier } from "../core/identifiers.ts";
import { fuzzyNames } from "./symbol_name_index.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { symbolsByName } from "../state/read/symbols.ts";
import { symbolsForWords } from "../state/read/search.ts";

/** A suggested symbol: enough to call the tool again with a real name. */
export interface SymbolSuggestion {
  name: string;
  qualified_name: string;
  kind: string;
  path: string;
  line_start: number;
}

/** FTS5 query matching any of the words, each quoted so no input is ever FTS syntax. */
export function ftsAnyWords(words: readonly string[]): string | null {
  const uniq = [...new Set(words.map((w) => w.toLowerCase()).filter((w) => /^[a-z0-9]+$/.test(w)))].slice(0, 32);
  return uniq.length ? uniq.map((w) => `"${w}"`).join(" OR ") : null;
}

/** Up to `n` definitions that look like what `name` meant. */
export function suggestSymbols(db: Db, name: string, n = 5): SymbolSuggestion[] {
  const out: SymbolSuggestion[] = [];
  const seen = new Set<string>();
  const add = (r: SymbolRow) => {
    if (out.length >= n || seen.has(r.qualified_name + "\0" + r.path)) return;
    seen.add(r.qualified_name + "\0" + r.path);
    out.push({ name: r.name, qualified_name: r.qualified_name, kind: r.kind, path: r.path, line_start: r.line_start });
  };
  const leaf = name.split(/::|[.#/\\]/).filter(Boolean).pop() ?? name;
  for (const f of fuzzyNames(db, leaf, n)) {
    for (const r of symbolsByName(db, f.name_lower, { limit: 3 })) add(r);
  }
  if (out.length < n) {
    const q = ftsAnyWords(splitIdentifier(name.slice(0, 500)));
    if (q) {
      for (const r of symbolsForWords(db, q, n * 2)) add(r);
    }
  }
  return out;
}
