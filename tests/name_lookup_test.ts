import assert from "node:assert/strict";
import { join } from "node:path";
import {
  copyFixture,
  downgradeThenSync,
  indexDir,
  tempHome,
  withIndex,
  withIndexedTree,
} from "./helpers/fixture_repo.ts";
import { locateSymbol, parseSymbolName } from "../src/query/locate_symbol.ts";
import { definitionsWithPrefix, fuzzyNames } from "../src/query/symbol_name_index.ts";
import { type Db, openDb, transaction } from "../src/state/db.ts";
import { FILL_FILE_RANGES_SQL, migrate, PROJECT_MIGRATIONS } from "../src/state/schema.ts";
import {
  INDEXED_COMPACT_LEN,
  INDEXED_NAME_LEN,
  namesOfCompactLength,
  namesSharingGrams,
  namesWithPrefix,
  NameTableWriter,
  PREFIX_SCAN_NAMES,
} from "../src/state/name_lookup.ts";
import { firstIdsOf } from "../src/state/name_grams.ts";
import { definitionsNamed } from "../src/state/read/name_entries.ts";
import { CruxeError } from "../src/core/errors.ts";
import { CAPPED_SCAN_ROWS, chunksRanked, RANK_SCAN_ROWS, symbolsRanked } from "../src/state/read/search.ts";
import { oneRow } from "../src/state/read/rows.ts";
import { chunkMatches } from "../src/query/search/plan.ts";
import { searchCode } from "../src/query/search_code.ts";

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
  return Array.from(firstIdsOf(db, gram, 1_000_000));
}

function assertInStep(db: Db): void {
  const t = nameTables(db);
  assert.ok(t.want.length > 0);
  assert.equal(t.have, t.want);
}

Deno.test("a name's entries spell every column as the symbols view does, in every language", async () => {
  const h = tempHome();
  try {
    for (const fixture of ["go_basic", "java_basic", "cpp_basic", "py_basic", "rust_basic", "csharp_basic"]) {
      const { project } = await indexDir(h, copyFixture(fixture));
      withIndex(h, project.project_id, (db) => {
        const names = db.prepare("SELECT DISTINCT name_lower FROM symbols").all() as { name_lower: string }[];
        assert.ok(names.length > 5, fixture);
        const kinds = new Set<string>();
        for (const { name_lower } of names) {
          const viewRows = db.prepare(
            `SELECT id, name, qualified_name, kind, language, parent_id IS NULL AS top, visibility, path, line_start
             FROM symbols WHERE name_lower = ? ORDER BY id`,
          ).all(name_lower) as Record<string, unknown>[];
          const want = viewRows.map((r) => ({ ...r, id: Number(r.id), top: Number(r.top) === 1 }));
          const got = definitionsNamed(db, name_lower, 1000);
          assert.deepEqual(got.map((e) => ({ ...e })), want, `${fixture}: ${name_lower}`);
          for (const e of got) kinds.add(`${e.kind}/${e.visibility}/${e.qualified_name !== e.name}`);
        }
        assert.ok(kinds.size > 2, `${fixture}: ${[...kinds].join(" ")}`);
      });
    }
  } finally {
    h.close();
  }
});

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

Deno.test("a store of schema 13 upgrades its name trigrams in place: the same fuzzy answers from packed trigram lists", async () => {
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
      // The FTS5 trigram table and its shadow tables are gone.
      assert.deepEqual(db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'symbol_names_fts%'").all(), []);
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

/** Prefix completions read from every name of the table: the shortest `max`, then in binary order (ASCII here). */
function prefixOracle(db: Db, prefix: string, max: number): { names: string[]; counts: number[] } {
  const all = db.prepare("SELECT name_lower, count FROM symbol_names").all() as { name_lower: string; count: number }[];
  const hits = all.filter((r) => r.name_lower.startsWith(prefix) && r.name_lower !== prefix)
    .sort((a, b) => a.name_lower.length - b.name_lower.length || (a.name_lower < b.name_lower ? -1 : 1))
    .slice(0, max);
  return { names: hits.map((r) => r.name_lower), counts: hits.map((r) => Number(r.count)) };
}

Deno.test("prefix completions are the shortest names, whether the prefix's names are short, long or both", () => {
  // 14 letters and `_`: the first 36 names are INDEXED_NAME_LEN long, every other name is longer.
  const word = "abcdefghijklmn";
  assert.equal(word.length + 2, INDEXED_NAME_LEN);
  const { db, dir } = syntheticStore(PREFIX_SCAN_NAMES + 500, word);
  try {
    const cases: [string, number][] = [
      [word, 20], // capped, filled from the length index alone
      [word, 100], // capped, 36 short names then the longer ones from the prefix's range
      [word + "_1", 50], // not capped: every completion sorted in one read
      [word + "_", 5000],
      ["validate", 5],
      ["v", 3],
      ["zzz", 10],
      [word + "_1", 0],
    ];
    for (const [prefix, max] of cases) {
      const got = namesWithPrefix(db, prefix, max);
      const want = prefixOracle(db, prefix, max);
      assert.deepEqual({ names: got.names, counts: got.counts }, want, `${prefix} / ${max}`);
    }
    assert.equal(namesWithPrefix(db, word, 100).capped, true);
    assert.equal(namesWithPrefix(db, word + "_1", 50).capped, false);
    // The length indexes hold the short names only, and the reads that need them use them.
    const plan = (sql: string, ...args: unknown[]) =>
      JSON.stringify(db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(args as string[])));
    assert.match(
      plan(
        `SELECT name_lower FROM symbol_names WHERE len = ? AND len <= ${INDEXED_NAME_LEN} AND name_lower > ?`,
        5,
        "a",
      ),
      /symbol_names_len/,
    );
    const indexed = (index: string, column: string, bound: number) =>
      oneRow<{ n: number }>(
        db,
        `SELECT count(*) AS n FROM symbol_names INDEXED BY ${index} WHERE ${column} <= ${bound}`,
      )!.n;
    const short =
      oneRow<{ n: number }>(db, `SELECT count(*) AS n FROM symbol_names WHERE len <= ${INDEXED_NAME_LEN}`)!.n;
    assert.equal(indexed("symbol_names_len", "len", INDEXED_NAME_LEN), short);
    assert.ok(short < PREFIX_SCAN_NAMES / 10, `${short} short names`);
    assert.throws(() => namesOfCompactLength(db, 1, INDEXED_COMPACT_LEN + 1, 10), /not indexed/);
    const sizes = db.prepare(
      "SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name IN ('symbol_names_len', 'symbol_names') GROUP BY name",
    ).all() as { name: string; bytes: number }[];
    const bytes = Object.fromEntries(sizes.map((r) => [r.name, Number(r.bytes)]));
    assert.ok(bytes.symbol_names_len * 5 < bytes.symbol_names, JSON.stringify(bytes));
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
    const trigramReads = countRuns(db, "FROM name_grams WHERE key >=");
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

Deno.test("a short name with prefix completions is not compared with every name of its length", () => {
  const { db, dir } = syntheticStore(500, "zeta");
  try {
    const scans = countRuns(db, "clen BETWEEN");
    // No `zeta`, no spelling close enough, but `zeta_0` and the others complete it.
    const r = locateSymbol(db, { name: "zeta" });
    assert.ok(r.results.length > 0 && r.results.every((x) => x.match_tier === "prefix"));
    assert.equal(scans.runs, 0);
    // With nothing else to answer, a short name is still compared with every name of about its length.
    assert.equal(locateSymbol(db, { name: "Raeder" }).results[0].name, "Reader");
    assert.throws(() => locateSymbol(db, { name: "zqzq" }), /No symbol named "zqzq"/);
    assert.ok(scans.runs > 0);
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a missing name whose words are all common: suggestions carry every word, wherever they are", () => {
  const { db, dir } = syntheticStore(RANK_SCAN_ROWS + 500, "config");
  // Half the names say `config`, the other half `mount`: both common. One name, past the rows one
  // ranking reads, says both.
  const both = RANK_SCAN_ROWS + 400;
  try {
    db.exec(`INSERT INTO symbols_fts(rowid, name, qualified, detail)
      SELECT id, CASE WHEN id = ${both + 1} THEN 'config mount' WHEN id % 2 = 0 THEN 'mount ' || id
        ELSE 'config ' || id END, '', '' FROM symbol_rows`);
    assert.deepEqual(suggestionsFor(db, "MOUNT_CONFIG_OPTION"), [`config_${both.toString(36)}`]);
    // Once no name carries both, a name carrying one of them is no suggestion.
    db.exec(`DELETE FROM symbols_fts WHERE rowid = ${both + 1}`);
    assert.deepEqual(suggestionsFor(db, "MOUNT_CONFIG_OPTION"), []);
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

Deno.test("prefix completions counted whole are sorted in one read; past the count, one read per indexed length", () => {
  const { db, dir } = syntheticStore(PREFIX_SCAN_NAMES + 500);
  try {
    const perLength = countRuns(db, "WHERE len = ?");
    assert.deepEqual(namesWithPrefix(db, "validate", 5).names, ["validatetoken", "validate_token"]);
    assert.equal(perLength.runs, 0, "the counted completions are sorted, not read length by length");
    // `a_<i>`: every length from 2 to INDEXED_NAME_LEN is read, nothing past it (there are enough short names).
    assert.equal(namesWithPrefix(db, "a", 300).names.length, 300);
    assert.ok(perLength.runs > 0 && perLength.runs <= INDEXED_NAME_LEN - 1, `${perLength.runs} reads`);
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("the prefix and short-name reads use their partial indexes", () => {
  const { db, dir } = syntheticStore(PREFIX_SCAN_NAMES + 500);
  try {
    const seen: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => (seen.push(sql), prepare(sql))) as typeof db.prepare;
    namesWithPrefix(db, "a", 300);
    namesOfCompactLength(db, 2, 4, 100);
    db.prepare = prepare;
    const planOf = (needle: string) => {
      const sql = seen.find((q) => q.includes(needle));
      assert.ok(sql, needle);
      const args = (sql.match(/\?/g) ?? []).map(() => 3);
      return JSON.stringify(db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args));
    };
    assert.match(planOf("WHERE len = ?"), /USING (COVERING )?INDEX symbol_names_len/);
    assert.match(planOf("clen BETWEEN"), /COVERING INDEX symbol_names_clen/);
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

/** `syntheticStore(10)` with one chunk of `x.go` holding `text`, in the full text too. */
function storeWithChunk(text: string): { db: Db; dir: string } {
  const store = syntheticStore(10);
  store.db.prepare(`INSERT INTO chunk_rows(file_id, line_start, line_span, symbol_row, content)
      SELECT id, 1, 0, NULL, ? FROM files WHERE path = 'x.go'`).run(text);
  store.db.exec(FILL_FILE_RANGES_SQL);
  store.db.exec(`INSERT INTO chunks_fts(rowid, body, path) SELECT id, content, 'x.go' FROM chunk_rows`);
  return store;
}

Deno.test("a chunk ranking whose match count is known does not step over the matches to learn it", () => {
  const { db, dir } = storeWithChunk("frobnitz here");
  try {
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
  // A prefix's sure matches (a recorded common word with it) are a lower bound whatever the counts' kind.
  const sure = (p: string) => (p === "time" ? 700 : 0);
  assert.deepEqual(chunkMatches(terms, { counts: "matches", prefixAtLeast: sure }), { atMost: 1330, atLeast: 700 });
  assert.deepEqual(chunkMatches(terms, { counts: "upper", prefixAtLeast: sure }), { atMost: 1330, atLeast: 700 });
  assert.deepEqual(chunkMatches(terms, { counts: "none", prefixAtLeast: sure }), {});
});

Deno.test("a prose query's phrase list does not step over its matches: its rarest word bounds them", () => {
  const { db, dir } = storeWithChunk("the frobnitz widget turns");
  try {
    // Each full-text read of the chunks: whether it stepped over matches (a probe), and its expression.
    const reads: { probe: boolean; match: unknown }[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      const st = prepare(sql);
      if (!sql.includes("chunks_fts MATCH ?")) return st;
      for (const m of ["all", "get", "iterate"] as const) {
        const f = st[m].bind(st) as (...a: unknown[]) => unknown;
        (st as unknown as Record<string, unknown>)[m] = (...a: unknown[]) => (
          reads.push({ probe: / OFFSET /.test(sql), match: a[0] }), f(...a)
        );
      }
      return st;
    }) as typeof db.prepare;
    const r = searchCode(db, { query: "frobnitz widget turning" });
    assert.equal(r.results[0]?.path, "x.go", JSON.stringify(r.results));
    assert.ok(reads.some((x) => x.match === '"frobnitz widget"'), JSON.stringify(reads));
    assert.deepEqual(reads.filter((x) => x.probe), []);
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("locate_symbol: a Go method expression (`(*B).Run`, as stack traces print it) names its receiver's type", async () => {
  const files = {
    "jobs/a.go": "package jobs\n\ntype A struct{}\n\nfunc (a *A) Run() {}\n",
    "jobs/b.go": "package jobs\n\ntype B struct{}\n\nfunc (b B) Run() {}\n",
  };
  await withIndexedTree(files, (db) => {
    for (const q of ["(*B).Run", "(B).Run", "jobs.(*B).Run", "(*B).Run(ctx)"]) {
      assert.equal(locateSymbol(db, { name: q }).results[0]?.qualified_name, "jobs.B.Run", q);
    }
    assert.equal(locateSymbol(db, { name: "(*A).Run" }).results[0]?.qualified_name, "jobs.A.Run");
    // Only a receiver first or after a dot: a call's argument (`get(url).json`) is no receiver.
    assert.ok(!parseSymbolName("client.get(url).json").qualifiers.includes("geturl"));
  });
});

Deno.test("locate_symbol: generic arguments and a Rust qualified path (`<Vec<T> as Extend<T>>::extend`) name the type's method", async () => {
  const lib =
    "pub fn extend() {}\n\npub struct Vec<T> {\n    x: T,\n}\n\npub trait Extend<T> {\n    fn extend(&mut self);\n}\n\n" +
    "impl<T> Extend<T> for Vec<T> {\n    fn extend(&mut self) {}\n}\n";
  await withIndexedTree({ "lib.rs": lib }, (db) => {
    for (
      const q of ["<Vec<T> as Extend<T>>::extend", "<crate::Vec<T, A> as crate::Extend<T>>::extend", "Vec<T>::extend"]
    ) {
      const top = locateSymbol(db, { name: q }).results[0];
      assert.equal(`${top?.qualified_name}:${top?.line_start}`, "lib::Vec::extend:12", q);
    }
    assert.deepEqual(parseSymbolName("std::vector<int>::push_back").qualifiers, ["std", "vector"]);
    assert.equal(parseSymbolName("Widget::operator<=>").leaf, "operator<=>", "an operator's name is kept");
  });
});

Deno.test("locate_symbol: a Python entry point (`pkg.cli:main`) names its module's function", async () => {
  const main = "def main():\n    return 0\n";
  await withIndexedTree({ "pkg/cli.py": main, "pkg/server.py": main }, (db) => {
    for (const [q, path] of [["pkg.cli:main", "pkg/cli.py"], ["pkg.server:main", "pkg/server.py"]]) {
      assert.equal(locateSymbol(db, { name: q }).results[0]?.path, path, q);
    }
  });
});

Deno.test("locate_symbol: a JVM nested class name (`Outer$Node.getKey`, as stack traces print it) names the nested class", async () => {
  const nested = (outer: string, inner: string) =>
    `package app;\n\nclass ${outer} {\n    static class ${inner} {\n        int getKey() { return 0; }\n    }\n}\n`;
  await withIndexedTree(
    { "app/Abstract.java": nested("Abstract", "Entry"), "app/Outer.java": nested("Outer", "Node") },
    (db) => {
      for (const q of ["app.Outer$Node.getKey", "at app.Outer$Node.getKey(Outer.java:5)"]) {
        assert.equal(locateSymbol(db, { name: q }).results[0]?.path, "app/Outer.java", q);
      }
      assert.equal(parseSymbolName("$scope").leaf, "$scope", "a name that starts with $ is kept");
    },
  );
});
