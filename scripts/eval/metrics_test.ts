/**
 * The retrieval metrics: every target is credited at its first matching rank,
 * a rank gains once, so scores do not depend on the order of the labels.
 */
import assert from "node:assert/strict";
import { ndcgAt, queryScores, recallAt, reciprocalRank, type Retrieved, type Target } from "./metrics.ts";

const dcg = (ranks: number[]) => ranks.reduce((s, i) => s + 1 / Math.log2(i + 2), 0);
const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-12, `${what}: ${a} vs ${b}`);

Deno.test("metrics: the same results score the same whatever order the labels are listed in", () => {
  // Result 0 is a whole file matching both targets; result 1 matches only the first target.
  const results: Retrieved[] = [{ path: "a.py" }, { path: "a.py", line_start: 1, line_end: 3 }, { path: "b.py" }];
  const labels: Target[] = [
    { path: "a.py", start_line: 1, end_line: 5 },
    { path: "a.py", start_line: 40, end_line: 50 },
    "b.py",
  ];
  const orders = [[0, 1, 2], [1, 0, 2], [2, 1, 0], [1, 2, 0]].map((o) => o.map((i) => labels[i]));
  const scores = orders.map((t) => [ndcgAt(results, t), reciprocalRank(results, t), recallAt(results, t, 5)]);
  for (const s of scores) assert.deepEqual(s, scores[0]);
  // Both a.py targets first match at rank 0 (counted once), b.py at rank 2.
  close(scores[0][0], dcg([0, 2]) / dcg([0, 1, 2]), "ndcg");
  assert.equal(scores[0][2], 1, "every target is found within 5");
});

Deno.test("metrics: one result matching several targets gains once", () => {
  const t: Target[] = ["x.go", "pkg/x.go"];
  const one = [{ path: "pkg/x.go" }];
  close(ndcgAt(one, t), dcg([0]) / dcg([0, 1]), "one rank, two targets");
  assert.equal(recallAt(one, t, 5), 1, "both targets are matched");
  assert.equal(reciprocalRank(one, t), 1);
});

Deno.test("metrics: secondary targets count like relevant ones", () => {
  const results: Retrieved[] = [{ path: "other.ts" }, { path: "helper.ts" }, { path: "main.ts" }];
  const s = queryScores(results, ["main.ts"], ["helper.ts"]);
  close(s.ndcg, dcg([1, 2]) / dcg([0, 1]), "ndcg");
  assert.equal(s.mrr, 1 / 2, "the secondary target is the first hit");
  assert.equal(s.r5, 1);
  const without = queryScores(results, ["main.ts"]);
  assert.equal(without.mrr, 1 / 3);
  assert.ok(without.ndcg < 1 && without.ndcg !== s.ndcg);
});

Deno.test("metrics: more than 10 targets: NDCG's ideal is capped at k, recall is over all targets", () => {
  const targets: Target[] = Array.from({ length: 14 }, (_, i) => `f${i}.rs`);
  const results: Retrieved[] = Array.from({ length: 14 }, (_, i) => ({ path: `f${i}.rs` }));
  assert.equal(ndcgAt(results, targets, 10), 1, "ten hits in ten ranks is ideal");
  assert.equal(recallAt(results, targets, 5), 5 / 14);
  // Hits beyond rank k gain nothing.
  const late = [...Array.from({ length: 10 }, (_, i) => ({ path: `noise${i}.rs` })), ...results];
  assert.equal(ndcgAt(late, targets, 10), 0);
  assert.equal(reciprocalRank(late, targets, 10), 0);
});

Deno.test("metrics: whole-file results match on path, ranged results need overlapping lines", () => {
  const t: Target[] = [{ path: "src/lib.rs", start_line: 10, end_line: 20 }];
  assert.equal(recallAt([{ path: "src/lib.rs" }], t, 5), 1, "a whole-file result covers the range");
  assert.equal(recallAt([{ path: "src/lib.rs", line_start: 20, line_end: 30 }], t, 5), 1, "touching lines overlap");
  assert.equal(recallAt([{ path: "src/lib.rs", line_start: 21, line_end: 30 }], t, 5), 0, "disjoint lines");
  assert.equal(recallAt([{ path: "lib.rs", line_start: 1, line_end: 9 }], t, 5), 0);
  // A file target is met by any result in that file, ranged or not; suffixes match on a path boundary.
  assert.equal(recallAt([{ path: "a/src/lib.rs", line_start: 500, line_end: 501 }], ["src/lib.rs"], 5), 1);
  assert.equal(recallAt([{ path: "xsrc/lib.rs" }], ["src/lib.rs"], 5), 0);
});

Deno.test("metrics: no targets or no results score 0", () => {
  assert.equal(ndcgAt([{ path: "a" }], []), 0);
  assert.equal(recallAt([], ["a"], 5), 0);
  assert.equal(reciprocalRank([], ["a"]), 0);
});
