import assert from "node:assert/strict";
import { join } from "node:path";
import { copyFixture, downgradeThenSync, indexDir, tempHome, withIndex } from "./helpers/fixture_repo.ts";
import { locateSymbol } from "../src/query/locate_symbol.ts";
import { definitionsWithPrefix, fuzzyNames } from "../src/query/symbol_name_index.ts";
import { type Db, openDb, transaction } from "../src/state/db.ts";
import { FILL_FILE_RANGES_SQL, migrate, PROJECT_MIGRATIONS } from "../src/state/schema.ts";
import {
  definitionsNamed,
  definitionsNamedEach,
  namesOfCompactLength,
  namesSharingGrams,
  namesWithPrefix,
  NameTableWriter,
  PREFIX_SCAN_NAMES,
} from "../src/state/name_lookup.ts";
import { CruxeError } from "../src/core/errors.ts";
import { CAPPED_SCAN_ROWS, chunksRanked, RANK_SCAN_ROWS, symbolsRanked } from "../src/state/read/search.ts";
import { oneRow } from "../src/state/read/rows.ts";
import { chunkMatches } from "../src/query/search/plan.ts";

/** The name table as `symbols` says it should be, and as it is. */
function nameTables(db: Db): { want: string; have: string } {
  const want = db.prepare("SELECT name_lower, count(*) AS n FROM symbols GROUP BY name_lower ORDER BY name_lower")
    .all() as { name_lower: string; n: number }[];
  const have = db.prepare("SELECT name_lower, count AS n FROM symbol_names ORDER BY name_lower").all() as {
    name_lower: string;
    n: number;
  }[];
  const show = (rows: { name_lower: string; n: number }[]) => rows.map((r) => `${r.name_lower}:${r.n}`).join(",");
  return { want: show(want), have: show(have) };
}

/** The row ids the trigram table lists under `gram`, whether or not a name row still has them. */
function gramRows(db: Db, gram: string): number[] {
  return db.prepare("SELECT rowid AS id FROM symbol_names_fts WHERE symbol_names_fts MATCH ?").all(`"${gram}"`)
    .map((r) => Number(r.id));
}

function assertInStep(db: Db): void {
  const t = nameTables(db);
  assert.ok(t.want.length > 0);
  assert.equal(t.have, t.want);
}

Deno.test("the name tables follow every sync: added, changed and deleted names", async () => {
  const h = tempHome();
  try {
    const dir = copyFixture("py_basic");
    const { project } = await indexDir(h, dir);
    withIndex(h, project.project_id, assertInStep);

    Deno.writeTextFileSync(join(dir, "pkg", "extra.py"), "def quarterly_rollup():\n    return 1\n");
    Deno.writeTextFileSync(join(dir, "pkg", "models.py"), "def replaced():\n    pass\n");
    const job = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
    assert.equal(job.status, "published");
    withIndex(h, project.project_id, (db) => {
      assertInStep(db);
      assert.equal(locateSymbol(db, { name: "quartely_rollup" }).results[0].name, "quarterly_rollup");
      assert.ok(namesSharingGrams(db, ["^qu", "qua"], 10).includes("quarterly_rollup"));
    });
    const removedId = withIndex(
      h,
      project.project_id,
      (db) => Number(db.prepare("SELECT id FROM symbol_names WHERE name_lower = 'quarterly_rollup'").get()?.id),
    );

    Deno.removeSync(join(dir, "pkg", "extra.py"));
    const again = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
    assert.equal(again.status, "published");
    withIndex(h, project.project_id, (db) => {
      assertInStep(db);
      // Gone from the trigram table too, not only from the names.
      assert.ok(!namesSharingGrams(db, ["^qu", "qua"], 10).includes("quarterly_rollup"));
      // Its trigrams are gone as well, not only left pointing at a row that no longer exists.
      assert.ok(removedId > 0);
      for (const g of ["^qu", "rol", "up$"]) assert.ok(!gramRows(db, g).includes(removedId), g);
      assert.throws(
        () => locateSymbol(db, { name: "quarterly_rollup" }),
        (e: unknown) => e instanceof CruxeError && e.code === "symbol_not_found",
      );
    });
  } finally {
    h.close();
  }
});

Deno.test("a store of the previous schema is reindex_required; a sync upgrades it and fills the name tables", async () => {
  const h = tempHome();
  try {
    const dir = copyFixture("go_basic");
    const { project } = await indexDir(h, dir);
    // Schema 2: before the name tables and the `generated` column (schema 3 added them).
    await downgradeThenSync(
      h,
      project,
      `DROP TABLE symbol_names; DROP TABLE symbol_names_fts; DELETE FROM meta WHERE key = 'symbol_names_built';
       ALTER TABLE files DROP COLUMN generated;`,
      2,
    );
    withIndex(h, project.project_id, (db) => {
      assertInStep(db);
      assert.equal(locateSymbol(db, { name: "ValidateTokn" }).results[0].name, "ValidateToken");
    });
  } finally {
    h.close();
  }
});

Deno.test("a store of schema 13 upgrades its name trigrams in place: the same fuzzy answers from a table without positions or row sizes", async () => {
  const h = tempHome();
  try {
    const dir = copyFixture("go_basic");
    const { project } = await indexDir(h, dir);
    const fuzzy = (db: Db) =>
      ["ValidateTokn", "NewServr", "valdate"].map((name) => {
        try {
          return locateSymbol(db, { name }).results.map((r) => r.symbol_id);
        } catch (e) {
          return (e as CruxeError).code;
        }
      });
    const before = withIndex(h, project.project_id, fuzzy);
    assert.ok(before.flat().length > 2);
    await downgradeThenSync(h, project, "", 13);
    withIndex(h, project.project_id, (db) => {
      assert.deepEqual(fuzzy(db), before);
      const sql = String(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'symbol_names_fts'").get()?.sql);
      assert.match(sql, /detail=none/);
      assert.match(sql, /columnsize=0/);
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'symbol_names_fts_%'").all();
      assert.deepEqual(tables.map((t) => t.name).sort(), [
        "symbol_names_fts_config",
        "symbol_names_fts_data",
        "symbol_names_fts_idx",
      ]);
      const ids = db.prepare("SELECT id FROM symbol_names WHERE name_lower = 'validatetoken'").get();
      assert.ok(gramRows(db, "tok").includes(Number(ids?.id)), "every name's trigrams are back");
    });
  } finally {
    h.close();
  }
});

/**
 * A store with `n` synthetic symbols (`<word>_<i>` definitions, `a_<i>` by default, plus a few real names
 * after them), name tables built whole.
 */
function syntheticStore(n: number, word = "a"): { db: Db; dir: string } {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-names-" });
  const db = openDb(join(dir, "index.db"));
  migrate(db, PROJECT_MIGRATIONS);
  const insFile = db.prepare(
    `INSERT INTO files(path, hash, size, mtime_ms, language, line_count, symbol_count) VALUES (?, '', 0, 0, 'go', 0, 0)`,
  );
  const ins = db.prepare(
    `INSERT INTO symbol_rows(file_id, name, qualified_name, kind, signature, line_start, line_span, stable_key,
       symbol_key) VALUES ((SELECT rowid FROM files WHERE path = ?), ?, ?, 'function', '', ?, ?, X'00', X'00')`,
  );
  const names = new NameTableWriter(db);
  transaction(db, () => {
    names.rebuildWhole();
    for (let i = 0; i < 997; i++) insFile.run(`f${i}.go`);
    insFile.run("x.go");
    for (let i = 0; i < n; i++) {
      const name = `${word}_${i.toString(36)}`;
      ins.run(`f${i % 997}.go`, name, `p.${name}`, i % 50 + 1, 0);
    }
    for (const name of ["ValidateToken", "validate_token", "Reader", "frobnitz_probe"]) {
      ins.run("x.go", name, name, 1, 1);
    }
    // Each file's symbol id range, as the writer records it (here the files' rows interleave).
    db.exec(FILL_FILE_RANGES_SQL);
    names.publish();
  });
  return { db, dir };
}

Deno.test("name lookups on a large store are bounded and say so; bad names never scan it all", () => {
  const { db, dir } = syntheticStore(PREFIX_SCAN_NAMES + 20_000);
  try {
    assertInStep(db);
    // Built whole, the trigram table is one segment: a trigram's list is one seek.
    const segments = oneRow<{ n: number }>(db, "SELECT count(DISTINCT segid) AS n FROM symbol_names_fts_idx")!.n;
    assert.equal(segments, 1);
    const p = namesWithPrefix(db, "a", 5);
    assert.equal(p.capped, true);
    assert.equal(p.names.length, 5);
    assert.ok(p.names.every((x) => x.length === 3), p.names.join(","));
    assert.ok(p.total >= PREFIX_SCAN_NAMES);
    const exact = namesWithPrefix(db, "validate", 5);
    assert.deepEqual(exact, { names: ["validatetoken", "validate_token"], counts: [1, 1], total: 2, capped: false });
    // Prefix completions in one read: what one read per name gives, shortest name first, at most `max` rows.
    const perName = exact.names.flatMap((n) => definitionsNamed(db, n, 10));
    assert.deepEqual(definitionsWithPrefix(db, "validate", 10).rows, perName);
    assert.deepEqual(definitionsWithPrefix(db, "validate", 1).rows, perName.slice(0, 1));
    const many = namesWithPrefix(db, "a", 300).names;
    assert.deepEqual(
      definitionsNamedEach(db, many.map((n, i) => ({ nameLower: n, max: i % 3 }))),
      many.flatMap((n, i) => definitionsNamed(db, n, i % 3)),
      "names past one statement's share keep their order and their own limits",
    );

    const t0 = performance.now();
    assert.deepEqual(fuzzyNames(db, "*"), []);
    assert.ok(fuzzyNames(db, "a").length <= 20);
    assert.equal(fuzzyNames(db, "validat_token")[0].name_lower, "validate_token");
    assert.equal(locateSymbol(db, { name: "ValidateTokne" }).results[0].name, "ValidateToken");
    const one = locateSymbol(db, { name: "a" });
    assert.equal(one.truncated, true);
    assert.ok(one.results.length <= 10);
    assert.throws(
      () => locateSymbol(db, { name: "*" }),
      (e: unknown) => e instanceof CruxeError && (e.code === "symbol_not_found" || e.code === "invalid_input"),
    );
    // A read that stops at its cap says so.
    const wide = { capped: false };
    assert.equal(namesSharingGrams(db, ["^a1"], 10, wide, 50).length, 10);
    assert.equal(wide.capped, true);
    const narrow = { capped: false };
    assert.deepEqual(namesSharingGrams(db, ["^va", "val"], 10, narrow), ["validate_token", "validatetoken"]);
    assert.equal(narrow.capped, false);
    // Exactly as many names as the share is not capped; one more is.
    const exactShare = { capped: false };
    assert.equal(namesSharingGrams(db, ["^va"], 10, exactShare, 2).length, 2);
    assert.equal(exactShare.capped, false);
    const overShare = { capped: false };
    assert.equal(namesSharingGrams(db, ["^va"], 10, overShare, 1).length, 1);
    assert.equal(overShare.capped, true);
    const short = { capped: false };
    assert.equal(namesOfCompactLength(db, 1, 3, 5, short).length, 5);
    assert.equal(short.capped, true);
    // Generous bound: each of these reads a capped slice, never the whole store.
    assert.ok(performance.now() - t0 < 20_000);

    // A name-by-name refresh after the whole build keeps the tables in step.
    const names = new NameTableWriter(db);
    transaction(db, () => {
      names.noteFileRemoved("x.go");
      db.exec("DELETE FROM symbol_rows WHERE name = 'Reader'");
      names.publish();
    });
    assertInStep(db);
    assert.equal(namesWithPrefix(db, "read", 5).total, 0);
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

/** Counts the runs of statements whose SQL contains `needle` on `db` (statements prepared from now on). */
function countRuns(db: Db, needle: string): { runs: number } {
  const counter = { runs: 0 };
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const st = prepare(sql);
    if (!sql.includes(needle)) return st;
    for (const m of ["all", "get", "iterate"] as const) {
      const f = st[m].bind(st) as (...a: unknown[]) => unknown;
      (st as unknown as Record<string, unknown>)[m] = (...a: unknown[]) => (counter.runs++, f(...a));
    }
    return st;
  }) as typeof db.prepare;
  return counter;
}

/** The suggestions of a `symbol_not_found` answer to `name`. */
function suggestionsFor(db: Db, name: string): string[] {
  try {
    locateSymbol(db, { name });
  } catch (e) {
    if (e instanceof CruxeError && e.code === "symbol_not_found") {
      return (e.data as { suggestions: { name: string }[] }).suggestions.map((x) => x.name);
    }
    throw e;
  }
  throw new Error(`${name} was found`);
}

Deno.test("a missing name: spellings looked up once, suggestions led by its rare words", () => {
  // More names share the word `config` than one ranking reads: the rare word's definition comes after them all.
  const { db, dir } = syntheticStore(RANK_SCAN_ROWS + 500, "config");
  try {
    db.exec(`INSERT INTO symbols_fts(rowid, name, qualified, detail)
      SELECT id, replace(name, '_', ' '), '', '' FROM symbol_rows`);
    const trigramReads = countRuns(db, "symbol_names_fts MATCH");
    const shown = suggestionsFor(db, "CONFIG_FROBNITZ");
    assert.equal(shown[0], "frobnitz_probe", shown.join(","));
    // One read per probed trigram of `configfrobnitz` (10 of them), not a second round for the suggestions.
    assert.equal(trigramReads.runs, 10);
    // With only common words (and absent ones), they are all searched.
    assert.equal(suggestionsFor(db, "CONFIG_QQQQQQ").length, 5);
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a ranking past its row cap scores only the first CAPPED_SCAN_ROWS matches and says it was capped", () => {
  const { db, dir } = syntheticStore(RANK_SCAN_ROWS + 500, "config");
  try {
    // Every symbol says `config`, even ones also `even`; one past CAPPED_SCAN_ROWS says both most often.
    const best = CAPPED_SCAN_ROWS + 2000;
    db.exec(`INSERT INTO symbols_fts(rowid, name, qualified, detail)
      SELECT id, CASE WHEN id = ${best} THEN 'config config config even even even'
        WHEN id % 2 = 0 THEN 'config ' || id || ' even' ELSE 'config ' || id END, '', '' FROM symbol_rows`);
    const wide = { capped: false };
    const top = symbolsRanked(db, '"config"', { bounds: wide }, 10).map((r) => r.id);
    assert.equal(wide.capped, true);
    assert.equal(top.length, 10);
    assert.ok(!top.includes(best), "a match past CAPPED_SCAN_ROWS is not scored once the list is capped");
    assert.ok(top.every((id) => id <= CAPPED_SCAN_ROWS));
    // Within RANK_SCAN_ROWS matches, every one is scored.
    const whole = { capped: false };
    assert.equal(symbolsRanked(db, '"even"', { bounds: whole }, 10)[0].id, best);
    assert.equal(whole.capped, false);
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("prefix completions are read up to the longest completion, not the longest name of the store", () => {
  const { db, dir } = syntheticStore(100);
  try {
    const names = new NameTableWriter(db);
    const long = "a_name_far_longer_than_any_completion_of_validate";
    transaction(db, () => {
      db.prepare(
        `INSERT INTO symbol_rows(file_id, name, qualified_name, kind, signature, line_start, line_span, stable_key,
           symbol_key) VALUES ((SELECT id FROM files WHERE path = 'x.go'), ?, ?, 'function', '', 9, 0, X'00', X'00')`,
      ).run(long, long);
      names.note(long);
      names.publish();
    });
    const perLength = countRuns(db, "WHERE len = ?");
    assert.deepEqual(namesWithPrefix(db, "validate", 5).names, ["validatetoken", "validate_token"]);
    // Lengths 9 to 14 ("validate_token"), not on to the long name's 49.
    assert.equal(perLength.runs, "validate_token".length - "validate".length);
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a chunk ranking whose match count is known does not step over the matches to learn it", () => {
  const { db, dir } = syntheticStore(10);
  try {
    db.exec(`INSERT INTO chunk_rows(file_id, line_start, line_span, symbol_row, content)
      SELECT id, 1, 0, NULL, 'frobnitz here' FROM files WHERE path = 'x.go'`);
    db.exec(FILL_FILE_RANGES_SQL);
    db.exec(`INSERT INTO chunks_fts(rowid, body, path) SELECT id, content, 'x.go' FROM chunk_rows`);
    const probes = countRuns(db, "OFFSET");
    const rank = (known: { atMost?: number; atLeast?: number } | undefined, language?: string) => {
      const f = { language, bounds: { capped: false } };
      const n = chunksRanked(db, '"frobnitz"', f, 10, known).length;
      return { n, capped: f.bounds.capped, probes: probes.runs };
    };
    assert.deepEqual(rank({ atMost: 1 }), { n: 1, capped: false, probes: 0 });
    // Told there are more matches than one ranking reads: capped, without stepping over them.
    assert.deepEqual(rank({ atLeast: RANK_SCAN_ROWS + 1 }), { n: 1, capped: true, probes: 0 });
    // A filter keeps only part of them: the lower bound says nothing, the matches are stepped over.
    assert.deepEqual(rank({ atLeast: RANK_SCAN_ROWS + 1 }, "go"), { n: 1, capped: false, probes: 1 });
    assert.deepEqual(rank(undefined), { n: 1, capped: false, probes: 2 });
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("the planner's match counts: an upper bound from any count, a lower bound only from counted matches", () => {
  const terms = [{ text: "time", prefix: true, df: 900 }, { text: "reg", prefix: false, df: 400 }, {
    text: "ab",
    prefix: false,
    df: 30,
  }];
  assert.deepEqual(chunkMatches(terms, { counts: "matches" }), { atMost: 1330, atLeast: 400 });
  assert.deepEqual(chunkMatches(terms, { counts: "upper" }), { atMost: 1330, atLeast: 0 });
  assert.deepEqual(chunkMatches(terms, { counts: "none" }), {});
  assert.deepEqual(chunkMatches(terms, {}), {});
});
