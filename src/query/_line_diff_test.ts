import assert from "node:assert/strict";
import { diffLines, type DiffOp, hunkText, lineSimilarity, MAX_EDIT_DISTANCE, unifiedHunks } from "./_line_diff.ts";

/** Applies a script to its base: must give the head exactly. */
function apply(ops: DiffOp[]): { base: string[]; head: string[] } {
  return {
    base: ops.filter((o) => o.op !== "+").map((o) => o.text),
    head: ops.filter((o) => o.op !== "-").map((o) => o.text),
  };
}

/** Length of a longest common subsequence, by dynamic programming (the reference the diff must meet). */
function lcs(a: string[], b: string[]): number {
  const dp = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      dp[i][j] = a[i - 1] === b[j - 1] ? dp[i - 1][j - 1] + 1 : Math.max(dp[i - 1][j], dp[i][j - 1]);
    }
  }
  return dp[a.length][b.length];
}

Deno.test("diffLines: identical, empty and one-sided inputs", () => {
  assert.deepEqual(diffLines(["a", "b"], ["a", "b"]), [{ op: "=", text: "a" }, { op: "=", text: "b" }]);
  assert.deepEqual(diffLines([], []), []);
  assert.deepEqual(diffLines([], ["x"]), [{ op: "+", text: "x" }]);
  assert.deepEqual(diffLines(["x"], []), [{ op: "-", text: "x" }]);
});

Deno.test("diffLines: a changed line is removed then added, in place", () => {
  assert.deepEqual(diffLines(["a", "b", "c"], ["a", "B", "c"]), [
    { op: "=", text: "a" },
    { op: "-", text: "b" },
    { op: "+", text: "B" },
    { op: "=", text: "c" },
  ]);
});

Deno.test("diffLines: random inputs give a minimal script that rebuilds both sides", () => {
  // A small deterministic generator (no Math.random: the test must be repeatable).
  let seed = 12345;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  for (let round = 0; round < 300; round++) {
    const a = Array.from({ length: rnd(12) }, () => "abcd"[rnd(4)]);
    const b = Array.from({ length: rnd(12) }, () => "abcd"[rnd(4)]);
    const ops = diffLines(a, b);
    assert.deepEqual(apply(ops), { base: a, head: b }, `round ${round}: ${a} → ${b}`);
    assert.equal(ops.filter((o) => o.op === "=").length, lcs(a, b), `round ${round}: not minimal`);
  }
});

Deno.test("diffLines: past the edit bound the middle is replaced wholesale, still correct", () => {
  const a = Array.from({ length: MAX_EDIT_DISTANCE }, (_, i) => `a${i}`);
  const b = Array.from({ length: MAX_EDIT_DISTANCE }, (_, i) => `b${i}`);
  const ops = diffLines(["head", ...a, "tail"], ["head", ...b, "tail"]);
  assert.deepEqual(apply(ops), { base: ["head", ...a, "tail"], head: ["head", ...b, "tail"] });
  const count = (op: DiffOp["op"]) => ops.filter((o) => o.op === op).length;
  assert.deepEqual([count("-"), count("+")], [MAX_EDIT_DISTANCE, MAX_EDIT_DISTANCE]);
});

Deno.test("unifiedHunks: context lines, line numbers and merged neighbours", () => {
  const base = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"];
  const head = ["1", "2", "three", "4", "5", "6", "7", "8", "9", "10", "11"];
  const hunks = unifiedHunks(diffLines(base, head), 1, 100, 200);
  assert.equal(hunks.length, 2);
  assert.deepEqual(hunks[0], {
    base_start: 101,
    base_lines: 3,
    head_start: 201,
    head_lines: 3,
    lines: [" 2", "-3", "+three", " 4"],
  });
  assert.deepEqual(hunks[1], { base_start: 109, base_lines: 1, head_start: 209, head_lines: 2, lines: [" 10", "+11"] });
  // With more context the two changes share one hunk.
  assert.equal(unifiedHunks(diffLines(base, head), 4).length, 1);
  assert.deepEqual(unifiedHunks(diffLines(base, base)), []);
});

Deno.test("unifiedHunks: a pure addition to an empty side starts at line 0 of that side", () => {
  const [h] = unifiedHunks(diffLines([], ["x", "y"]));
  assert.deepEqual(h, { base_start: 0, base_lines: 0, head_start: 1, head_lines: 2, lines: ["+x", "+y"] });
});

Deno.test("lineSimilarity: 1 for equal, 0 for disjoint, in between for near-identical", () => {
  assert.equal(lineSimilarity(["a", "b"], ["a", "b"]), 1);
  assert.equal(lineSimilarity([], []), 1);
  assert.equal(lineSimilarity(["a"], ["b"]), 0);
  assert.equal(lineSimilarity(["a", "b", "c", "d"], ["a", "b", "c", "e"]), 0.75);
});

Deno.test("unifiedHunks: only changes the filter counts open hunks", () => {
  const base = ["a", "b", "c", "d", "e", "f", "g", "h"];
  const head = ["a", "B", "c", "d", "e", "f", "G", "h"];
  const hunks = unifiedHunks(diffLines(base, head), 1, 1, 1, (l) => l.line !== 2);
  assert.equal(hunks.length, 1);
  assert.deepEqual(hunks[0].lines, [" f", "-g", "+G", " h"]);
  assert.equal(hunkText(hunks[0]), "@@ -6,3 +6,3 @@\n f\n-g\n+G\n h");
});

Deno.test("unifiedHunks: a hunk never splits a run of changes", () => {
  const ops = diffLines(["a", "b", "c"], ["a", "B", "c"]);
  const [h] = unifiedHunks(ops, 0, 1, 1, (l) => l.op === "-");
  assert.deepEqual(h.lines, ["-b", "+B"]);
});
