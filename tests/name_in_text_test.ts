/** Signatures and docs kept without the symbol's name read back exactly, whatever they hold. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { textWithNameSql, textWithoutName, textWithoutNameSql } from "../src/state/name_in_text.ts";

Deno.test("a text kept without the symbol's name reads back as itself; an upgrade keeps what a write keeps", () => {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE t (name TEXT NOT NULL, text TEXT)");
  const cases: [string, string | null][] = [
    ["Rate", "func Rate(limit int) int"],
    ["Rate", "Rate limits requests. Rate is safe to call twice."],
    ["ÄrgerLimit", "func ÄrgerLimit() int // ärger"],
    ["x", "no such name here"],
    ["", "an empty name"],
    ["Odd", "holds \u0001 already: Odd"],
    ["Odd\u0001", "a name holding it: Odd\u0001"],
    ["Nil", null],
  ];
  const ins = db.prepare("INSERT INTO t(name, text) VALUES (?, ?)");
  for (const [name, text] of cases) ins.run(name, textWithoutName(text, name));
  const kept = db.prepare("SELECT text FROM t ORDER BY rowid").all().map((r) => r.text);
  assert.equal(kept[0], "func \u0001(limit int) int", "the first occurrence becomes the placeholder");
  assert.ok(kept[5] instanceof Uint8Array, "a text already holding the placeholder is kept as bytes");
  const read = db.prepare(`SELECT ${textWithNameSql("text", "name")} AS text FROM t ORDER BY rowid`).all();
  assert.deepEqual(read.map((r) => r.text), cases.map(([, text]) => text));
  // An upgrade rewrites stored texts as a write would keep them.
  db.exec("DELETE FROM t");
  for (const [name, text] of cases) ins.run(name, text);
  db.exec(`UPDATE t SET text = ${textWithoutNameSql("text", "name")}`);
  assert.deepEqual(db.prepare("SELECT text FROM t ORDER BY rowid").all().map((r) => r.text), kept);
  db.close();
});
