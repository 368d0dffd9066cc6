import assert from "node:assert/strict";
import { MAX_RECENT_WARNINGS, recentWarnings, warn } from "./log.ts";

Deno.test("recentWarnings: the last warnings, newest first, bounded", () => {
  const quiet = console.error;
  console.error = () => {};
  try {
    for (let i = 0; i < MAX_RECENT_WARNINGS + 3; i++) warn(`w${i}`);
  } finally {
    console.error = quiet;
  }
  const recent = recentWarnings();
  assert.equal(recent.length, MAX_RECENT_WARNINGS);
  assert.equal(recent[0].message, `w${MAX_RECENT_WARNINGS + 2}`);
  assert.equal(recent.at(-1)!.message, "w3");
  assert.ok(!Number.isNaN(Date.parse(recent[0].at)));
});
