import assert from "node:assert/strict";
import { errorMessage, isErrorSite, literalFragments, messageText } from "./error_text.ts";

Deno.test("error queries are read as pasted: prefixes dropped, runtime values split out", () => {
  assert.equal(
    errorMessage("java.lang.IllegalStateException: stream has already been closed"),
    "stream has already been closed",
  );
  assert.equal(errorMessage("panic: runtime error: index out of range [3]"), "index out of range [3]");
  assert.equal(errorMessage("thread 'main' panicked at 'capacity overflow', src/main.rs:2:5"), "capacity overflow");
  assert.equal(errorMessage("Forbidden (CSRF cookie not set.)"), "CSRF cookie not set.");
  const frags = literalFragments("index out of bounds: the len is 3 but the index is 5");
  assert.ok(frags.includes("index out of bounds: the len is"), frags.join(" | "));
  assert.ok(frags.includes("but the index is"), frags.join(" | "));
  assert.ok(!messageText("Reverse for 'home' not found").includes("home"));
  assert.ok(isErrorSite('    raise ValueError("bad token")'));
  assert.ok(isErrorSite('var ErrClosed = errors.New("closed")'));
  assert.ok(!isErrorSite("    total += count"));
});
