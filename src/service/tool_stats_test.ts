import assert from "node:assert/strict";
import { MAX_FAILURES, MAX_SAMPLES, percentile, ToolStats } from "./tool_stats.ts";

Deno.test("percentile: nearest rank over unsorted values", () => {
  const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1
  assert.equal(percentile(values, 50), 50);
  assert.equal(percentile(values, 95), 95);
  assert.equal(percentile([7], 95), 7);
  assert.equal(percentile([], 50), 0);
});

Deno.test("ToolStats: counts, errors, p50/p95 per tool, last failures newest first", () => {
  const s = new ToolStats();
  for (let i = 1; i <= 20; i++) s.record("search_code", i);
  s.record("open_file", 3, { code: "forbidden", message: "outside the repository" });
  s.record("open_file", 5);
  const lines = s.lines();
  assert.deepEqual(lines.map((l) => l.tool), ["search_code", "open_file"]);
  assert.deepEqual(lines[0], { tool: "search_code", calls: 20, errors: 0, p50_ms: 10, p95_ms: 19, max_ms: 20 });
  assert.equal(lines[1].errors, 1);
  assert.equal(s.failures()[0].code, "forbidden");
  for (let i = 0; i < MAX_FAILURES + 5; i++) s.record("locate_symbol", 1, { code: "invalid_input", message: `m${i}` });
  assert.equal(s.failures().length, MAX_FAILURES);
  assert.equal(s.failures()[0].message, `m${MAX_FAILURES + 4}`);
});

Deno.test("ToolStats: samples are bounded, counts are not; percentiles follow the recent calls", () => {
  const s = new ToolStats();
  for (let i = 0; i < MAX_SAMPLES; i++) s.record("t", 1000);
  for (let i = 0; i < MAX_SAMPLES; i++) s.record("t", 1);
  const [line] = s.lines();
  assert.equal(line.calls, 2 * MAX_SAMPLES);
  assert.equal(line.p95_ms, 1, "old samples were replaced");
  assert.equal(line.max_ms, 1000);
});
