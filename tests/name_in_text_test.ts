/** Signatures and docs kept without the symbol's name read back exactly, whatever they hold. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SCHEMA_VERSION } from "../src/core/version.ts";
import { textWithNameSql, textWithoutName, textWithoutNameSql, withDefineMarkSql } from "../src/state/name_in_text.ts";

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
    ["PAGE_SIZE", "#define PAGE_SIZE (1UL << PAGE_SHIFT)"],
    ["def", "#define def 1"],
    ["X", "#define  X"],
    ["Y", " #define Y 2"],
    ["Ctl", "#define Ctl \u0002 already"],
    ["N\u0002", "#define N\u0002 a name holding the mark"],
    ["Z", "#define Z \u0001"],
  ];
  const ins = db.prepare("INSERT INTO t(name, text) VALUES (?, ?)");
  for (const [name, text] of cases) ins.run(name, textWithoutName(text, name));
  const kept = db.prepare("SELECT text FROM t ORDER BY rowid").all().map((r) => r.text);
  assert.equal(kept[0], "func \u0001(limit int) int", "the first occurrence becomes the placeholder");
  assert.ok(kept[5] instanceof Uint8Array, "a text already holding the placeholder is kept as bytes");
  assert.equal(kept[8], "\u0002\u0001 (1UL << PAGE_SHIFT)", "a leading #define becomes its mark");
  assert.equal(kept[9], "#\u0001ine def 1", "the name found inside `#define ` leaves no leading `#define `");
  assert.equal(kept[11], " #define \u0001 2", "only a leading `#define `");
  assert.ok(kept[12] instanceof Uint8Array, "a text already holding the mark is kept as bytes");
  assert.equal(kept[13], "\u0002\u0001 a name holding the mark", "a name holding the mark is put back whole");
  assert.ok(kept[14] instanceof Uint8Array, "so is one holding the placeholder");
  const read = db.prepare(`SELECT ${textWithNameSql("text", "name", SCHEMA_VERSION)} AS text FROM t ORDER BY rowid`)
    .all();
  assert.deepEqual(read.map((r) => r.text), cases.map(([, text]) => text));
  // An upgrade rewrites stored texts as a write would keep them: schema 13's rule, then schema 26's.
  db.exec("DELETE FROM t");
  for (const [name, text] of cases) ins.run(name, text);
  db.exec(`UPDATE t SET text = ${textWithoutNameSql("text", "name")}`);
  const before = db.prepare(`SELECT ${textWithNameSql("text", "name", 25)} AS text FROM t ORDER BY rowid`).all();
  assert.deepEqual(before.map((r) => r.text), cases.map(([, text]) => text), "schema 25 reads its own rows back");
  db.exec(`UPDATE t SET text = ${withDefineMarkSql("text", "name")}`);
  assert.deepEqual(db.prepare("SELECT text FROM t ORDER BY rowid").all().map((r) => r.text), kept);
  db.close();
});
