import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { copyFixture, downgradeThenSync, indexDir, tempHome, withIndex } from "./helpers/fixture_repo.ts";
import { searchCode } from "../src/query/search_code.ts";
import { locateSymbol } from "../src/query/locate_symbol.ts";
import type { Db } from "../src/state/db.ts";
import { childrenOf, symbolById, symbolByRowId, symbolMapByIds, symbolsByName } from "../src/state/read/symbols.ts";
import { definitionCount, referencesInLines } from "../src/state/read/references.ts";
import { nameKey } from "../src/state/name_key.ts";
import { symbolKeysMatchSql } from "../src/state/symbol_keys.ts";
import { registerStoreFunctions } from "../src/state/store_functions.ts";
import { referencesOf } from "../src/state/read/edges.ts";
import { namesOfFile } from "../src/state/ref_file_names.ts";

/** A Go tree of `n` small files (past the bulk-load threshold of 500 new files when `n` is larger). */
function goTree(n: number): string {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-bulk-" });
  for (let i = 0; i < n; i++) {
    Deno.writeTextFileSync(
      join(dir, `f${i}.go`),
      `package p; import "strings"\n\n// Rate${i} limits requests of kind ${i}.\nfunc Rate${i}(limitBucket int) int {\n` +
        `\treturn checkRateLimit${i % 7}(limitBucket) + ${i}\n}\n`,
    );
  }
  return dir;
}

/**
 * Every full-text hit of a few queries with its BM25 score, and name lookups,
 * as comparable text (sorted: rows of equal score may come in any order).
 */
function answers(db: Db): string {
  const hits = (sql: string, q: string) =>
    (db.prepare(sql).all(q) as { k: string; r: number }[]).map((x) => `${x.k} ${x.r.toFixed(9)}`).sort();
  const fts = ["rate limit", "checkratelimit3", "requests AND kind AND 42", "bucket"].map((q) => [
    hits(
      `SELECT c.path || ':' || c.line_start AS k, bm25(chunks_fts, 1.0, 0.2) AS r FROM chunks_fts
       JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ?`,
      q,
    ),
    hits(
      `SELECT s.path || ':' || s.name AS k, bm25(symbols_fts) AS r FROM symbols_fts
       JOIN symbols s ON s.id = symbols_fts.rowid WHERE symbols_fts MATCH ?`,
      q,
    ),
  ]);
  const locate = ["Rate17", "Rate4", "checkRateLimit2"].map((n) =>
    locateSymbol(db, { name: n }).results.map((r) => `${r.path}:${r.line_start}`).sort()
  );
  return JSON.stringify({ fts, locate, search: searchCode(db, { query: "Rate42", limit: 1 }).results[0].path });
}

/** FTS5 settings of a full-text table, by key. */
function ftsSettings(db: Db, table: string): Record<string, number> {
  const rows = db.prepare(`SELECT k, v FROM ${table}_config`).all() as { k: string; v: number }[];
  return Object.fromEntries(rows.map((r) => [r.k, Number(r.v)]));
}

Deno.test("a cold bulk load answers as a file-by-file load does, and leaves the sync's full-text settings", async () => {
  const h = tempHome();
  try {
    const n = 520;
    // Bulk: every file new at once.
    const bulkDir = goTree(n);
    const bulk = await indexDir(h, bulkDir);
    assert.equal(bulk.status, "published");
    // File by file: one file first, then the rest as a sync into a non-empty index (no bulk load).
    const stepDir = Deno.makeTempDirSync({ prefix: "cruxe-step-" });
    Deno.copyFileSync(join(bulkDir, "f0.go"), join(stepDir, "f0.go"));
    const step = await indexDir(h, stepDir);
    for (let i = 1; i < n; i++) Deno.copyFileSync(join(bulkDir, `f${i}.go`), join(stepDir, `f${i}.go`));
    assert.equal((await indexDir(h, stepDir, { mode: "incremental" })).status, "published");

    const bulkAnswers = withIndex(h, bulk.project.project_id, (db) => {
      for (const t of ["chunks_fts", "symbols_fts", "files_fts"]) {
        const s = ftsSettings(db, t);
        assert.deepEqual([s.automerge, s.crisismerge, s.hashsize], [4, 16, 1024 * 1024], t);
      }
      assert.equal(locateSymbol(db, { name: "Rate511" }).results[0].path, "f511.go");
      // Rows queued across files still take each file's own id range, whole.
      for (const [t, col] of [["symbol_rows", "sym"], ["edge_rows", "edge"], ["chunk_rows", "chunk"]]) {
        const stray = db.prepare(
          `SELECT count(*) AS n FROM ${t} r JOIN files f ON f.id = r.file_id
           WHERE r.id NOT BETWEEN f.${col}_lo AND f.${col}_hi`,
        ).get() as { n: number };
        const ranged = db.prepare(
          `SELECT sum(${col}_hi - ${col}_lo + 1) AS n, (SELECT count(*) FROM ${t}) AS rows FROM files`,
        ).get() as { n: number; rows: number };
        assert.equal(stray.n, 0, t);
        assert.equal(ranged.n, ranged.rows, t);
        assert.ok(ranged.rows >= n, t);
      }
      return answers(db);
    });
    const stepAnswers = withIndex(h, step.project.project_id, answers);
    assert.ok(bulkAnswers.includes("f42.go"), bulkAnswers);
    assert.equal(bulkAnswers.replaceAll(bulkDir, ""), stepAnswers.replaceAll(stepDir, ""));
  } finally {
    h.close();
  }
});

Deno.test("a cold bulk load leaves no free pages: the index builds reuse those the name tables' rebuild frees", async () => {
  const h = tempHome();
  try {
    // Enough distinct names (60,000) for the trigram table's build to merge segments, which frees pages.
    const dir = Deno.makeTempDirSync({ prefix: "cruxe-bulk-names-" });
    for (let i = 0; i < 520; i++) {
      const funcs = Array.from({ length: 116 }, (_, j) => `func Limit${i}x${j}Rate() {}\n`).join("");
      Deno.writeTextFileSync(join(dir, `f${i}.go`), `package p\n\n${funcs}`);
    }
    const { project } = await indexDir(h, dir);
    withIndex(h, project.project_id, (db) => {
      assert.equal(db.prepare("SELECT count(*) AS n FROM symbol_names").get()?.n, 520 * 116);
      assert.equal(db.prepare("PRAGMA freelist_count").get()?.freelist_count, 0);
    });
  } finally {
    h.close();
  }
});

Deno.test("a cold bulk load packs the references into full pages, every one kept", async () => {
  const h = tempHome();
  try {
    const dir = Deno.makeTempDirSync({ prefix: "cruxe-bulk-refs-" });
    const calls = Array.from({ length: 40 }, (_, i) => `\tuse${i % 9}(n)\n`).join("");
    for (let i = 0; i < 520; i++) {
      Deno.writeTextFileSync(join(dir, `f${i}.go`), `package p\n\nfunc Caller${i}(n int) {\n${calls}}\n`);
    }
    const { project } = await indexDir(h, dir);
    withIndex(h, project.project_id, (db) => {
      const refs = db.prepare(
        "SELECT sum(unused) AS u, sum(pgsize) AS b FROM dbstat WHERE name = 'refs'",
      ).get() as { u: number; b: number };
      assert.ok(refs.u / refs.b < 0.03, `${refs.u} of ${refs.b} bytes of the references' pages unused`);
      const n = db.prepare(
        "SELECT count(*) AS n FROM refs JOIN ref_names r ON r.id = refs.name_id WHERE r.name LIKE 'use%'",
      )
        .get() as { n: number };
      assert.equal(n.n, 520 * 40);
      // A name's occurrences are one range of the table, found by its key: no index repeats it.
      assert.match(
        JSON.stringify(db.prepare("EXPLAIN QUERY PLAN SELECT * FROM refs WHERE name_id = ?").all(1)),
        /SEARCH refs USING PRIMARY KEY \(name_id=\?\)/,
      );
      assert.equal(
        db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND tbl_name = 'refs'").get(),
        undefined,
      );
      assert.equal(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'refs_load'").get(), undefined);
    });
  } finally {
    h.close();
  }
});

Deno.test("a forced rebuild of a bulk-loaded store loads in bulk again, its references packed again", async () => {
  const h = tempHome();
  try {
    const dir = goTree(520);
    const first = await indexDir(h, dir);
    assert.equal(first.status, "published");
    // The first load's packed copy was renamed into place; a second bulk load packs that one.
    for (let round = 0; round < 2; round++) {
      const again = await indexDir(h, dir, { force: true });
      assert.equal(again.status, "published", `forced rebuild ${round + 1}`);
    }
    withIndex(h, first.project.project_id, (db) => {
      const n = db.prepare(
        "SELECT count(*) AS n FROM refs JOIN ref_names r ON r.id = refs.name_id WHERE r.name LIKE 'checkRateLimit%'",
      ).get() as { n: number };
      assert.equal(n.n, 520);
      assert.equal(locateSymbol(db, { name: "Rate519" }).results[0].name, "Rate519");
    });
  } finally {
    h.close();
  }
});

Deno.test("a store of schema 3 is reindex_required; a sync upgrades it and drops the stable-id index", async () => {
  const h = tempHome();
  try {
    const { project } = await indexDir(h, copyFixture("go_basic"));
    await downgradeThenSync(h, project, "CREATE INDEX symbols_stable ON symbols(stable_id)", 3);
    withIndex(h, project.project_id, (db) => {
      const idx = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'symbols_stable'").all();
      assert.equal(idx.length, 0);
      assert.equal(locateSymbol(db, { name: "ValidateToken" }).results[0].name, "ValidateToken");
    });
  } finally {
    h.close();
  }
});

/** Every row of the symbols, edges and chunks (views or tables), as comparable text. */
function allRows(db: Db): string {
  return JSON.stringify(["symbols", "edges", "chunks"].map((t) => db.prepare(`SELECT * FROM ${t} ORDER BY id`).all()));
}

/** Every row by content: row ids (and the ids rows name each other by) left out, rows sorted. */
function rowContents(db: Db): string {
  const ids = new Set(["id", "parent_id", "source_id", "symbol_row"]);
  return JSON.stringify(
    ["symbols", "edges", "chunks"].map((t) =>
      db.prepare(`SELECT * FROM ${t}`).all().map((r) =>
        JSON.stringify(Object.entries(r as Record<string, unknown>).filter(([k]) => !ids.has(k)))
      ).sort()
    ),
  );
}

Deno.test("a store of schema 4 upgrades to slim rows: the same answers, every row carried over", async () => {
  const h = tempHome();
  try {
    const dir = goTree(30);
    // A non-ASCII name whose lower case SQLite's `lower` does not give.
    Deno.writeTextFileSync(join(dir, "u.go"), "package p\n\nfunc ÄrgerLimit() int { return 1 }\n");
    // A C function has no package: its qualified name is its name.
    Deno.writeTextFileSync(join(dir, "c.c"), "int rate_limit_c(int n) { return n; }\n");
    const { project } = await indexDir(h, dir);
    const slim = (db: Db) =>
      db.prepare(
        `SELECT name, name_lower, qualified_name, qualifier FROM symbol_rows
         WHERE name IN ('Rate4', 'ÄrgerLimit', 'rate_limit_c')
         ORDER BY name`,
      ).all();
    const before = withIndex(h, project.project_id, (db) => {
      // Only what the view cannot compute is stored.
      assert.deepEqual(slim(db).map((r) => ({ ...r })), [
        { name: "Rate4", name_lower: null, qualified_name: null, qualifier: "p" },
        { name: "rate_limit_c", name_lower: null, qualified_name: null, qualifier: null },
        { name: "ÄrgerLimit", name_lower: "ärgerlimit", qualified_name: null, qualifier: "p" },
      ]);
      return { answers: answers(db), rows: rowContents(db) };
    });
    await downgradeThenSync(h, project, "", 4);
    withIndex(h, project.project_id, (db) => {
      // The upgrade past schema 5 extracts every file again (for the reference hints): rows get new ids and
      // full-text scores count the replaced rows too, so rows compare by content and answers without scores.
      const unscored = (a: string) => a.replace(/ -?\d+\.\d+/g, "");
      assert.equal(unscored(answers(db)), unscored(before.answers));
      assert.equal(rowContents(db), before.rows);
      assert.equal(slim(db).length, 3);
      assert.equal(locateSymbol(db, { name: "ärgerlimit" }).results[0].name, "ÄrgerLimit");
      const plan = (sql: string) => JSON.stringify(db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all("x"));
      assert.match(
        plan("SELECT id FROM symbols WHERE name_key = ? AND name_lower = ?"),
        /symbols_name/,
        "through the view",
      );
      assert.match(plan("SELECT id FROM edges WHERE target_lower = ? AND kind = 'call'"), /edges_target/);
      // A file's chunks: from the file by its path, then its range of chunk ids.
      assert.match(
        plan("SELECT id FROM chunks WHERE path = ? ORDER BY line_start"),
        /sqlite_autoindex_files_1 \(path=\?\).*SEARCH c USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/,
      );
      assert.match(
        plan("SELECT name_lower FROM symbol_names WHERE clen BETWEEN ? AND 8 AND clen <= 8 ORDER BY clen, name_lower"),
        /COVERING INDEX symbol_names_clen/,
        "the short-name scan reads the index alone",
      );
    });
  } finally {
    h.close();
  }
});

Deno.test("a store of schema 7 upgrades to handle keys, word codes, qualifiers, a parent index of children and texts without names: every row and answer the same", async () => {
  const h = tempHome();
  try {
    const dir = goTree(20);
    // A call outside any symbol: its reference has no enclosing handles.
    Deno.writeTextFileSync(join(dir, "run.sh"), "main() {\n  echo hi\n}\nmain\n");
    // A method (qualified by package and type) and a name qualified by `::`, kept whole.
    Deno.writeTextFileSync(join(dir, "t.go"), "package p\n\ntype T struct{ F int }\n\nfunc (T) Method() {}\n");
    Deno.writeTextFileSync(join(dir, "n.cpp"), "namespace ns {\nint add(int a) { return a; }\n}\n");
    const { project } = await indexDir(h, dir);
    const snapshot = (db: Db) => ({ answers: answers(db), rows: allRows(db) });
    const before = withIndex(h, project.project_id, snapshot);
    await downgradeThenSync(h, project, "", 7);
    withIndex(h, project.project_id, (db) => {
      assert.deepEqual(snapshot(db), before);
      const stored = db.prepare("SELECT length(symbol_key) AS s, length(stable_key) AS t FROM symbol_rows LIMIT 1")
        .get();
      assert.deepEqual({ ...stored }, { s: 4, t: 0 }, "handles the view spells keep only what the index holds");
      const words = db.prepare(
        `SELECT s.kind AS kind, s.visibility AS visibility, e.kind AS edge FROM symbol_rows s
         JOIN edge_rows e ON e.file_id = s.file_id WHERE s.name = 'Rate7'`,
      ).get();
      assert.deepEqual({ ...words }, { kind: "0", visibility: "0", edge: "1" }, "function, public, imports as codes");
      const targets = db.prepare("SELECT count(*) AS n, count(DISTINCT name) AS d FROM edge_targets").get();
      assert.equal(targets?.n, targets?.d, "each edge target spelling kept once");
      assert.equal(
        db.prepare("SELECT count(*) AS n FROM edges").get()?.n,
        db.prepare("SELECT count(*) AS n FROM edge_rows").get()?.n,
      );
      const lines = db.prepare("SELECT line_start, line_span FROM symbol_rows WHERE name = 'Rate7'").get();
      assert.deepEqual(
        { ...lines },
        { line_start: 4, line_span: 2 },
        "the last line kept as a distance from the first",
      );
      const shown = locateSymbol(db, { name: "Rate7" }).results[0];
      assert.deepEqual([shown.line_start, shown.line_end], [4, 6]);
      const chunk = db.prepare("SELECT line_start, line_span FROM chunk_rows ORDER BY id LIMIT 1").get();
      assert.deepEqual({ ...chunk }, { line_start: 1, line_span: 2 });
      const text = db.prepare("SELECT signature, doc FROM symbol_rows WHERE name = 'Rate7'").get();
      assert.deepEqual({ ...text }, {
        signature: "func \u0001(limitBucket int) int",
        doc: "\u0001 limits requests of kind 7.",
      });
      const kept = db.prepare(
        "SELECT name, qualifier, qualified_name FROM symbol_rows WHERE name IN ('Rate7', 'Method', 'add') ORDER BY name",
      ).all().map((r) => ({ ...r }));
      assert.deepEqual(kept, [
        { name: "Method", qualifier: "p.T", qualified_name: null },
        { name: "Rate7", qualifier: "p", qualified_name: null },
        { name: "add", qualifier: null, qualified_name: "ns::add" },
      ]);
      assert.deepEqual(
        ["Method", "add"].map((name) => locateSymbol(db, { name }).results[0].qualified_name),
        ["p.T.Method", "ns::add"],
      );
      const handle = locateSymbol(db, { name: "Rate7" }).results[0].symbol_id;
      assert.equal(symbolById(db, handle!)?.name, "Rate7");
      assert.equal(
        symbolById(db, "sym_" + handle!.slice(4).toUpperCase()),
        undefined,
        "only the handle's own spelling",
      );
      const plan = JSON.stringify(
        db.prepare(`EXPLAIN QUERY PLAN SELECT id FROM symbols WHERE ${symbolKeysMatchSql("symbol_key", 1)}`).all(""),
      );
      assert.match(plan, /symbols_sid/);
      const sid = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'symbols_sid'").get();
      assert.match(String(sid?.sql), /substr\(symbol_key, 1, 4\)/, "the handle index holds a prefix of each key");
      const parent = symbolsByName(db, "T")[0];
      assert.deepEqual(childrenOf(db, parent.id).map((s) => s.name), ["F"]);
      const byParent = JSON.stringify(
        db.prepare("EXPLAIN QUERY PLAN SELECT id FROM symbols WHERE parent_id = ?").all(1),
      );
      assert.match(byParent, /symbols_parent/);
      const indexed = db.prepare("SELECT count(*) AS n FROM symbol_rows INDEXED BY symbols_parent WHERE parent_id > 0")
        .get();
      assert.equal(indexed?.n, db.prepare("SELECT count(parent_id) AS n FROM symbol_rows").get()?.n);
      const partial = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'symbols_parent'").get();
      assert.match(String(partial?.sql), /WHERE parent_id IS NOT NULL/, "symbols without a parent are not in it");
      const outside = referencesOf(db, "main", undefined, 10).find((r) => r.line === 4);
      assert.deepEqual([outside?.symbol_id, outside?.stable_id], [null, null]);
    });
  } finally {
    h.close();
  }
});

Deno.test("a store of schema 17 upgrades to handles spelled from each row: the same answers; a row whose handles are not spelled so keeps them", async () => {
  const h = tempHome();
  try {
    const dir = goTree(20);
    Deno.writeTextFileSync(join(dir, "t.go"), "package p\n\ntype T struct{ F int }\n\nfunc (T) Method() {}\n");
    const { project } = await indexDir(h, dir);
    const snapshot = (db: Db) => ({ answers: answers(db), rows: allRows(db) });
    const before = withIndex(h, project.project_id, snapshot);
    const spelled = withIndex(h, project.project_id, (db) => symbolsByName(db, "Rate3")[0]);
    // Rate3's handles as an older build might have made them: not what its row spells.
    const [symbol, stable] = ["0badcafe" + "0".repeat(16), "ab".repeat(16)];
    await downgradeThenSync(
      h,
      project,
      `UPDATE symbol_rows SET symbol_key = unhex('${symbol}'), stable_key = unhex('${stable}') WHERE name = 'Rate3'`,
      17,
    );
    withIndex(h, project.project_id, (db) => {
      const kept = db.prepare(
        `SELECT name, length(symbol_key) AS s, length(stable_key) AS t FROM symbol_rows
         WHERE name IN ('Rate3', 'Rate4', 'Method', 'F') ORDER BY name`,
      ).all().map((r) => ({ ...r }));
      assert.deepEqual(kept, [
        { name: "F", s: 4, t: 0 },
        { name: "Method", s: 4, t: 0 },
        { name: "Rate3", s: 12, t: 16 },
        { name: "Rate4", s: 4, t: 0 },
      ]);
      const rate3 = symbolById(db, `sym_${symbol}`);
      assert.deepEqual([rate3?.name, rate3?.stable_id], ["Rate3", `b3:${stable}`]);
      assert.equal(symbolById(db, spelled.symbol_id), undefined, "the spelled handle is not Rate3's");
      // Every other row and answer as before.
      const now = snapshot(db);
      assert.equal(now.answers, before.answers);
      // (The stored key is a column of the view too: the handle index reads it.)
      const handles = (rows: string) => rows.replace(/,"symbol_key":\{[^}]*\}/g, "");
      const rate3Kept = handles(before.rows).replace(spelled.symbol_id, `sym_${symbol}`)
        .replace(spelled.stable_id, `b3:${stable}`);
      assert.equal(handles(now.rows), rate3Kept);
    });
  } finally {
    h.close();
  }
});

Deno.test("a store of schema 18 upgrades: references name their symbol by its place in the file, edges are indexed by target alone; the same answers", async () => {
  const h = tempHome();
  try {
    const dir = goTree(20);
    Deno.writeTextFileSync(
      join(dir, "t.go"),
      "package p\n\ntype T struct{ F int }\n\nfunc (T) Method() int {\n\treturn Rate1(2)\n}\n",
    );
    const { project } = await indexDir(h, dir);
    const uses = (db: Db) => JSON.stringify(referencesInLines(db, "t.go", 1, 10));
    const snapshot = (db: Db) => ({ answers: answers(db), rows: allRows(db), uses: uses(db) });
    const before = withIndex(h, project.project_id, snapshot);
    await downgradeThenSync(h, project, "", 18);
    withIndex(h, project.project_id, (db) => {
      assert.deepEqual(snapshot(db), before);
      const call = referencesInLines(db, "t.go", 6, 6).find((r) => r.name === "Rate1");
      assert.equal(symbolByRowId(db, call!.source_id!)?.name, "Method", "the call sits in Method");
      const stored = db.prepare(
        `SELECT r.source_id AS place, f.sym_lo AS lo FROM refs r JOIN files f ON f.id = r.file_id
         JOIN ref_names n ON n.id = r.name_id WHERE f.path = 't.go' AND n.name = 'Rate1'`,
      ).get();
      // Method is t.go's third symbol (T, F, Method): its place 2, its row id sym_lo + 2 (row ids start at 1).
      assert.deepEqual([stored?.place, call!.source_id], [2, Number(stored?.lo) + 2]);
      const index = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'edges_target'").get();
      assert.match(String(index?.sql), /edge_rows\(target_id\)$/);
    });
  } finally {
    h.close();
  }
});

/** Every reference row by content (file by path, names spelled), sorted. */
function refRows(db: Db): string[] {
  return (db.prepare(
    `SELECT f.path, r.line, r.col, n.name, r.kind, r.qual_id, r.source_id, r.hint_id FROM refs r
     JOIN files f ON f.id = r.file_id JOIN ref_names n ON n.id = r.name_id`,
  ).all() as Record<string, unknown>[]).map((r) => JSON.stringify(r)).sort();
}

/** Whether every file's listed names are exactly the names of its references. */
function namesListedExactly(db: Db): void {
  const files = db.prepare("SELECT id, path FROM files").all() as { id: number; path: string }[];
  for (const f of files) {
    const held = (db.prepare("SELECT DISTINCT name_id AS n FROM refs WHERE file_id = ? ORDER BY 1").all(f.id) as {
      n: number;
    }[]).map((r) => Number(r.n));
    assert.deepEqual(namesOfFile(db, Number(f.id)), held, f.path);
    const line4 = (db.prepare("SELECT DISTINCT name_id AS n FROM refs WHERE file_id = ? AND line = 4 ORDER BY 1").all(
      f.id,
    ) as { n: number }[]).map((r) => Number(r.n));
    assert.deepEqual(namesOfFile(db, Number(f.id), 4, 4), line4, `${f.path} line 4`);
  }
}

Deno.test("a store of schema 24 upgrades to references in name order: every one kept, each file's names listed, the same answers", async () => {
  const h = tempHome();
  try {
    const dir = goTree(6);
    Deno.writeTextFileSync(
      join(dir, "t.go"),
      "package p\n\nfunc Twice() int {\n\treturn Rate1(2) + Rate1(3) + checkRateLimit1(4)\n}\n",
    );
    const { project } = await indexDir(h, dir);
    const snapshot = (db: Db) => ({
      refs: refRows(db),
      uses: ["t.go", "f1.go"].map((p) => referencesInLines(db, p, 1, 10)),
      locate: answers(db),
    });
    const before = withIndex(h, project.project_id, snapshot);
    assert.equal(before.refs.filter((r) => r.includes('"t.go"')).length, 3, "t.go's three calls");
    assert.ok(before.refs.length > 6, "and every other file's");
    await downgradeThenSync(h, project, "", 24);
    withIndex(h, project.project_id, (db) => {
      assert.deepEqual(snapshot(db), before);
      namesListedExactly(db);
      assert.equal(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'refs_name'").get(), undefined);
      const key = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'refs'").get() as { sql: string };
      assert.match(key.sql, /PRIMARY KEY \(name_id, file_id, line, col\)/);
    });
    // A changed file's occurrences go and come back with it; every other file's stay as they were.
    Deno.writeTextFileSync(join(dir, "t.go"), "package p\n\nfunc Twice() int {\n\treturn Rate2(2)\n}\n");
    const job = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
    assert.equal(job.status, "published");
    withIndex(h, project.project_id, (db) => {
      const orphans = db.prepare("SELECT count(*) AS n FROM refs WHERE file_id NOT IN (SELECT id FROM files)").get();
      assert.equal(orphans?.n, 0, "no occurrence is left of the file's old version");
      const others = (rows: string[]) => rows.filter((r) => !r.includes('"t.go"'));
      assert.deepEqual(others(refRows(db)), others(before.refs));
      assert.deepEqual(
        referencesInLines(db, "t.go", 1, 10).map((r) => `${r.line}:${r.col} ${r.name}`),
        ["4:9 Rate2"],
      );
      namesListedExactly(db);
    });
  } finally {
    h.close();
  }
});

Deno.test("a store of schema 20 upgrades to a name index of name keys: the same answers; names sharing a key are told apart", async () => {
  const h = tempHome();
  try {
    const dir = goTree(4);
    // Two names whose lower cases share a name key.
    const [a, b] = ["Xcmubo", "Yuxduyzvn"];
    assert.equal(nameKey(a.toLowerCase()), nameKey(b.toLowerCase()));
    Deno.writeTextFileSync(join(dir, "c.go"), `package p\n\nfunc ${a}() {}\n\nfunc ${b}() { ${a}() }\n`);
    const { project } = await indexDir(h, dir);
    const snapshot = (db: Db) => ({ answers: answers(db), rows: allRows(db) });
    const before = withIndex(h, project.project_id, snapshot);
    await downgradeThenSync(h, project, "", 20);
    withIndex(h, project.project_id, (db) => {
      assert.deepEqual(snapshot(db), before);
      const index = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'symbols_name'").get();
      assert.match(String(index?.sql), /cruxe_name_key\(coalesce\(name_lower, lower\(name\)\)\)/);
      const key = db.prepare("SELECT typeof(name_key) AS t, name_key AS k FROM symbols WHERE name = ?").get(a);
      assert.deepEqual({ ...key }, { t: "integer", k: nameKey(a.toLowerCase()) }, "four bytes, not a real's eight");
      assert.deepEqual(symbolsByName(db, a.toLowerCase()).map((s) => s.name), [a]);
      assert.deepEqual(locateSymbol(db, { name: b }).results.map((r) => r.name), [b]);
      assert.equal(definitionCount(db, a), 1);
    });
  } finally {
    h.close();
  }
});

Deno.test("a symbol whose signature is cut inside a character keeps its handles whole: the handle shown finds it", async () => {
  const h = tempHome();
  try {
    const dir = Deno.makeTempDirSync({ prefix: "cruxe-cut-" });
    // The signature is cut at 300 UTF-16 units, between the two halves of an emoji: SQLite keeps U+FFFD there.
    Deno.writeTextFileSync(
      join(dir, "m.py"),
      `def cut(a='${"\u{1F600}".repeat(160)}'):\n    pass\n\ndef whole():\n    pass\n`,
    );
    const { project } = await indexDir(h, dir);
    withIndex(h, project.project_id, (db) => {
      const cut = symbolsByName(db, "cut")[0];
      assert.ok(cut.signature.includes("\uFFFD"), "the cut half is stored as U+FFFD");
      assert.equal(symbolById(db, cut.symbol_id)?.name, "cut");
      const whole = symbolsByName(db, "whole")[0];
      assert.equal(symbolById(db, whole.symbol_id)?.name, "whole");
      const kept = db.prepare(
        "SELECT name, length(symbol_key) AS s, length(stable_key) AS t FROM symbol_rows ORDER BY name",
      ).all().map((r) => ({ ...r }));
      assert.deepEqual(kept, [{ name: "cut", s: 12, t: 16 }, { name: "whole", s: 4, t: 0 }]);
    });
  } finally {
    h.close();
  }
});

Deno.test("an edge target is kept once per spelling: case variants stay apart and are both found by their lower case", async () => {
  const h = tempHome();
  try {
    const dir = goTree(4);
    const source = (gap: string) =>
      `package p\n\nfunc A() { Limit(); limit(); Limit() }\n${gap}\nfunc B() { Limit(); Rate1(1) }\n`;
    Deno.writeTextFileSync(join(dir, "u.go"), source(""));
    const { project } = await indexDir(h, dir);
    const uses = (db: Db, name: string) => referencesOf(db, name, undefined, 10).map((r) => `${r.target}@${r.line}`);
    withIndex(h, project.project_id, (db) => {
      assert.deepEqual(uses(db, "Limit"), ["Limit@3", "Limit@5", "limit@3"], "exact spelling first, both found");
      // The calls are kept as references (see call_edges.ts): their names are the references' names.
      const kept = db.prepare("SELECT name FROM ref_names WHERE lower(name) = 'limit' ORDER BY name").all()
        .map((r) => r.name);
      assert.deepEqual(kept, ["Limit", "limit"]);
      const spellings = db.prepare("SELECT count(*) AS n FROM edge_targets").get()?.n;
      assert.equal(spellings, db.prepare("SELECT count(DISTINCT target) AS n FROM edges").get()?.n, "each once");
    });
    // A sync that rewrites one file finds the targets already kept instead of adding them again.
    Deno.writeTextFileSync(join(dir, "u.go"), source("\n"));
    const job = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
    assert.equal(job.status, "published");
    withIndex(h, project.project_id, (db) => {
      assert.deepEqual(uses(db, "limit"), ["limit@3", "Limit@3", "Limit@6"]);
      assert.equal(db.prepare("SELECT count(*) AS n FROM ref_names WHERE name = 'Limit'").get()?.n, 1);
    });
  } finally {
    h.close();
  }
});

Deno.test("handles that share the bytes the handle index holds are told apart by the whole key", async () => {
  const h = tempHome();
  try {
    const { project } = await indexDir(h, goTree(6));
    const store = join(h.registry.projectDir(project.project_id), "index.db");
    const named = ["Rate1", "Rate2", "Rate3"];
    // Three symbols whose keys (kept whole: not the ones the view would spell) begin with the same four bytes
    // (the part the index holds).
    const w = new DatabaseSync(store);
    registerStoreFunctions(w);
    w.exec(`UPDATE symbol_rows AS r SET symbol_key = unhex('0badcafe' || substr(s.symbol_id, 13)) FROM symbols s
      WHERE s.id = r.id AND s.name IN (${named.map((n) => `'${n}'`).join(", ")})`);
    w.close();
    withIndex(h, project.project_id, (db) => {
      const handles = named.map((name) => locateSymbol(db, { name }).results[0].symbol_id!);
      assert.ok(handles.every((x) => x.startsWith("sym_0badcafe")));
      assert.deepEqual(handles.map((x) => symbolById(db, x)?.name), named);
      const map = symbolMapByIds(db, [handles[2], handles[0]]);
      assert.deepEqual([...map.keys()].sort(), [handles[0], handles[2]].sort());
      assert.deepEqual([handles[0], handles[2]].map((x) => map.get(x)?.name), ["Rate1", "Rate3"]);
      assert.equal(symbolById(db, "sym_0badcafe" + "0".repeat(16)), undefined, "a prefix alone finds nothing");
    });
  } finally {
    h.close();
  }
});

Deno.test("a file's rows are found by its id ranges; ranges holding other files' rows still read and delete only its own", async () => {
  const h = tempHome();
  try {
    const dir = goTree(12);
    const { project } = await indexDir(h, dir);
    const store = join(h.registry.projectDir(project.project_id), "index.db");
    const ranges = (db: Db) =>
      db.prepare("SELECT sym_lo, sym_hi, edge_lo, edge_hi, chunk_lo, chunk_hi FROM files WHERE path = 'f3.go'").get();
    const before = withIndex(h, project.project_id, (db) => {
      const r = { ...ranges(db) } as Record<string, number>;
      const own = (t: string) =>
        db.prepare(`SELECT min(id) AS lo, max(id) AS hi, count(*) AS n FROM ${t} WHERE file_id = (SELECT id FROM files
          WHERE path = 'f3.go')`).get() as { lo: number; hi: number; n: number };
      for (const [t, range] of [["symbol_rows", "sym"], ["edge_rows", "edge"], ["chunk_rows", "chunk"]]) {
        const o = own(t);
        assert.deepEqual([r[`${range}_lo`], r[`${range}_hi`]], [o.lo, o.hi], t);
        assert.equal(o.hi - o.lo + 1, o.n, `${t}: a file's rows have consecutive ids`);
      }
      return { rows: allRows(db), answers: answers(db) };
    });
    // A store whose ranges overlap (rows written before ranges were kept): every range spans every row.
    const raw = new DatabaseSync(store);
    raw.exec(`UPDATE files SET sym_lo = 0, sym_hi = 1e9, edge_lo = 0, edge_hi = 1e9, chunk_lo = 0, chunk_hi = 1e9`);
    raw.close();
    withIndex(h, project.project_id, (db) => assert.deepEqual({ rows: allRows(db), answers: answers(db) }, before));
    Deno.writeTextFileSync(join(dir, "f3.go"), "package p\n\nfunc Replaced() int { return 3 }\n");
    assert.equal((await indexDir(h, dir, { mode: "incremental" })).status, "published");
    withIndex(h, project.project_id, (db) => {
      const names = db.prepare("SELECT name FROM symbols WHERE name IN ('Rate3', 'Rate4', 'Replaced') ORDER BY name")
        .all().map((r) => r.name);
      assert.deepEqual(names, ["Rate4", "Replaced"], "the sync deleted only the changed file's rows");
      assert.equal(locateSymbol(db, { name: "Rate5" }).results[0].path, "f5.go");
    });
  } finally {
    h.close();
  }
});

Deno.test("the files table copied by its columns (as sqlite3's .dump writes it) keeps every row with its file", async () => {
  const h = tempHome();
  try {
    const dir = goTree(12);
    const { project } = await indexDir(h, dir);
    // A gap in the file ids: a copy that gives new ids (an implicit rowid is not a column) would close it.
    Deno.removeSync(join(dir, "f3.go"));
    Deno.removeSync(join(dir, "f5.go"));
    assert.equal((await indexDir(h, dir, { mode: "incremental" })).status, "published");
    const before = withIndex(h, project.project_id, allRows);
    const db = new DatabaseSync(join(h.registry.projectDir(project.project_id), "index.db"));
    db.exec(`CREATE TABLE files_copy AS SELECT * FROM files; DELETE FROM files;
      INSERT INTO files SELECT * FROM files_copy; DROP TABLE files_copy;`);
    db.close();
    withIndex(h, project.project_id, (db) => {
      assert.equal(allRows(db), before);
      assert.equal(locateSymbol(db, { name: "Rate11" }).results[0].path, "f11.go");
    });
  } finally {
    h.close();
  }
});

Deno.test("a store of schema 25 upgrades to a mark for a macro's `#define `: the same rows read back, every macro marked", async () => {
  const h = tempHome();
  try {
    const dir = goTree(3);
    Deno.writeTextFileSync(
      join(dir, "limits.h"),
      "#define RATE_MAX 10\n#define define_rate(x) ((x) * 2)\n/* #define in a comment */\n#define CTL_MARK \u0002\n" +
        "int rate_of(int x) { return x; }\n",
    );
    const { project } = await indexDir(h, dir);
    const kept = (db: Db) =>
      Object.fromEntries(
        (db.prepare("SELECT name, signature FROM symbol_rows WHERE file_id = (SELECT id FROM files WHERE path = ?)")
          .all("limits.h") as { name: string; signature: unknown }[]).map((r) => [r.name, r.signature]),
      );
    const snapshot = (db: Db) => ({ answers: answers(db), rows: allRows(db) });
    const before = withIndex(h, project.project_id, (db) => {
      const raw = kept(db);
      assert.equal(raw.RATE_MAX, "\u0002\u0001 10", "a cold load keeps `#define ` and the name as marks");
      assert.ok(raw.CTL_MARK instanceof Uint8Array, "a text holding the mark's character is kept as bytes");
      const shown = db.prepare("SELECT name, signature FROM symbols WHERE path = 'limits.h' ORDER BY line_start").all();
      assert.deepEqual(shown.map((r) => r.signature), [
        "#define RATE_MAX 10",
        "#define define_rate(x) ((x) * 2)",
        "#define CTL_MARK \u0002",
        "int rate_of(int x)",
      ]);
      return { ...snapshot(db), raw };
    });
    await downgradeThenSync(h, project, "", 25);
    withIndex(h, project.project_id, (db) => {
      const { raw, ...same } = before;
      assert.deepEqual(snapshot(db), same);
      assert.deepEqual(kept(db), raw, "the upgrade keeps what a cold load keeps");
    });
  } finally {
    h.close();
  }
});
