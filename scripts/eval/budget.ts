/**
 * Token-budget recall of get_code_context by the benchmark's rule: a
 * labelled target is covered once any returned item overlaps its span (a
 * file target: any item in that file); a query's recall is covered targets
 * over targets. The tokens counted are those of the whole answer an agent
 * reads (items, fields and the metadata envelope), estimated like the server
 * does. Pure functions, no I/O.
 */
import { matches, mean, type Retrieved, type Target } from "./metrics.ts";

/** semble's published chunk-retrieval recall at each budget (all benchmark repositories). */
export const PUBLISHED_BUDGET_RECALL: Record<number, number> = { 500: 0.685, 1000: 0.849, 2000: 0.938, 4000: 0.976 };

/** Share of `targets` that some returned item covers (0 when there are no targets). */
export function budgetRecall(items: Retrieved[], targets: Target[]): number {
  if (!targets.length) return 0;
  return targets.filter((t) => items.some((i) => matches(i, t))).length / targets.length;
}

/** Parses `--budgets 500,1000`: positive integers, ascending, no duplicates. */
export function parseBudgets(s: string): number[] {
  const xs = s.split(",").map((x) => x.trim()).filter(Boolean).map(Number);
  if (!xs.length || xs.some((x) => !Number.isInteger(x) || x < 100)) {
    throw new Error(`--budgets takes integers of at least 100 separated by commas (got "${s}")`);
  }
  return [...new Set(xs)].sort((a, b) => a - b);
}

/** One query at one budget. */
export interface BudgetOutcome {
  repo: string;
  budget: number;
  recall: number;
  /** Estimated tokens of the whole answer as an agent reads it (compact form, envelope included). */
  answer_tokens: number;
  /** The same for the verbose form. */
  verbose_tokens: number;
}

/** Per budget: mean recall over repositories (of per-query means), answer tokens mean and max. */
export function summarizeBudgets(outcomes: BudgetOutcome[]) {
  const budgets = [...new Set(outcomes.map((o) => o.budget))].sort((a, b) => a - b);
  return budgets.map((b) => {
    const at = outcomes.filter((o) => o.budget === b);
    const repos = [...new Set(at.map((o) => o.repo))];
    return {
      budget: b,
      recall: mean(repos.map((r) => mean(at.filter((o) => o.repo === r).map((o) => o.recall)))),
      answer_tokens_mean: mean(at.map((o) => o.answer_tokens)),
      answer_tokens_max: Math.max(0, ...at.map((o) => o.answer_tokens)),
      verbose_tokens_max: Math.max(0, ...at.map((o) => o.verbose_tokens)),
      over_budget: at.filter((o) => o.verbose_tokens > b).length,
      published: PUBLISHED_BUDGET_RECALL[b],
    };
  });
}
