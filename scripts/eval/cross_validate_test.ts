/**
 * Cross-validation and token-budget scoring of the evaluation: folds are a
 * partition by repository, tuning never sees the held-out fold, and budget
 * recall follows the overlap rule.
 */
import assert from "node:assert/strict";
import { assignFolds, candidateEffects, crossValidate, groupBreakdown, rankingCandidates } from "./cross_validate.ts";
import { budgetRecall, parseBudgets, summarizeBudgets } from "./budget.ts";
import { DEFAULT_RANKING } from "../../src/query/search/ranking_params.ts";
import type { Scores } from "./metrics.ts";

const s = (ndcg: number): Scores => ({ ndcg, mrr: ndcg, r5: ndcg });

Deno.test("cross-validation: folds partition the repositories, sizes differ by at most one, order-independent", () => {
  const repos = Array.from({ length: 11 }, (_, i) => `repo${i}`);
  const folds = assignFolds(repos, 4);
  assert.deepEqual(folds.flat().sort(), [...repos].sort());
  const sizes = folds.map((f) => f.length);
  assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `sizes ${sizes}`);
  assert.deepEqual(assignFolds([...repos].reverse(), 4), folds, "the listing order does not change the folds");
  assert.throws(() => assignFolds(repos, 1), /at least 2/);
  assert.throws(() => assignFolds(repos, 12), /more than/);
});

Deno.test("cross-validation: each fold is scored with the setting that won on the other folds", () => {
  // "b" is better on repos x and y, worse on z; held out, z gets the setting chosen without it.
  const scores = new Map([
    ["a", new Map([["x", s(0.5)], ["y", s(0.5)], ["z", s(0.9)]])],
    ["b", new Map([["x", s(0.7)], ["y", s(0.7)], ["z", s(0.1)]])],
  ]);
  const cv = crossValidate(["a", "b"], scores, [["x"], ["y"], ["z"]]);
  assert.deepEqual(cv.folds.map((f) => f.chosen), ["a", "a", "b"]);
  // x held out: train y+z → a (0.7) beats b (0.4); z held out: train x+y → b.
  assert.deepEqual(cv.folds.map((f) => f.held_out.ndcg), [0.5, 0.5, 0.1]);
  assert.ok(Math.abs(cv.pooled.ndcg - 1.1 / 3) < 1e-12);
  assert.ok(Math.abs(cv.plain.ndcg - 1.9 / 3) < 1e-12, "plain is the first (default) candidate");
  assert.ok(cv.sd.ndcg > 0);
  // A tie goes to the first candidate (the default).
  const tie = crossValidate(
    ["a", "b"],
    new Map([["a", new Map([["x", s(1)], ["y", s(1)]])], [
      "b",
      new Map([["x", s(1)], ["y", s(1)]]),
    ]]),
    [["x"], ["y"]],
  );
  assert.deepEqual(tie.folds.map((f) => f.chosen), ["a", "a"]);
});

Deno.test("cross-validation: the first candidate is the default ranking, and every candidate differs from it", () => {
  const c = rankingCandidates();
  assert.equal(c[0].name, "default");
  assert.deepEqual(c[0].params, { ...DEFAULT_RANKING, prose: { ...DEFAULT_RANKING.prose } });
  for (const x of c.slice(1)) assert.notDeepEqual(x.params, c[0].params, x.name);
  assert.equal(new Set(c.map((x) => x.name)).size, c.length);
});

Deno.test("budget recall: a target is covered by any overlapping item; file targets by any item in the file", () => {
  const items = [{ path: "src/a.py", line_start: 10, line_end: 20 }, { path: "src/b.py", line_start: 1, line_end: 3 }];
  assert.equal(budgetRecall(items, [{ path: "a.py", start_line: 18, end_line: 40 }]), 1);
  assert.equal(budgetRecall(items, [{ path: "src/a.py", start_line: 21, end_line: 40 }, "b.py"]), 0.5);
  assert.equal(budgetRecall(items, []), 0);
  assert.deepEqual(parseBudgets("1000,500,1000"), [500, 1000]);
  assert.throws(() => parseBudgets("500,abc"), /--budgets/);
  const sum = summarizeBudgets([
    { repo: "r", budget: 500, recall: 1, answer_tokens: 400, verbose_tokens: 480 },
    { repo: "r", budget: 500, recall: 0, answer_tokens: 300, verbose_tokens: 520 },
  ]);
  assert.equal(sum[0].recall, 0.5);
  assert.equal(sum[0].over_budget, 1);
  assert.equal(sum[0].published, 0.685);
});

Deno.test("cross-validation: per-group figures score each repository's queries under its fold's setting", () => {
  const cv = {
    folds: [{ fold: 1, repos: ["x"], chosen: "b", train_ndcg: 0, held_out: s(0) }, {
      fold: 2,
      repos: ["y"],
      chosen: "a",
      train_ndcg: 0,
      held_out: s(0),
    }],
  };
  const table: Record<string, Record<string, { groups: string[]; scores: Scores }[]>> = {
    a: {
      x: [{ groups: ["prose", "c"], scores: s(0.2) }, { groups: ["symbol", "c"], scores: s(1) }],
      y: [{ groups: ["prose", "go"], scores: s(0.6) }, { groups: ["prose", "go"], scores: s(0.8) }],
    },
    b: {
      x: [{ groups: ["prose", "c"], scores: s(0.4) }, { groups: ["symbol", "c"], scores: s(1) }],
      y: [{ groups: ["prose", "go"], scores: s(0) }, { groups: ["prose", "go"], scores: s(0) }],
    },
  };
  const g = groupBreakdown(cv, "a", (c, r) => table[c][r]);
  assert.deepEqual(Object.keys(g), ["c", "go", "prose", "symbol"]);
  // prose: x held out under b (0.4), y under a (mean 0.7): mean over repositories 0.55; plain: 0.2 and 0.7.
  assert.ok(Math.abs(g.prose.held_out.ndcg - 0.55) < 1e-12);
  assert.ok(Math.abs(g.prose.plain.ndcg - 0.45) < 1e-12);
  assert.equal(g.prose.repos, 2);
  assert.equal(g.prose.queries, 3);
  assert.ok(Math.abs(g.c.held_out.ndcg - 0.7) < 1e-12);
  assert.equal(g.symbol.repos, 1);
});

Deno.test("cross-validation: a candidate's effect is judged against the default alone", () => {
  const scores = new Map([
    ["d", new Map([["x", s(0.5)], ["y", s(0.5)], ["z", s(0.5)]])],
    ["up", new Map([["x", s(0.6)], ["y", s(0.6)], ["z", s(0.6)]])],
    ["mixed", new Map([["x", s(0.9)], ["y", s(0.2)], ["z", s(0.2)]])],
  ]);
  const [up, mixed] = candidateEffects(["d", "up", "mixed"], scores, [["x"], ["y"], ["z"]]);
  assert.equal(up.chosen_by, 3);
  assert.ok(Math.abs(up.held_out - 0.6) < 1e-12);
  // mixed wins only on x: held out, x gets the default; y and z get mixed (chosen on folds containing x).
  assert.equal(mixed.chosen_by, 2);
  assert.ok(Math.abs(mixed.held_out - 0.3) < 1e-12);
  assert.ok(Math.abs(mixed.ndcg - 1.3 / 3) < 1e-12);
});
