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

/** A store with `n` synthetic symbols (`a_<i>` definitions plus a few real names), name tables built whole. */
function syntheticStore(n: number): { db: Db; dir: string } {
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
      const name = `a_${i.toString(36)}`;
      ins.run(`f${i % 997}.go`, name, `p.${name}`, i % 50 + 1, 0);
    }
    for (const name of ["ValidateToken", "validate_token", "Reader"]) {
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
