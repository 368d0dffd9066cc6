import assert from "node:assert/strict";
import { printable } from "./printable.ts";

Deno.test("printable escapes every control character, keeping newlines and tabs only when asked", () => {
  const every = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)).join("") + "\x7f\x85\x9b\u202e\u2066";
  const one = printable(every);
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(one, /[\x00-\x1f\x7f-\x9f\u202e\u2066]/);
  assert.ok(one.startsWith("\\x00\\x01") && one.includes("\\x1b") && one.endsWith("\\x7f\\x85\\x9b\\u202e\\u2066"));
  assert.equal(printable("a\tb\nc\rd\x1b[2Je"), "a\\x09b\\x0ac\\x0dd\\x1b[2Je");
  assert.equal(printable("a\tb\nc\rd\x1b[2Je", true), "a\tb\nc\\x0dd\\x1b[2Je");
  assert.equal(printable("src/é/日本.ts – ok\\x"), "src/é/日本.ts – ok\\x", "ordinary text is untouched");
});
