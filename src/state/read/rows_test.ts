import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { chunkColumns, IN_BATCH, likeEscape, likePrefix, placeholders, rowsInBatches, symbolColumns } from "./rows.ts";

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

Deno.test("rowsInBatches reads every value, at most IN_BATCH per statement", () => {
  const db = new DatabaseSync(":memory:");
  try {
    db.exec("CREATE TABLE t(v INTEGER)");
    const ins = db.prepare("INSERT INTO t(v) VALUES (?)");
    for (let v = 0; v < 1201; v++) ins.run(v);
    const lists: number[] = [];
    const wanted = Array.from({ length: 1201 }, (_, i) => i).filter((v) => v % 2 === 0 || v > 1100);
    const rows = rowsInBatches<{ v: number }>(db, wanted, (list) => {
      lists.push(list.split(",").length);
      return `SELECT v FROM t WHERE v IN (${list}) ORDER BY v`;
    });
    assert.deepEqual(rows.map((r) => r.v), wanted);
    assert.deepEqual(lists, [IN_BATCH, wanted.length - IN_BATCH]);
    assert.deepEqual(rowsInBatches(db, [], () => "SELECT 1"), []);
  } finally {
    db.close();
  }
});
