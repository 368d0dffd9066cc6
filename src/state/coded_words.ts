/**
 * Words the store repeats on nearly every row (a symbol's kind and
 * visibility, an edge's kind) kept as short codes: the word's position in a
 * list, as text ('0', '1', …; the columns have text affinity). A word not
 * in its list is kept as itself (no listed or unlisted word is ever made of
 * digits). The lists are append-only: a stored code never changes meaning.
 * The views spell the words back with `wordSql`.
 */
import { SYMBOL_KINDS } from "../core/types.ts";

/** Symbol kinds by stored code: the vocabulary's own order (append-only, pinned by tests/coded_words_test.ts). */
export const SYMBOL_KIND_WORDS: readonly string[] = SYMBOL_KINDS;

/** Symbol visibilities by stored code. */
export const VISIBILITY_WORDS = ["public", "private"] as const;

/** Edge kinds by stored code. */
export const EDGE_KIND_WORDS = ["calls", "imports", "extends", "implements"] as const;

/** What the store keeps for `word` (null stays null). */
export function wordCode(words: readonly string[], word: string | null): string | null {
  if (word === null) return null;
  const i = words.indexOf(word);
  return i < 0 ? word : String(i);
}

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** SQL spelling the word kept in column `col` (a code's word, any other value itself). */
export function wordSql(words: readonly string[], col: string): string {
  return `CASE ${col} ${words.map((w, i) => `WHEN '${i}' THEN ${quote(w)}`).join(" ")} ELSE ${col} END`;
}

/** SQL giving the code of the word in column `col` (an upgrade's rewrite of stored words). */
export function codeSql(words: readonly string[], col: string): string {
  return `CASE ${col} ${words.map((w, i) => `WHEN ${quote(w)} THEN '${i}'`).join(" ")} ELSE ${col} END`;
}
