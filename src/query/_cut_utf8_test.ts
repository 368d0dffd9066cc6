import assert from "node:assert/strict";
import { cutUtf8 } from "./_cut_utf8.ts";

Deno.test("cutUtf8 keeps the longest prefix that fits, never half a character", () => {
  assert.deepEqual(cutUtf8("abc", 3), { text: "abc", cut: false });
  assert.deepEqual(cutUtf8("abcd", 3), { text: "abc", cut: true });
  // "é" is 2 bytes, "€" 3, "😀" 4 (a surrogate pair in JavaScript).
  assert.deepEqual(cutUtf8("aé€😀", 3), { text: "aé", cut: true });
  assert.deepEqual(cutUtf8("aé€😀", 5), { text: "aé", cut: true });
  assert.deepEqual(cutUtf8("aé€😀", 6), { text: "aé€", cut: true });
  assert.deepEqual(cutUtf8("aé€😀", 9), { text: "aé€", cut: true });
  assert.deepEqual(cutUtf8("aé€😀", 10), { text: "aé€😀", cut: false });
  assert.deepEqual(cutUtf8("😀", 0), { text: "", cut: true });
  assert.deepEqual(cutUtf8("", 0), { text: "", cut: false });
});
