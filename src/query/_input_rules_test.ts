import assert from "node:assert/strict";
import { CruxeError } from "../core/errors.ts";
import { cutQuery, MAX_QUERY_CHARS, parseEnum, parseLimit, requireName, requireQuery } from "./_input_rules.ts";

function invalid(fn: () => unknown, field: string) {
  assert.throws(fn, (e: unknown) => e instanceof CruxeError && e.code === "invalid_input" && e.data.field === field);
}

Deno.test("cutQuery: short queries untouched, long ones cut at a word boundary within the limit", () => {
  assert.deepEqual(cutQuery("rate limiter"), { text: "rate limiter", truncated: false });
  const words = "word ".repeat(MAX_QUERY_CHARS);
  const cut = cutQuery(words);
  assert.equal(cut.truncated, true);
  assert.ok(cut.text.length <= MAX_QUERY_CHARS);
  assert.ok(cut.text.endsWith("word"), "no half word at the end");
  // One long token has no boundary to cut at: exactly the limit.
  assert.equal(cutQuery("x".repeat(MAX_QUERY_CHARS + 5)).text.length, MAX_QUERY_CHARS);
});

Deno.test("requireQuery trims, refuses blank and non-strings, and reports a cut", () => {
  assert.deepEqual(requireQuery("  auth  "), { text: "auth", truncated: false });
  assert.equal(requireQuery("a ".repeat(MAX_QUERY_CHARS)).truncated, true);
  invalid(() => requireQuery("   "), "query");
  invalid(() => requireQuery(42), "query");
});

Deno.test("parseLimit: default when absent, clamp above the maximum, refuse non-integers and < 1", () => {
  assert.equal(parseLimit(undefined, 10, 100), 10);
  assert.equal(parseLimit(500, 10, 100), 100);
  assert.equal(parseLimit(7, 10, 100), 7);
  invalid(() => parseLimit(0, 10, 100), "limit");
  invalid(() => parseLimit(2.5, 10, 100, "topK"), "topK");
});

Deno.test("parseEnum and requireName", () => {
  assert.equal(parseEnum(" FULL ", "level", ["off", "full"] as const, "off"), "full");
  assert.equal(parseEnum(undefined, "level", ["off", "full"] as const, "off"), "off");
  invalid(() => parseEnum("loud", "level", ["off", "full"] as const, "off"), "level");
  invalid(() => requireName("x".repeat(600), "name"), "name");
});
