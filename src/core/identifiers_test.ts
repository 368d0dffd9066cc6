import assert from "node:assert/strict";
import { compoundTerms, pathTerms, splitIdentifier } from "./identifiers.ts";

Deno.test("identifiers split at case changes, underscores and digits, lower-cased", () => {
  assert.deepEqual(splitIdentifier("checkRateLimit"), ["check", "rate", "limit"]);
  assert.deepEqual(splitIdentifier("rate_limiter"), ["rate", "limiter"]);
  assert.deepEqual(splitIdentifier("HTTPServer2"), ["http", "server", "2"]);
  assert.deepEqual(splitIdentifier("__init__"), ["init"]);
});

Deno.test("compound terms come only from compound identifiers, once each", () => {
  assert.equal(compoundTerms("call checkRateLimit then checkRateLimit and plain"), "check rate limit");
  assert.equal(compoundTerms("a_b xy"), "", "identifiers under four characters add nothing");
});

Deno.test("path terms: directories, the split stem and the extension, without repeats", () => {
  assert.equal(pathTerms("auth/RateLimiter.go"), "auth ratelimiter rate limiter go");
});
