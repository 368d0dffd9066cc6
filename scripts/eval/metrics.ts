/**
 * Retrieval metrics with the semble benchmark's matching rules: NDCG@10 with
 * binary gain, MRR and Recall@5. Pure functions, no I/O.
 */

/** A labelled target: a file, or a line range in a file. */
export type Target = string | { path: string; start_line: number; end_line: number };

/** A returned result as the metrics see it (lines absent for whole-file results). */
export interface Retrieved {
  path: string;
  line_start?: number;
  line_end?: number;
}

/** Path equality, or one path ends with `/` + the other. */
export function pathMatches(a: string, b: string): boolean {
  return a === b || a.endsWith("/" + b) || b.endsWith("/" + a);
}

/** Whether a result satisfies a target (line targets need overlapping lines when the result has lines). */
export function matches(r: Retrieved, t: Target): boolean {
  if (typeof t === "string") return pathMatches(r.path, t);
  if (!pathMatches(r.path, t.path)) return false;
  if (r.line_start === undefined || r.line_end === undefined) return true;
  return r.line_start <= t.end_line && t.start_line <= r.line_end;
}

/**
 * For each target, the 0-based rank of its first matching result within the
 * first `depth` results, or -1. Independent of the order the targets are
 * listed in.
 */
export function firstMatchRanks(results: Retrieved[], targets: Target[], depth: number): number[] {
  const n = Math.min(depth, results.length);
  return targets.map((t) => {
    for (let i = 0; i < n; i++) if (matches(results[i], t)) return i;
    return -1;
  });
}

/**
 * Ranks (0-based, ascending) that gain: each target is credited at its first
 * matching rank, and a rank counts once however many targets it matches. The
 * order of the labels does not change the answer.
 */
export function creditedRanks(results: Retrieved[], targets: Target[], depth: number): number[] {
  return [...new Set(firstMatchRanks(results, targets, depth).filter((i) => i >= 0))].sort((a, b) => a - b);
}

/** NDCG@k with binary gain; the ideal uses min(k, number of targets). */
export function ndcgAt(results: Retrieved[], targets: Target[], k = 10): number {
  if (!targets.length) return 0;
  const dcg = creditedRanks(results, targets, k).reduce((s, i) => s + 1 / Math.log2(i + 2), 0);
  let ideal = 0;
  for (let i = 0; i < Math.min(k, targets.length); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}

/** Reciprocal rank of the first result matching any target (0 if none in the first `k`). */
export function reciprocalRank(results: Retrieved[], targets: Target[], k = 10): number {
  for (let i = 0; i < Math.min(k, results.length); i++) {
    if (targets.some((t) => matches(results[i], t))) return 1 / (i + 1);
  }
  return 0;
}

/** Fraction of targets matched by at least one of the first `k` results. */
export function recallAt(results: Retrieved[], targets: Target[], k = 5): number {
  if (!targets.length) return 0;
  return firstMatchRanks(results, targets, k).filter((i) => i >= 0).length / targets.length;
}

/** One query's scores. */
export interface Scores {
  ndcg: number;
  mrr: number;
  r5: number;
}

/**
 * NDCG@10, MRR@10 and Recall@5 of one query: relevant and secondary targets
 * both count (semble rules), each target at its first matching rank.
 */
export function queryScores(results: Retrieved[], relevant: Target[], secondary: Target[] = []): Scores {
  const targets = [...relevant, ...secondary];
  return {
    ndcg: ndcgAt(results, targets, 10),
    mrr: reciprocalRank(results, targets, 10),
    r5: recallAt(results, targets, 5),
  };
}

/** The q-quantile (0..1) of a list of numbers (nearest rank). */
export function quantile(xs: number[], q: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

/** Arithmetic mean (0 for an empty list). */
export function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}
