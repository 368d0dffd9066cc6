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

Deno.test("identifier splitting reads as the regular expressions that define it, on random text", () => {
  const byRegex = (ident: string) =>
    ident.split(/[^A-Za-z0-9]+/).filter(Boolean).flatMap((part) =>
      (part.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? [part]).map((w) => w.toLowerCase())
    );
  const pieces = [
    "a",
    "b",
    "Z",
    "Q",
    "HTTP",
    "Server",
    "x9",
    "0",
    "42",
    "_",
    "__",
    "-",
    ".",
    "é",
    "ß",
    "$",
    " ",
    "mm",
    "GRBM",
  ];
  let seed = 5;
  const pick = () => pieces[(seed = (seed * 1103515245 + 12345) & 0x7fffffff) % pieces.length];
  for (let k = 0; k < 20_000; k++) {
    const ident = Array.from({ length: 1 + (k % 9) }, pick).join("");
    assert.deepEqual(splitIdentifier(ident), byRegex(ident), ident);
  }
  assert.deepEqual(splitIdentifier("mmGRBM_STATUS__TA_BUSY_MASK"), ["mm", "grbm", "status", "ta", "busy", "mask"]);
  assert.deepEqual(splitIdentifier("parseHTTPServer2Response"), ["parse", "http", "server", "2", "response"]);
});
