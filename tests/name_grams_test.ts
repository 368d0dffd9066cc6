import assert from "node:assert/strict";
import { join } from "node:path";
import { type Db, openDb, transaction } from "../src/state/db.ts";
import { FILL_FILE_RANGES_SQL, migrate, PROJECT_MIGRATIONS } from "../src/state/schema.ts";
import { gramText, namesSharingGrams, NameTableWriter, type ScanBounds } from "../src/state/name_lookup.ts";
import {
  buildNameGrams,
  CHUNK_BYTES,
  firstIdsOf,
  gramCodesOf,
  GramEdits,
  NAME_GRAMS_SQL,
} from "../src/state/name_grams.ts";
import { IdList, mostShared, tallyIds } from "../src/state/gram_tally.ts";
import { copyFixture, downgradeThenSync, indexDir, tempHome, withIndex } from "./helpers/fixture_repo.ts";
import { locateSymbol } from "../src/query/locate_symbol.ts";
import { sortedUpTo } from "../src/state/sorted_names.ts";

/** A small deterministic generator, so a failure names a seed that reproduces it. */
function generator(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return Math.floor((s / 2147483648) * n);
  };
}

/** Each trigram's ids as read independently: every name's gram text split in JS, ids ascending. */
function oracle(names: Map<number, string>): Map<string, number[]> {
  const lists = new Map<string, number[]>();
  for (const id of [...names.keys()].sort((a, b) => a - b)) {
    const text = names.get(id)!;
    const seen = new Set<string>();
    for (let i = 0; i + 3 <= text.length; i++) {
      const g = text.slice(i, i + 3);
      if (seen.has(g)) continue;
      seen.add(g);
      if (!lists.has(g)) lists.set(g, []);
      lists.get(g)!.push(id);
    }
  }
  return lists;
}

/** The chunks trigram `gram` is kept in. */
function chunksOf(db: Db, gram: string): number {
  const code = gramCodesOf(gram)[0];
  return Number(
    db.prepare("SELECT count(*) AS n FROM name_grams WHERE key >= ? AND key < ?").get(
      code * 2 ** 32,
      (code + 1) * 2 ** 32,
    )!
      .n,
  );
}

function assertListsEqual(db: Db, names: Map<number, string>, label: string): void {
  const want = oracle(names);
  for (const [g, ids] of want) {
    assert.deepEqual(Array.from(firstIdsOf(db, g, ids.length + 3)), ids, `${label}: ${g}`);
    // A prefix: the first ids only, however the chunks fall.
    const some = 1 + (ids.length >> 1);
    assert.deepEqual(Array.from(firstIdsOf(db, g, some)), ids.slice(0, some), `${label}: ${g} first ${some}`);
  }
  const rows = db.prepare("SELECT key, length(ids) AS n FROM name_grams").all();
  assert.ok(rows.every((r) => Number(r.n) > 0 && Number(r.n) <= CHUNK_BYTES), `${label}: chunk sizes`);
  // A trigram no name holds any more reads empty, whatever is left of it until its edits are folded.
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789^$";
  const gramOf = (code: number) =>
    alphabet[Math.floor(code / 1444)] + alphabet[Math.floor(code / 38) % 38] + alphabet[code % 38];
  for (const r of rows) {
    const g = gramOf(Math.floor(Number(r.key) / 2 ** 32));
    if (!want.has(g)) assert.deepEqual(Array.from(firstIdsOf(db, g, 10)), [], `${label}: stray ${g}`);
  }
}

Deno.test("packed trigram lists: built whole and edited, each reads the ids the names hold, ascending, from any gap size", () => {
  const db = openDb(":memory:");
  try {
    db.exec(`CREATE TABLE symbol_names (id INTEGER PRIMARY KEY, name_lower TEXT NOT NULL); ${NAME_GRAMS_SQL}`);
    const ins = db.prepare("INSERT INTO symbol_names(id, name_lower) VALUES (?, ?)");
    let chunksSplit = 0;
    let keptAside = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const rand = generator(seed);
      db.exec("DELETE FROM symbol_names");
      const names = new Map<number, string>();
      // Few letters: trigrams shared by thousands of names (lists of many chunks) beside rare ones; gaps from
      // one to past 2^24 (the wide decoding), ids up to 2^31 - 1.
      const word = () => Array.from({ length: 1 + rand(3) }, () => "a9"[rand(2)]).join("");
      let id = 0;
      const count = 15_000 + rand(15_000);
      for (let i = 0; i < count; i++) {
        const jump = rand(500) === 0 ? rand(2 ** 26) : rand(1000);
        if (id + 1 + jump >= 2 ** 31) break;
        id += 1 + jump;
        names.set(id, `^${word()}$`);
      }
      names.set(2 ** 31 - 1, "^abc$");
      for (const [k, v] of names) ins.run(k, v);
      buildNameGrams(db, (n) => n);
      assertListsEqual(db, names, `seed ${seed} built`);
      // Built whole, a trigram's chunks are full but its last: its first ids are read from as few rows as can be.
      const chunks = db.prepare("SELECT key >> 32 AS g, length(ids) AS n FROM name_grams ORDER BY key").all();
      const notLast = chunks.filter((c, i) => chunks[i + 1]?.g === c.g);
      assert.ok(notLast.length > 5, `seed ${seed}: lists of several chunks (${notLast.length} of ${chunks.length})`);
      assert.ok(notLast.every((c) => Number(c.n) >= CHUNK_BYTES - 64), `seed ${seed}: chunks filled`);
      // Rounds of edits: names removed, added (new ids and freed ones taken again), some in one round.
      for (let round = 0; round < 4; round++) {
        const edits = new GramEdits();
        const ids = [...names.keys()];
        for (let k = 0; k < 1 + rand(400); k++) {
          const victim = ids[rand(ids.length)];
          if (!names.has(victim)) continue;
          edits.remove(victim, names.get(victim)!);
          names.delete(victim);
          // Freed, then taken by another name in the same round (the last edit wins) or left free.
          if (rand(3) === 0) {
            const text = `^${word()}$`;
            edits.add(victim, text);
            names.set(victim, text);
          }
        }
        for (let k = 0; k < rand(2500); k++) {
          const fresh = 1 + rand(2 ** 31 - 2);
          const text = `^${word()}$`;
          if (names.has(fresh)) edits.remove(fresh, names.get(fresh)!);
          edits.add(fresh, text);
          names.set(fresh, text);
        }
        // A trigram of its own gets 2,000 ids far apart at once: its one chunk grows past its size and splits.
        const own = `^${round}q$`;
        for (let k = 0, at = 1 + rand(1000); k < 2000; k++, at += 1 + rand(2 ** 20)) {
          if (names.has(at)) edits.remove(at, names.get(at)!);
          edits.add(at, own);
          names.set(at, own);
        }
        edits.apply(db);
        keptAside += Number(db.prepare("SELECT count(*) AS n FROM name_gram_edits").get()!.n);
        assertListsEqual(db, names, `seed ${seed} round ${round}`);
        if (chunksOf(db, `^${round}q`) > 1) chunksSplit++;
      }
      // Every name taken out: every trigram reads empty, and the chunks of those whose edits were folded are gone.
      const edits = new GramEdits();
      for (const [k, v] of names) edits.remove(k, v);
      edits.apply(db);
      assertListsEqual(db, new Map(), `seed ${seed} emptied`);
      const left = db.prepare(
        "SELECT count(*) AS n FROM name_grams WHERE key >> 32 NOT IN (SELECT gram FROM name_gram_edits)",
      ).get();
      assert.equal(left!.n, 0, `seed ${seed}: emptied chunks are deleted`);
    }
    assert.equal(chunksSplit, 12 * 4, "chunks grown past their size were split");
    assert.ok(keptAside > 100, "edits were kept aside and read merged in");
  } finally {
    db.close();
  }
});

/**
 * A store of real name tables: `n` names, a third of them `<abc>_config_<i>` (trigrams shared by all of
 * those, spread over the ids: lists of several chunks), the others `<abc>_<i>`, and a few real names.
 */
function storeWithNames(dir: string, n: number): Db {
  const db = openDb(join(dir, "index.db"));
  migrate(db, PROJECT_MIGRATIONS);
  db.prepare(
    `INSERT INTO files(path, hash, size, mtime_ms, language, line_count, symbol_count) VALUES ('x.go', '', 0, 0, 'go',
       0, 0)`,
  ).run();
  const names = new NameTableWriter(db);
  transaction(db, () => {
    names.rebuildWhole();
    const rand = generator(5);
    const word = () => Array.from({ length: 3 }, () => String.fromCharCode(97 + rand(26))).join("");
    for (let i = 0; i < n; i++) addSymbol(db, `${word()}_${i % 3 === 0 ? "config_" : ""}${i.toString(36)}`);
    for (const name of ["ValidateToken", "validate_token", "Reader", "frobnitz_probe"]) addSymbol(db, name);
    db.exec(FILL_FILE_RANGES_SQL);
    names.publish();
  });
  return db;
}

function addSymbol(db: Db, name: string): void {
  db.prepare(
    `INSERT INTO symbol_rows(file_id, name, qualified_name, kind, signature, line_start, line_span, stable_key,
       symbol_key) VALUES (1, ?, ?, 'function', '', 1, 0, X'00', X'00')`,
  ).run(name, name);
}

/**
 * The fuzzy candidates as the FTS5 trigram table gave them: the table (schema 22's) built in the test
 * from the names, each trigram's first `perGram` + 1 row ids read through MATCH, counted the same way.
 */
function candidatesByFts(
  db: Db,
  grams: string[],
  limit: number,
  perGram: number,
): { names: string[]; capped: boolean } {
  const top = Number(db.prepare("SELECT max(id) AS m FROM symbol_names").get()?.m ?? 0);
  const hits = new Uint8Array(top + 1);
  const touched = new IdList();
  let capped = false;
  const safe = [...new Set(grams)].filter((g) => /^[a-z0-9^$]{3}$/.test(g));
  for (const g of safe) {
    const ids = db.prepare(`SELECT rowid AS id FROM temp.names_fts WHERE names_fts MATCH ? LIMIT ${perGram + 1}`)
      .all(`"${g}"`).map((r) => Number(r.id));
    if (tallyIds(Int32Array.from(ids), perGram, top, hits, touched)) capped = true;
  }
  const chosen = mostShared(hits, touched, safe.length, limit);
  const byId = new Map(
    chosen.length
      ? db.prepare(`SELECT id, name_lower FROM symbol_names WHERE id IN (${chosen.join(",")})`).all()
        .map((r) => [Number(r.id), String(r.name_lower)])
      : [],
  );
  return { names: chosen.map((id) => byId.get(id)!), capped };
}

const PROBES = [
  gramCodesOfName("abc_config_1zz"),
  gramCodesOfName("confg_token"),
  gramCodesOfName("validat_token"),
  gramCodesOfName("frobnitz"),
  ["^co", "con", "onf", "nfi", "fig", "ig1", "g1a", "1a$"],
];

function gramCodesOfName(name: string): string[] {
  const t = gramText(name);
  return Array.from({ length: Math.max(0, t.length - 2) }, (_, i) => t.slice(i, i + 3));
}

function assertSameCandidates(db: Db, label: string): number {
  db.exec(`DROP TABLE IF EXISTS temp.names_fts;
    CREATE VIRTUAL TABLE temp.names_fts USING fts5(grams, content='', columnsize=0, detail=none, tokenize='trigram')`);
  const ins = db.prepare("INSERT INTO temp.names_fts(rowid, grams) VALUES (?, ?)");
  for (const r of db.prepare("SELECT id, name_lower FROM symbol_names").all()) {
    ins.run(Number(r.id), gramText(String(r.name_lower)));
  }
  let cappedSeen = 0;
  for (const grams of PROBES) {
    for (const [limit, perGram] of [[200, 20_000], [200, 5000], [10, 700], [30, 2], [5, 1]]) {
      const bounds: ScanBounds = { capped: false };
      const got = namesSharingGrams(db, grams, limit, bounds, perGram);
      const want = candidatesByFts(db, grams, limit, perGram);
      assert.deepEqual({ names: got, capped: bounds.capped }, want, `${label}: ${grams.join(" ")} ${perGram}`);
      if (want.capped) cappedSeen++;
    }
  }
  return cappedSeen;
}

Deno.test("fuzzy candidates from the packed lists are the FTS5 table's: built whole, after syncs, and with freed ids taken again", () => {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-grams-" });
  const db = storeWithNames(dir, 66_000);
  try {
    // Lists of many chunks: the first 20,000 ids of a trigram span several.
    assert.ok(chunksOf(db, "onf") >= 3, `${chunksOf(db, "onf")} chunks`);
    assert.ok(assertSameCandidates(db, "built") > 5, "capped lists were compared");

    const names = new NameTableWriter(db);
    const rows = () => new Map(db.prepare("SELECT key, ids FROM name_grams").all().map((r) => [r.key, String(r.ids)]));
    // A name added after the whole build takes the next id, past the sorted ones (see sorted_names.ts).
    const sorted = sortedUpTo(db);
    const built = db.prepare("SELECT max(id) AS m, count(*) AS n FROM symbol_names").get()!;
    assert.ok(Number(built.n) >= 66_000);
    assert.deepEqual([sorted, sorted], [built.m, built.n], "a whole build gives every name an id in name order");
    transaction(db, () => {
      addSymbol(db, "config_late_id");
      db.exec(FILL_FILE_RANGES_SQL);
      names.note("config_late_id");
      names.publish();
    });
    // The newest name goes: its id (the largest) is free, and the next name added takes it.
    const newest = db.prepare("SELECT id, name_lower FROM symbol_names ORDER BY id DESC LIMIT 1").get()!;
    assert.deepEqual({ ...newest }, { id: sorted + 1, name_lower: "config_late_id" });
    transaction(db, () => {
      db.prepare("DELETE FROM symbol_rows WHERE lower(name) = ?").run(newest.name_lower);
      names.note(String(newest.name_lower));
      names.publish();
    });
    const before = rows();
    transaction(db, () => {
      addSymbol(db, "config_reused_id");
      db.exec(FILL_FILE_RANGES_SQL);
      names.note("config_reused_id");
      names.publish();
    });
    const reused = db.prepare("SELECT id FROM symbol_names WHERE name_lower = 'config_reused_id'").get()!;
    assert.equal(reused.id, newest.id, "the freed id was taken again");
    // One name added wrote a row per trigram of it aside, no chunk.
    const after = rows();
    assert.equal([...after].filter(([k, v]) => before.get(k) !== v).length, 0);
    const aside = db.prepare("SELECT count(*) AS n FROM name_gram_edits WHERE id = ? AND listed = 1").get(reused.id);
    assert.equal(aside!.n, gramCodesOf(gramText("config_reused_id")).length);
    assertSameCandidates(db, "id reused");

    // A sync of many names at once: some go, some come (among them names sharing the common trigrams).
    transaction(db, () => {
      const gone = db.prepare("SELECT name FROM symbol_rows WHERE id % 7 = 0 AND id < 12000").all();
      for (const r of gone) {
        db.prepare("DELETE FROM symbol_rows WHERE name = ?").run(r.name);
        names.note(String(r.name).toLowerCase());
      }
      for (let i = 0; i < 1500; i++) {
        addSymbol(db, `confg_tok_${i}`);
        names.note(`confg_tok_${i}`);
      }
      db.exec(FILL_FILE_RANGES_SQL);
      names.publish();
    });
    assertSameCandidates(db, "synced");
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a store of schema 22 upgrades to packed trigram lists: the same close spellings, the FTS5 table gone", async () => {
  const h = tempHome();
  try {
    const dir = copyFixture("py_basic");
    const { project } = await indexDir(h, dir);
    const spellings = (db: Db) =>
      db.prepare("SELECT name_lower FROM symbol_names ORDER BY id").all().map((r) => {
        // Two letters swapped: found only through the trigrams it still shares.
        const n = String(r.name_lower);
        const typo = n.length > 4 ? n.slice(0, 2) + n[3] + n[2] + n.slice(4) : n;
        try {
          return locateSymbol(db, { name: typo }).results.map((x) => x.symbol_id);
        } catch (e) {
          return String((e as { code?: string }).code);
        }
      });
    const before = withIndex(h, project.project_id, spellings);
    assert.ok(before.filter((x) => Array.isArray(x) && x.length > 0).length > 5);
    await downgradeThenSync(h, project, "", 22);
    withIndex(h, project.project_id, (db) => {
      assert.deepEqual(spellings(db), before);
      assert.deepEqual(db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'symbol_names_fts%'").all(), []);
      const names = db.prepare("SELECT id, name_lower FROM symbol_names").all();
      assertListsEqual(db, new Map(names.map((r) => [Number(r.id), gramText(String(r.name_lower))])), "upgraded");
    });
  } finally {
    h.close();
  }
});
