/**
 * Per-repository term associations from comment and identifier
 * co-occurrence, learned from no labels: for a query word, the identifier
 * parts that the passages whose comments use the word hold far more often
 * than the repository at large (so `auth` reaches `login_required` in a
 * repository that writes both together). Counted on demand from the index,
 * at most ASSOC.scan passages per word, and kept per index connection.
 */
import type { Db } from "../../state/db.ts";
import { chunksMatching } from "../../state/read/search.ts";
import { splitIdentifier } from "../../core/identifiers.ts";
import { COMMON_FLOOR, COMMON_SHARE, ftsString, lightStem, queryTerms } from "./fts_query.ts";
import type { TermStats } from "./term_stats.ts";

/** Passages read per word, associations kept per word, words added per query, least co-occurrence counted. */
export const ASSOC = { scan: 400, perWord: 4, words: 6, minShared: 3, shortlist: 12 };

/** A comment line (`//`, `#`, `*`, `/*`, `--`, `;`, a docstring quote). */
const COMMENT = /^\s*(\/\/|#|\*|\/\*|--|;|"""|''')/;

/** The words a passage's comments use, and the identifier parts its code uses. */
export function splitPassage(content: string): { comment: Set<string>; code: Set<string> } {
  const comment = new Set<string>();
  const code = new Set<string>();
  for (const line of content.split("\n")) {
    const isComment = COMMENT.test(line);
    for (const tok of line.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
      if (isComment) {
        comment.add(tok.toLowerCase());
        continue;
      }
      for (const p of splitIdentifier(tok)) if (p.length >= 3 && !/\d/.test(p)) code.add(p);
    }
  }
  return { comment, code };
}

/**
 * The identifier parts associated with `word` among `passages` (those the
 * index matched for it), best first: the share of the passages whose
 * comments use the word that hold the part, times the part's idf; parts in
 * fewer than ASSOC.minShared of them, or in a large share of the repository,
 * are left out.
 */
export function associationsOf(
  word: string,
  passages: { content: string }[],
  stats: TermStats,
  exclude: ReadonlySet<string>,
): string[] {
  const shared = new Map<string, number>();
  let withWord = 0;
  for (const p of passages) {
    const { comment, code } = splitPassage(p.content);
    if (!comment.has(word)) continue;
    withWord++;
    for (const part of code) shared.set(part, (shared.get(part) ?? 0) + 1);
  }
  if (!withWord || !stats.docs) return [];
  const limit = Math.max(stats.docs * COMMON_SHARE, COMMON_FLOOR);
  const short = [...shared].filter(([p, n]) => n >= ASSOC.minShared && !exclude.has(p) && !exclude.has(lightStem(p)))
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, ASSOC.shortlist);
  const scored: [string, number][] = [];
  for (const [p, n] of short) {
    const df = stats.df(p);
    if (df < 2 || df > limit) continue;
    scored.push([p, (n / withWord) * Math.log(1 + stats.docs / df)]);
  }
  return scored.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, ASSOC.perWord).map(([p]) => p);
}

const cache = new WeakMap<Db, Map<string, string[]>>();

/** The words a prose query's associations add (none of them a query word or its stem), at most ASSOC.words. */
export function associatedTerms(db: Db, text: string, terms: string[], stats: TermStats): string[] {
  const own = new Set<string>();
  for (const t of queryTerms(text)) own.add(t.term), own.add(lightStem(t.term));
  const memo = cache.get(db) ?? new Map<string, string[]>();
  cache.set(db, memo);
  const out: string[] = [];
  for (const w of terms) {
    if (w.length < 3 || /\d/.test(w)) continue;
    if (!memo.has(w)) {
      const passages = chunksMatching(db, ftsString(w), {}, ASSOC.scan);
      memo.set(w, associationsOf(w, passages, stats, new Set([w, lightStem(w)])));
    }
    for (const a of memo.get(w)!) if (!own.has(a) && !out.includes(a)) out.push(a);
  }
  return out.slice(0, ASSOC.words);
}
