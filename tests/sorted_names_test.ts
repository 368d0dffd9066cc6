import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { migrate, PROJECT_MIGRATIONS } from "../src/state/schema.ts";
import { INDEXED_NAME_LEN, namesWithPrefix, PREFIX_SCAN_NAMES } from "../src/state/name_lookup.ts";
import { byCodePoints, INSERT_NAME_SQL, markSortedNames, nameRowOf, sortedUpTo } from "../src/state/sorted_names.ts";

Deno.test("code point order is SQLite's binary order of the names", () => {
  const db = new DatabaseSync(":memory:");
  const words = ["a", "ab", "a_b", "b", "\u00e9", "\uffee", "\ue000x", "\u{1f600}", "\u{1f600}a", "z\ud7ff", "", "A"];
  db.exec("CREATE TABLE w (t TEXT)");
  for (const w of words) db.prepare("INSERT INTO w VALUES (?)").run(w);
  const sqlite = db.prepare("SELECT t FROM w ORDER BY t").all().map((r) => r.t);
  assert.deepEqual([...words].sort(byCodePoints), sqlite);
  db.close();
});

/** A name table as a whole build leaves it (ids in name order), then a sync's additions and removals. */
function nameStore(): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  migrate(db, PROJECT_MIGRATIONS);
  const names = new Set<string>();
  // More than PREFIX_SCAN_NAMES names under one prefix (the capped reads), some longer than the length index.
  for (let i = 0; i < PREFIX_SCAN_NAMES + 2000; i++) {
    names.add(`rate_${(i * 7919) % 100_000}${i % 5 ? "" : "_x".repeat(9)}`);
  }
  // A prefix shared by more than PREFIX_SCAN_NAMES names, all longer than the length index holds (the long tail).
  for (let i = 0; i < PREFIX_SCAN_NAMES + 500; i++) names.add(`longname_${i}_${"p".repeat(i % 4)}_padding`);
  for (const w of ["limit", "limits", "limit_rate", "lim", "l\u00e9", "l\u{1f600}", "l\uffee", "zeta", "zz"]) {
    names.add(w);
  }
  const sorted = [...names].sort(byCodePoints);
  const ins = db.prepare("INSERT INTO symbol_names(id, name_lower, len, clen, count) VALUES (?, ?, ?, ?, ?)");
  sorted.forEach((n, i) => ins.run(i + 1, n, n.length, n.replace(/[^a-z0-9]/g, "").length, 1 + (i % 3)));
  markSortedNames(db);
  // A sync: the last sorted name goes (its id must not be taken again), others go, new names come.
  const upTo = sortedUpTo(db);
  assert.equal(upTo, sorted.length);
  db.prepare("DELETE FROM symbol_names WHERE id = ? OR id % 97 = 0").run(upTo);
  const add = db.prepare(INSERT_NAME_SQL);
  for (const n of ["rate_5", "limit_zz", "aaa", "l\u{1f601}", "rate_99999_late_long_name_x", "zzz", "rate_"]) {
    add.run(sortedUpTo(db), n, n.length, n.replace(/[^a-z0-9]/g, "").length, 2);
  }
  return db;
}

/** What a read of the whole table (no index) gives for a prefix: the rule namesWithPrefix keeps. */
function oracle(db: DatabaseSync, prefix: string, end: string | null, max: number) {
  const range = end === null ? "name_lower > ?" : "name_lower > ? AND name_lower < ?";
  const args = end === null ? [prefix] : [prefix, end];
  const first = db.prepare(
    `SELECT name_lower, len, count FROM symbol_names NOT INDEXED WHERE ${range} ORDER BY name_lower LIMIT ?`,
  ).all(...args, PREFIX_SCAN_NAMES + 1) as { name_lower: string; len: number; count: number }[];
  const capped = first.length > PREFIX_SCAN_NAMES;
  const listed = capped
    ? db.prepare(`SELECT name_lower, count FROM symbol_names NOT INDEXED WHERE ${range}
        ORDER BY len, name_lower LIMIT ?`).all(...args, max)
    : [...first].sort((a, b) => a.len - b.len || byCodePoints(a.name_lower, b.name_lower)).slice(0, max);
  return {
    names: listed.map((r) => String(r.name_lower)),
    counts: listed.map((r) => Number(r.count)),
    total: first.reduce((s, r) => s + Number(r.count), 0),
    capped,
  };
}

Deno.test("names found without a name index: every prefix and every name as a read of the whole table finds them", () => {
  const db = nameStore();
  try {
    const all = db.prepare("SELECT id, name_lower, count FROM symbol_names").all() as {
      id: number;
      name_lower: string;
      count: number;
    }[];
    assert.ok(all.some((r) => r.id > sortedUpTo(db)), "names past the sorted ones");
    for (const r of all) assert.deepEqual(nameRowOf(db, r.name_lower), { id: r.id, count: r.count }, r.name_lower);
    for (const missing of ["", "rate", "limit_", "zzzz", "l\u{1f602}", "rate_5x"]) {
      assert.equal(nameRowOf(db, missing), undefined, missing);
    }
    const prefixes = [
      "longname_",
      "longname_1",
      "",
      "r",
      "rate_",
      "rate_1",
      "rate_99",
      "l",
      "li",
      "lim",
      "limit",
      "z",
      "zz",
      "a",
      "l\u{1f600}",
      "\uffff",
    ];
    for (const p of prefixes) {
      for (const max of [0, 3, 40]) {
        const end = p === "" ? "\u{10ffff}" : p.slice(0, -1) + String.fromCodePoint(p.codePointAt(p.length - 1)! + 1);
        const got = namesWithPrefix(db, p, max);
        assert.deepEqual(got, oracle(db, p, p === "" ? null : end, max), `prefix ${JSON.stringify(p)} max ${max}`);
      }
    }
    const tail = namesWithPrefix(db, "longname_", 40);
    assert.deepEqual([tail.capped, tail.names.length, tail.names.filter((n) => n.length <= INDEXED_NAME_LEN)], [
      true,
      40,
      [],
    ]);
  } finally {
    db.close();
  }
});

Deno.test("ids are taken as sorted up to the first name out of name order, wherever the names came from", () => {
  const db = new DatabaseSync(":memory:");
  migrate(db, PROJECT_MIGRATIONS);
  const ins = db.prepare("INSERT INTO symbol_names(id, name_lower, len, clen, count) VALUES (?, ?, 1, 1, 1)");
  // Sorted with gaps (deleted names), then a name a sync added (before "delta" in name order), then more.
  for (const [id, n] of [[1, "alpha"], [2, "beta"], [4, "delta"], [7, "gamma"], [8, "charlie"], [9, "zulu"]] as const) {
    ins.run(id, n);
  }
  markSortedNames(db);
  assert.equal(sortedUpTo(db), 7);
  assert.deepEqual(namesWithPrefix(db, "", 10).names, ["alpha", "beta", "charlie", "delta", "gamma", "zulu"]);
  for (const n of ["alpha", "delta", "gamma", "charlie", "zulu"]) assert.equal(nameRowOf(db, n)?.count, 1, n);
  // A table in name order throughout is sorted to its last id; an empty one to 0.
  db.exec("DELETE FROM symbol_names WHERE id >= 8");
  markSortedNames(db);
  assert.equal(sortedUpTo(db), 7);
  db.exec("DELETE FROM symbol_names");
  markSortedNames(db);
  assert.equal(sortedUpTo(db), 0);
  db.close();
});
