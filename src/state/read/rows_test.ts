import assert from "node:assert/strict";
import { chunkColumns, likeEscape, likePrefix, placeholders, symbolColumns } from "./rows.ts";

Deno.test("LIKE patterns match their text literally", () => {
  assert.equal(likePrefix("src/my_dir%"), "src/my\\_dir\\%%");
  assert.equal(likeEscape("a\\b"), "a\\\\b");
});

Deno.test("column lists and placeholders", () => {
  assert.ok(symbolColumns().startsWith("id, symbol_id, stable_id, path"));
  assert.ok(symbolColumns("s").split(", ").every((c) => c.startsWith("s.")));
  assert.equal(chunkColumns("c").split(", ").length, 7);
  assert.equal(placeholders(3), "?,?,?");
});
