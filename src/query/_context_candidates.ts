/**
 * Candidate definitions for get_code_context: an identifier-looking query is
 * located by name (definitions only); anything else, or a name that matches
 * nothing, goes to full-text search over symbols and code chunks, fused by
 * reciprocal rank. FTS input is always built from quoted words, never raw.
 */
import type { Db } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import { splitIdentifier } from "../core/identifiers.ts";
import { locateSymbol } from "./locate_symbol.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { symbolById, symbolByRowId } from "../state/read/symbols.ts";
import { chunkPlacesForText, symbolsForText } from "../state/read/search.ts";
import { isTestPath } from "../core/test_paths.ts";

/** A ranked candidate: a symbol, or a chunk of code outside any symbol. */
export type ContextCandidate =
  | { type: "symbol"; row: SymbolRow; score: number }
  | { type: "chunk"; path: string; language: string; line_start: number; line_end: number; score: number };

const STOPWORDS = new Set(
  ("a an and are as at be by can do does for from get how i in is it of on or the this to use used uses using what " +
    "when where which who why with where's implemented implement implementation code function defined define " +
    "definition find show me my our we there that these those if not no all any its it's into than then so such " +
    "should would could will shall may might must has have had was were been being returns return given whether " +
    "reports").split(" "),
);
/** Most words in an any-word (OR) query: every extra common word costs a long posting list. */
const MAX_OR_WORDS = 8;

const IDENTIFIER_QUERY = /^[A-Za-z_$][\w$]*((::|[.#/])[A-Za-z_$][\w$]*)*(\(\))?$/;

/** Search words of a free-text query: identifier parts and whole words, stopwords out. */
export function queryWords(text: string): string[] {
  const words = new Set<string>();
  for (const m of text.matchAll(/[A-Za-z_$][\w$]*|\d+/g)) {
    const w = m[0];
    const lower = w.toLowerCase().replace(/[^a-z0-9]/g, "");
    if (lower.length > 1 && !STOPWORDS.has(lower)) words.add(lower);
    for (const p of splitIdentifier(w)) if (p.length > 1 && !STOPWORDS.has(p)) words.add(p);
  }
  return [...words].slice(0, 24);
}

function fts(words: string[], op: "AND" | "OR"): string {
  return words.map((w) => `"${w}"`).join(` ${op} `);
}

/** Up to `n` candidates for `query`, best first. */
export function contextCandidates(db: Db, query: string, n: number): ContextCandidate[] {
  if (IDENTIFIER_QUERY.test(query)) {
    try {
      const located = locateSymbol(db, { name: query, limit: n }).results.filter((r) =>
        r.match === "definition" && r.match_tier !== "fuzzy"
      );
      if (located.length) {
        return located.flatMap((l) => {
          const row = symbolById(db, l.symbol_id);
          return row ? [{ type: "symbol" as const, row, score: l.score }] : [];
        });
      }
    } catch (e) {
      if (!(e instanceof CruxeError) || e.code !== "symbol_not_found") throw e;
    }
  }
  const words = queryWords(query);
  if (!words.length) return [];
  let out = textCandidates(db, fts(words, "AND"), n);
  if (out.length < n && words.length > 1) {
    const seen = new Set(out.map(key));
    // Longer words are usually the rarer, more telling ones.
    const orWords = words.length > MAX_OR_WORDS
      ? [...words].sort((a, b) => b.length - a.length).slice(0, MAX_OR_WORDS)
      : words;
    out = out.concat(
      textCandidates(db, fts(orWords, "OR"), n).filter((c) => !seen.has(key(c))).map((c) => ({
        ...c,
        score: c.score / 2,
      })),
    );
  }
  return out.slice(0, n);
}

function key(c: ContextCandidate): string {
  return c.type === "symbol" ? `s${c.row.id}` : `c${c.path}:${c.line_start}`;
}

/** Symbols and chunks matching an FTS query, fused by reciprocal rank (k = 10), tests demoted. */
function textCandidates(db: Db, match: string, n: number): ContextCandidate[] {
  const pool = Math.max(30, n * 4);
  const symHits = symbolsForText(db, match, pool);
  const chunkHits = chunkPlacesForText(db, match, pool);
  const scores = new Map<string, ContextCandidate>();
  const bump = (k: string, make: () => ContextCandidate, s: number) => {
    const have = scores.get(k);
    if (have) have.score += s;
    else {
      const c = make();
      c.score = s;
      scores.set(k, c);
    }
  };
  const rrf = (rank: number) => 1 / (10 + rank);
  symHits.forEach((r, i) => bump(`s${r.id}`, () => ({ type: "symbol", row: r, score: 0 }), rrf(i)));
  chunkHits.forEach((c, i) => {
    if (c.symbol_row !== null) {
      bump(
        `s${c.symbol_row}`,
        () => ({ type: "symbol", row: symbolByRowId(db, c.symbol_row!)!, score: 0 }),
        rrf(i),
      );
    } else {
      bump(`c${c.path}:${c.line_start}`, () => ({ type: "chunk", ...c, score: 0 }), rrf(i));
    }
  });
  const out = [...scores.values()].filter((c) => c.type === "chunk" || c.row);
  for (const c of out) if (isTestPath(c.type === "symbol" ? c.row.path : c.path)) c.score *= 0.6;
  out.sort((a, b) => b.score - a.score);
  return out.slice(0, n);
}
