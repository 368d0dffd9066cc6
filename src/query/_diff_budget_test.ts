import assert from "node:assert/strict";
import { fitInOrder, type Fitted, longestFittingHead } from "./_diff_budget.ts";

/** Items are strings costing their length; a cut form keeps a prefix of at least 2 characters. */
function form(s: string, cap: number): Fitted<string> | null {
  if (s.length <= cap) return { item: s, cost: s.length, cut: false };
  if (cap < 3) return null;
  return { item: s.slice(0, cap - 1) + "…", cost: cap, cut: true };
}

Deno.test("fitInOrder: takes in order, cuts what is too big, skips what cannot fit, keeps trying", () => {
  const r = fitInOrder(["aaaa", "bbbbbbbbbb", "cc", "d"], 10, 100, form);
  assert.deepEqual(r.taken.map((t) => t.item), ["aaaa", "bbbbb…"]);
  assert.equal(r.used, 10);
  assert.equal(r.cut, 1);
  assert.equal(r.omitted, 2, "cc and d no longer fit");
  // A later small item still fits after a big one is left out.
  const s = fitInOrder(["xxxxxxxxxxxxxxxxxxxx", "y"], 2, 100, (t, cap) => t.length <= cap ? form(t, cap) : null);
  assert.deepEqual(s.taken.map((t) => t.item), ["y"]);
  assert.equal(s.omitted, 1);
});

Deno.test("fitInOrder: the per-item cap bounds every item, and the total never passes the budget", () => {
  const items = Array.from({ length: 30 }, (_, i) => "z".repeat(5 + (i * 7) % 23));
  for (const budget of [0, 1, 7, 50, 120, 400]) {
    const r = fitInOrder(items, budget, 12, form);
    assert.ok(r.used <= budget, `budget ${budget}: used ${r.used}`);
    assert.ok(r.taken.every((t) => t.cost <= 12));
    assert.equal(r.taken.length + r.omitted, items.length);
    assert.equal(r.used, r.taken.reduce((a, t) => a + t.cost, 0));
  }
});

Deno.test("longestFittingHead: the longest prefix within the cap, or null", () => {
  const lines = ["a", "bb", "ccc", "dddd", "eeeee"];
  const cost = (kept: readonly string[]) => kept.join("").length;
  assert.deepEqual(longestFittingHead(lines, 6, cost, 1), ["a", "bb", "ccc"]);
  assert.deepEqual(longestFittingHead(lines, 100, cost, 1), lines);
  assert.equal(longestFittingHead(lines, 2, cost, 3), null);
  assert.deepEqual(longestFittingHead(lines, 2, cost, 1), ["a"]);
});
