/** Words kept as codes read back as themselves through SQLite, listed or not. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  codeSql,
  EDGE_KIND_WORDS,
  SYMBOL_KIND_WORDS,
  VISIBILITY_WORDS,
  wordCode,
  wordSql,
} from "../src/state/coded_words.ts";

Deno.test("a word kept as its code reads back as itself; an unlisted word or null is kept as is", () => {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE t (w TEXT)");
  const ins = db.prepare("INSERT INTO t(w) VALUES (?)");
  for (const words of [SYMBOL_KIND_WORDS, VISIBILITY_WORDS, EDGE_KIND_WORDS]) {
    db.exec("DELETE FROM t");
    const all = [...words, "protected", "o'clock", null];
    for (const w of all) ins.run(wordCode(words, w));
    const stored = db.prepare("SELECT w FROM t ORDER BY rowid").all().map((r) => r.w);
    assert.ok(stored.slice(0, words.length).every((c) => typeof c === "string" && c.length <= 2), String(stored));
    const read = db.prepare(`SELECT ${wordSql(words, "w")} AS w FROM t ORDER BY rowid`).all().map((r) => r.w);
    assert.deepEqual(read, all);
    // An upgrade's rewrite of stored words gives the same codes.
    db.exec("DELETE FROM t");
    for (const w of all) ins.run(w);
    db.exec(`UPDATE t SET w = ${codeSql(words, "w")}`);
    assert.deepEqual(db.prepare("SELECT w FROM t ORDER BY rowid").all().map((r) => r.w), stored);
  }
  // Stored codes never change meaning: the kinds keep their positions.
  assert.equal(
    SYMBOL_KIND_WORDS.slice(0, 18).join(" "),
    "function method constructor class struct interface trait enum enum_member type constant variable field " +
      "property module namespace impl macro",
  );
  db.close();
});
