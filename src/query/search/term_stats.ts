/**
 * Corpus statistics for query terms, read from the FTS5 vocabulary of the
 * chunk index: how many chunks contain a term (or any term with a prefix).
 * Terms found in a large share of the corpus add little to BM25 and a lot
 * to query time, so the query builder leaves them out.
 */
import type { Db } from "../../state/db.ts";

/** Document frequencies over the chunk index. */
export interface TermStats {
  /** Number of chunks (upper bound: the largest chunk id). */
  docs: number;
  /** Chunks containing `term`. */
  df(term: string): number;
  /** Chunks containing some term that starts with `prefix` (summed per term: an upper bound). */
  dfPrefix(prefix: string): number;
}

const cache = new WeakMap<Db, { stats: TermStats; at: number }>();
/** Statistics are re-read after this long, so a re-published index is seen. */
const TTL_MS = 30_000;

/** The statistics of a project index (cached per connection for a short while). */
export function termStats(db: Db): TermStats {
  const hit = cache.get(db);
  if (hit && performance.now() - hit.at < TTL_MS) return hit.stats;
  try {
    db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.cruxe_chunks_vocab USING fts5vocab(main, chunks_fts, row)");
  } catch {
    // No vocabulary access: plan as if every term were present and rare (search everything, as before planning).
    return { docs: 0, df: () => 1, dfPrefix: () => 1 };
  }
  const one = db.prepare("SELECT doc FROM temp.cruxe_chunks_vocab WHERE term = ?");
  const range = db.prepare("SELECT sum(doc) AS d FROM temp.cruxe_chunks_vocab WHERE term >= ? AND term < ?");
  const docs = Number((db.prepare("SELECT max(id) AS n FROM chunks").get() as { n: number | null }).n ?? 0);
  const memo = new Map<string, number>();
  const stats: TermStats = {
    docs,
    df(term) {
      const k = "=" + term;
      if (!memo.has(k)) memo.set(k, Number((one.get(term) as { doc?: number } | undefined)?.doc ?? 0));
      return memo.get(k)!;
    },
    dfPrefix(prefix) {
      const k = "*" + prefix;
      if (!memo.has(k)) memo.set(k, Number((range.get(prefix, prefix + "\uffff") as { d: number | null }).d ?? 0));
      return memo.get(k)!;
    },
  };
  cache.set(db, { stats, at: performance.now() });
  return stats;
}
