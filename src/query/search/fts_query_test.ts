import assert from "node:assert/strict";
import {
  allOf,
  anyOf,
  anyPlanned,
  anyPrefixOf,
  inColumns,
  lightStem,
  phraseOf,
  planTerms,
  queryTerms,
} from "./fts_query.ts";

Deno.test("query terms split identifiers the way the indexer does", () => {
  const terms = queryTerms("checkRateLimit rate_limiter").map((t) => t.term);
  for (const t of ["checkratelimit", "check", "rate", "limit", "limiter"]) assert.ok(terms.includes(t), t);
});

Deno.test("term planning drops words that are everywhere, keeps the rarest", () => {
  const df: Record<string, number> = { the: 90_000, string: 60_000, hashmap: 2_000, hash: 9_000, map: 30_000 };
  const stats = {
    docs: 100_000,
    df: (t: string) => df[t] ?? 0,
    dfPrefix: (p: string) => Object.entries(df).filter(([t]) => t.startsWith(p)).reduce((n, [, d]) => n + d, 0),
  };
  const planned = planTerms(["the", "string", "hashmap", "hash", "map", "absent"], stats, { stem: false });
  assert.deepEqual(planned.map((p) => p.text), ["hashmap", "hash"]);
  // Small indexes keep everything (nothing there is costly to rank).
  const small = { docs: 500, df: (_: string) => 400, dfPrefix: (_: string) => 450 };
  assert.equal(planTerms(["alpha", "beta", "gamma"], small, { stem: false }).length, 3);
  const stemmed = planTerms(["serializes"], small, { stem: true });
  assert.deepEqual(stemmed.map((p) => [p.text, p.prefix]), [["serializ", true]]);
});

Deno.test("user text never becomes FTS syntax: every term is a quoted string", () => {
  assert.equal(anyOf(['a"b', "NEAR", "*"]), '"a""b" OR "NEAR" OR "*"');
  assert.equal(allOf(["x", "", "y"]), '"x" AND "y"');
  assert.equal(anyOf([]), null);
  assert.equal(phraseOf("foo(bar) -baz"), '"foo bar baz"');
  assert.equal(phraseOf("=> ::"), null);
  assert.equal(inColumns(["name", "qualified"], '"x"'), '{name qualified}: ("x")');
  assert.equal(
    anyPlanned([{ text: "pars", prefix: true, df: 3 }, { text: "x", prefix: false, df: 1 }]),
    '"pars"* OR "x"',
  );
});

Deno.test("light stems fold plurals and verb endings; short words stay", () => {
  assert.equal(lightStem("transfers"), "transfer");
  assert.equal(lightStem("validated"), "validat");
  assert.equal(lightStem("validation"), "valid");
  for (const w of ["validated", "validation"]) assert.ok("validates".startsWith(lightStem(w)), w);
  assert.equal(lightStem("bus"), "bus");
  assert.equal(lightStem("http2"), "http2");
  assert.equal(anyPrefixOf(["parsers", "id"]), '"parser"* OR "id"');
});
