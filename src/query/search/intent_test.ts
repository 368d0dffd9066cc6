import assert from "node:assert/strict";
import { classifyIntent, looksLikePath, quotedLiterals } from "./intent.ts";

Deno.test("intent classification follows the intent table", () => {
  const cases: [string, string][] = [
    ["checkRateLimit", "symbol"],
    ["rate_limiter", "symbol"],
    ["SessionStore", "symbol"],
    ["auth::jwt::validate_token", "symbol"],
    ["django.db.models.Model", "symbol"],
    ["middleware/rate_limiter.go", "path"],
    ["rate_limiter.go", "path"],
    ["src/limits", "path"],
    ['"config file not found"', "error"],
    ["ValueError: invalid literal for int() with base 10", "error"],
    ["panic: runtime error: index out of range", "error"],
    ["error[E0308]: mismatched types", "error"],
    ["open failed with ENOENT", "error"],
    ["where is rate limiting implemented", "natural_language"],
    ["how safeParse returns a success/error result without throwing", "natural_language"],
    ["session", "natural_language"],
  ];
  for (const [q, want] of cases) assert.equal(classifyIntent(q), want, q);
});

Deno.test("paths and quoted literals are recognised on their own", () => {
  assert.equal(looksLikePath("src/main.rs"), true);
  assert.equal(looksLikePath("checkRateLimit"), false);
  assert.deepEqual(quotedLiterals('error "config file not found" at start'), ["config file not found"]);
});
