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

Deno.test("compound terms: identifiers are ASCII runs that start with a letter, `_` or `$`", () => {
  assert.equal(compoundTerms("9abcDef"), "abc def", "a leading digit is not part of the identifier");
  assert.equal(compoundTerms("HTTPServer ABCD abcD"), "http server abc d", "an acronym alone is no compound");
  assert.equal(compoundTerms("$scope_x __init__"), "scope x init");
  assert.equal(compoundTerms("\u00c4bcDefGh"), "bc def gh", "a non-ASCII letter ends the run");
  assert.equal(compoundTerms("x.getHTTPResponseCode()"), "get http response code");
});

Deno.test("path terms: directories, the split stem and the extension, without repeats", () => {
  assert.equal(pathTerms("auth/RateLimiter.go"), "auth ratelimiter rate limiter go");
});
