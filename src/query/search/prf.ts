/**
 * Pseudo-relevance feedback (RM3-style, learned from no labels): the words
 * that best separate a query's first results from the rest of the
 * repository become extra search words. A word's weight is its share of each
 * top passage, weighted by that passage's BM25 evidence, times its inverse
 * document frequency over the chunk index; words of the query itself (or of
 * its stems), stop words, numbers and words found in a large share of the
 * repository are left out. Pure over the passages and the term statistics.
 */
import { splitIdentifier } from "../../core/identifiers.ts";
import { COMMON_FLOOR, COMMON_SHARE, lightStem, queryTerms } from "./fts_query.ts";
import type { TermStats } from "./term_stats.ts";

/** How many top passages feed the expansion, how many words it adds. */
export const PRF = { passages: 6, words: 6, shortlist: 24 };

/** A top passage: its text and its BM25 value (more negative is better). */
export interface FeedbackPassage {
  content: string;
  r?: number;
}

/** Lower-case words of a passage as the index splits them (identifier parts, 3+ letters). */
function passageWords(text: string): string[] {
  const out: string[] = [];
  for (const tok of text.match(/[A-Za-z][A-Za-z0-9]*/g) ?? []) {
    const parts = splitIdentifier(tok);
    for (const p of parts.length ? parts : [tok.toLowerCase()]) if (p.length >= 3 && !/\d/.test(p)) out.push(p);
  }
  return out;
}

/**
 * The expansion words for a query whose best passages are `top` (best
 * first): at most PRF.words, best first, none of them a query word or stem.
 */
export function feedbackTerms(query: string, top: FeedbackPassage[], stats: TermStats): string[] {
  const passages = top.slice(0, PRF.passages);
  if (passages.length < 2 || !stats.docs) return [];
  const own = new Set<string>();
  for (const t of queryTerms(query)) own.add(t.term), own.add(lightStem(t.term));
  const stop = new Set(queryTerms(query).filter((t) => t.stop).map((t) => t.term));
  const evidence = passages.map((p) => Math.max(1e-6, -(p.r ?? -1)));
  const total = evidence.reduce((a, b) => a + b, 0);
  const weight = new Map<string, number>();
  passages.forEach((p, i) => {
    const words = passageWords(p.content);
    if (!words.length) return;
    const tf = new Map<string, number>();
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    for (const [w, n] of tf) {
      if (own.has(w) || own.has(lightStem(w)) || stop.has(w) || queryTerms(w)[0]?.stop) continue;
      weight.set(w, (weight.get(w) ?? 0) + (evidence[i] / total) * (n / words.length));
    }
  });
  const limit = Math.max(stats.docs * COMMON_SHARE, COMMON_FLOOR);
  const shortlist = [...weight].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, PRF.shortlist);
  const scored: [string, number][] = [];
  for (const [w, p] of shortlist) {
    const df = stats.df(w);
    // A word only the top passages hold says nothing new; one found nearly everywhere says nothing at all.
    if (df < 2 || df > limit) continue;
    scored.push([w, p * Math.log(1 + stats.docs / df)]);
  }
  return scored.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, PRF.words).map(([w]) => w);
}
