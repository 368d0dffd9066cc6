/**
 * K-fold cross-validation over repositories: the repositories are split into
 * K folds; for each fold the ranking parameters are chosen among a small
 * fixed set of candidates by their mean NDCG@10 on the other K−1 folds, and
 * the fold is scored with that choice. The held-out scores say how well the
 * tuning carries to repositories it never saw. Pure functions, no I/O.
 */
import { DEFAULT_RANKING, type RankingParams, withRanking } from "../../src/query/search/ranking_params.ts";
import { digest } from "../../src/core/ids.ts";
import { mean, type Scores } from "./metrics.ts";

/** One candidate setting of the ranking parameters. */
export interface Candidate {
  name: string;
  params: RankingParams;
}

/**
 * The settings tuning chooses among: the defaults, and each parameter moved
 * alone to a lower and a higher value (one at a time keeps the set small
 * enough to score every repository under every setting); with `semantic`,
 * also the semantic list's fusion weight.
 */
export function rankingCandidates(semantic = false): Candidate[] {
  const d = DEFAULT_RANKING;
  const out: Candidate[] = [{ name: "default", params: withRanking(d, {}) }];
  const add = (name: string, change: Parameters<typeof withRanking>[1]) =>
    out.push({ name, params: withRanking(d, change) });
  add("rrfK=5", { rrfK: 5 });
  add("rrfK=20", { rrfK: 20 });
  add("file_evidence=1", { prose: { file_evidence: 1 } });
  add("file_evidence=3", { prose: { file_evidence: 3 } });
  add("chunks=1", { prose: { chunks: 1 } });
  add("chunks=2.25", { prose: { chunks: 2.25 } });
  add("symbols=0.5", { prose: { symbols: 0.5 } });
  add("symbols=1.5", { prose: { symbols: 1.5 } });
  add("testPenalty=0.25", { testPenalty: 0.25 });
  add("pathAffinity=0.6", { pathAffinity: 0.6 });
  add("pathAffinity=1.2", { pathAffinity: 1.2 });
  add("dirAffinity=0.1", { dirAffinity: 0.1 });
  add("dirAffinity=0.4", { dirAffinity: 0.4 });
  add("fileAggregate=0.15", { fileAggregate: 0.15 });
  add("fileAggregate=0.5", { fileAggregate: 0.5 });
  add("fileSizePrior=0.15", { fileSizePrior: 0.15 });
  add("fileSizePrior=0.3", { fileSizePrior: 0.3 });
  add("fileSizePrior=0.5", { fileSizePrior: 0.5 });
  add("headerWithSource=0.7", { headerWithSource: 0.7 });
  add("fileCoverage=0.6", { fileCoverage: 0.6 });
  add("depthPenalty=0.08", { depthPenalty: 0.08 });
  add("depthPenalty=0.25", { depthPenalty: 0.25 });
  add("depthPenalty=0.4", { depthPenalty: 0.4 });
  add("moduleEntry=0.15", { moduleEntry: 0.15 });
  if (semantic) {
    add("semantic=0.5", { semantic: 0.5 });
    add("semantic=2", { semantic: 2 });
    add("semantic=3", { semantic: 3 });
  }
  return out;
}

/**
 * Assigns each repository to one of `k` folds: repositories ordered by a
 * hash of their name (a fixed shuffle that does not depend on list order),
 * then dealt round-robin, so fold sizes differ by at most one.
 */
export function assignFolds(repos: string[], k: number): string[][] {
  if (!Number.isInteger(k) || k < 2) throw new Error(`--folds must be an integer of at least 2 (got ${k})`);
  if (k > repos.length) throw new Error(`--folds ${k} is more than the ${repos.length} repositories`);
  const order = [...new Set(repos)].sort((a, b) => digest(a).localeCompare(digest(b)) || a.localeCompare(b));
  const folds: string[][] = Array.from({ length: k }, () => []);
  order.forEach((r, i) => folds[i % k].push(r));
  return folds;
}

/** One fold's outcome: the setting chosen on the other folds and the held-out score with it. */
export interface FoldOutcome {
  fold: number;
  repos: string[];
  chosen: string;
  train_ndcg: number;
  held_out: Scores;
}

/** Held-out figures of a cross-validation run. */
export interface CrossValidation {
  k: number;
  folds: FoldOutcome[];
  /** Mean and standard deviation of the folds' held-out scores. */
  mean: Scores;
  sd: Scores;
  /** Mean over repositories of each one's held-out score (every repository is held out once). */
  pooled: Scores;
  /** The same repositories under the default setting, for comparison. */
  plain: Scores;
}

const meanScores = (xs: Scores[]): Scores => ({
  ndcg: mean(xs.map((x) => x.ndcg)),
  mrr: mean(xs.map((x) => x.mrr)),
  r5: mean(xs.map((x) => x.r5)),
});

function sd(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/**
 * Cross-validates: `scores.get(candidate).get(repo)` is a repository's mean
 * scores under a candidate. Tuning picks the candidate with the best mean
 * NDCG@10 over the training repositories (ties go to the earlier candidate,
 * so the default wins a tie).
 */
export function crossValidate(
  candidates: string[],
  scores: Map<string, Map<string, Scores>>,
  folds: string[][],
): CrossValidation {
  const outcomes: FoldOutcome[] = [];
  const perRepo: Scores[] = [];
  folds.forEach((test, i) => {
    const train = folds.filter((_, j) => j !== i).flat();
    let best = candidates[0];
    let bestNdcg = -1;
    for (const c of candidates) {
      const m = mean(train.map((r) => scores.get(c)!.get(r)!.ndcg));
      if (m > bestNdcg + 1e-12) best = c, bestNdcg = m;
    }
    const held = test.map((r) => scores.get(best)!.get(r)!);
    perRepo.push(...held);
    outcomes.push({ fold: i + 1, repos: test, chosen: best, train_ndcg: bestNdcg, held_out: meanScores(held) });
  });
  const hs = outcomes.map((o) => o.held_out);
  const all = folds.flat();
  return {
    k: folds.length,
    folds: outcomes,
    mean: meanScores(hs),
    sd: { ndcg: sd(hs.map((h) => h.ndcg)), mrr: sd(hs.map((h) => h.mrr)), r5: sd(hs.map((h) => h.r5)) },
    pooled: meanScores(perRepo),
    plain: meanScores(all.map((r) => scores.get(candidates[0])!.get(r)!)),
  };
}

/** One query's scores under one setting, with the groups it belongs to (category, language). */
export interface GroupedScores {
  groups: string[];
  scores: Scores;
}

/**
 * Held-out and plain figures per group (category, language): each
 * repository's queries scored under the setting its fold was given
 * (`folds[i].chosen`) and under the first (default) candidate; a group's
 * figure is the mean over repositories of their mean over the group's
 * queries, as for the whole set. `perQuery(candidate, repo)` lists a
 * repository's queries under a candidate.
 */
export function groupBreakdown(
  cv: Pick<CrossValidation, "folds">,
  defaultCandidate: string,
  perQuery: (candidate: string, repo: string) => GroupedScores[],
): Record<string, { repos: number; queries: number; held_out: Scores; plain: Scores }> {
  const acc = new Map<string, { held: Scores[]; plain: Scores[]; queries: number }>();
  for (const f of cv.folds) {
    for (const repo of f.repos) {
      const held = byGroup(perQuery(f.chosen, repo));
      const plain = byGroup(perQuery(defaultCandidate, repo));
      for (const [g, xs] of held) {
        const e = acc.get(g) ?? { held: [], plain: [], queries: 0 };
        e.held.push(meanScores(xs));
        e.plain.push(meanScores(plain.get(g) ?? []));
        e.queries += xs.length;
        acc.set(g, e);
      }
    }
  }
  const out: Record<string, { repos: number; queries: number; held_out: Scores; plain: Scores }> = {};
  for (const [g, e] of [...acc.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    out[g] = { repos: e.held.length, queries: e.queries, held_out: meanScores(e.held), plain: meanScores(e.plain) };
  }
  return out;
}

function byGroup(xs: GroupedScores[]): Map<string, Scores[]> {
  const m = new Map<string, Scores[]>();
  for (const x of xs) for (const g of x.groups) m.set(g, [...(m.get(g) ?? []), x.scores]);
  return m;
}

/** One candidate judged alone against the default: whole-set NDCG and held-out NDCG when tuning may pick only it. */
export interface CandidateEffect {
  candidate: string;
  /** Mean NDCG@10 over all repositories under this setting. */
  ndcg: number;
  /** Pooled held-out NDCG@10 of a cross-validation over {default, this}. */
  held_out: number;
  /** Folds whose training repositories chose this setting over the default. */
  chosen_by: number;
}

/**
 * Each non-default candidate against the default alone (`candidates[0]`):
 * the held-out figure says whether the move carries to repositories the
 * choice was not made on, one move at a time.
 */
export function candidateEffects(
  candidates: string[],
  scores: Map<string, Map<string, Scores>>,
  folds: string[][],
): CandidateEffect[] {
  return candidates.slice(1).map((c) => {
    const cv = crossValidate([candidates[0], c], scores, folds);
    return {
      candidate: c,
      ndcg: mean([...scores.get(c)!.values()].map((s) => s.ndcg)),
      held_out: cv.pooled.ndcg,
      chosen_by: cv.folds.filter((f) => f.chosen === c).length,
    };
  });
}
