/**
 * Corpus statistics for query terms, read from the FTS5 vocabulary of the
 * chunk index: how many chunks contain a term (or any term with a prefix).
 * Terms found in a large share of the corpus add little to BM25 and a lot
 * to query time, so the query builder leaves them out.
 */
import type { Db } from "../../state/db.ts";
import { chunkVocabulary } from "../../state/read/search.ts";
import { chunkCountBound } from "../../state/read/chunks.ts";
import { COMMON_FLOOR, COMMON_SHARE, ROW_BUDGET } from "./fts_query.ts";

/** Document frequencies over the chunk index. */
export interface TermStats {
  /** Number of chunks (upper bound: the largest chunk id). */
  docs: number;
  /** Chunks containing `term` (bounded on a large index: see EXACT_COUNT_DOCS). */
  df(term: string): number;
  /** Chunks containing some term that starts with `prefix` (summed per term: an upper bound; bounded likewise). */
  dfPrefix(prefix: string): number;
  /** Chunks that surely match some term starting with `prefix` (a lower bound; 0 when nothing is known). */
  prefixAtLeast?(prefix: string): number;
  /**
   * How far the counts can be trusted: `matches` when `df` counts the chunks a term matches (exact below its
   * bound), `upper` when it reads the vocabulary without a bound (taken as an upper bound only), `none` (or absent)
   * when nothing was counted (every term reads as present and rare).
   */
  counts?: "matches" | "upper" | "none";
}

const cache = new WeakMap<Db, { stats: TermStats; at: number }>();
/** Statistics are re-read after this long, so a re-published index is seen. */
const TTL_MS = 30_000;
/**
 * Up to this many chunks, counts are exact (a posting list is at most this
 * long). Past it, `df` and `dfPrefix` stop just above the share of the
 * corpus that makes a term too common to search (COMMON_SHARE, and never
 * below ROW_BUDGET): such a term reads as that bound, whatever its real count.
 */
const EXACT_COUNT_DOCS = 150_000;

/** The statistics of a project index (cached per connection for a short while). */
export function termStats(db: Db): TermStats {
  const hit = cache.get(db);
  if (hit && performance.now() - hit.at < TTL_MS) return hit.stats;
  const vocab = chunkVocabulary(db);
  // No vocabulary access: plan as if every term were present and rare (search everything, as before planning).
  if (!vocab) return { docs: 0, df: () => 1, dfPrefix: () => 1, counts: "none" };
  const docs = chunkCountBound(db);
  // Counting a term costs a read of its postings: on a large index, counts stop just past the share above
  // which the planner leaves a term out (it needs no more than "too common" there).
  const bounded = docs > EXACT_COUNT_DOCS;
  const cap = Math.floor(Math.max(docs * COMMON_SHARE, COMMON_FLOOR, ROW_BUDGET)) + 1;
  const memo = new Map<string, number>();
  const stats: TermStats = {
    docs,
    counts: bounded ? "matches" : "upper",
    df(term) {
      const k = "=" + term;
      if (!memo.has(k)) memo.set(k, bounded ? vocab.dfAtMost(term, cap) : vocab.df(term));
      return memo.get(k)!;
    },
    dfPrefix(prefix) {
      const k = "*" + prefix;
      if (!memo.has(k)) memo.set(k, vocab.dfPrefix(prefix, bounded ? cap : Infinity));
      return memo.get(k)!;
    },
    prefixAtLeast(prefix) {
      const k = ">" + prefix;
      // The terms counted on the way count as matches only where `df` does (a bounded count).
      if (!memo.has(k)) memo.set(k, vocab.prefixAtLeast(prefix, bounded));
      return memo.get(k)!;
    },
  };
  cache.set(db, { stats, at: performance.now() });
  return stats;
}
