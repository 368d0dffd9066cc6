import assert from "node:assert/strict";
import { nameKey } from "./name_key.ts";

Deno.test("nameKey: a signed 32-bit FNV-1a of the name; a lone surrogate counts as the U+FFFD SQLite stores", () => {
  // FNV-1a of "a" (0x811c9dc5 ^ 0x61, times 0x01000193), as a signed number.
  assert.equal(nameKey("a"), 0xe40c292c | 0);
  assert.ok(nameKey("a") < 0, "signed: four bytes in SQLite either way");
  assert.equal(nameKey("a\ud800b"), nameKey("a\ufffdb"));
  assert.notEqual(nameKey("ab"), nameKey("ba"));
});
