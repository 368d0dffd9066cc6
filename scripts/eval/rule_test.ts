/**
 * The landing rule: a method lands only when the two sets' mean change is
 * positive, no language of either set loses more than 0.01, and at least 4
 * of the 5 dev folds hold.
 */
import assert from "node:assert/strict";
import { judge, type RepoPair } from "./rule.ts";

const dev = (n: number, delta: (i: number) => number, language = (i: number) => `l${i % 3}`): RepoPair[] =>
  Array.from(
    { length: n },
    (_, i) => ({ set: "dev", repo: `r${i}`, language: language(i), base: 0.5, method: 0.5 + delta(i) }),
  );
const gen = (delta: number): RepoPair[] => [
  { set: "generated", repo: "g1", language: "go", base: 0.3, method: 0.3 + delta },
  { set: "generated", repo: "g2", language: "rust", base: 0.3, method: 0.3 + delta },
];

Deno.test("rule: a change that raises both sets everywhere lands", () => {
  const v = judge([...dev(10, () => 0.02), ...gen(0.01)]);
  assert.equal(v.lands, true, v.reasons.join("; "));
  assert.equal(v.foldsHeld, 5);
  assert.ok(Math.abs(v.delta - 0.015) < 1e-9);
});

Deno.test("rule: a language losing more than 0.01 stops it, even with a higher mean", () => {
  const v = judge([...dev(10, () => 0.05), ...gen(0), {
    set: "generated",
    repo: "g3",
    language: "c",
    base: 0.5,
    method: 0.48,
  }]);
  assert.equal(v.lands, false);
  assert.match(v.reasons.join(";"), /generated c drops 0.020/);
});

Deno.test("rule: gains on the dev set alone that the generated set loses do not land", () => {
  const v = judge([...dev(10, () => 0.004), ...gen(-0.006)]);
  assert.equal(v.lands, false);
  assert.match(v.reasons.join(";"), /mean change/);
});

Deno.test("rule: a gain held in fewer than 4 of 5 folds does not land", () => {
  // Two repositories gain a lot, the rest lose a little: the mean rises, most folds drop.
  const v = judge([...dev(10, (i) => (i < 2 ? 0.2 : -0.005), () => "x"), ...gen(0.01)]);
  assert.ok(v.delta > 0);
  assert.ok(v.foldsHeld < 4, `folds held ${v.foldsHeld}`);
  assert.equal(v.lands, false);
});
