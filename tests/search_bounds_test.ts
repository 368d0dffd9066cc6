import assert from "node:assert/strict";
import { join } from "node:path";
import { openDb, transaction } from "../src/state/db.ts";
import { FILL_FILE_RANGES_SQL, migrate, PROJECT_MIGRATIONS } from "../src/state/schema.ts";
import { chunkVocabulary, RANK_SCAN_ROWS } from "../src/state/read/search.ts";
import { searchCode } from "../src/query/search_code.ts";
import { getCodeContext } from "../src/query/code_context.ts";

/** A store whose chunks all say `common`; one in a hundred also says `rare`. */
function commonWordStore(chunks: number) {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-search-bounds-" });
  const db = openDb(join(dir, "index.db"));
  migrate(db, PROJECT_MIGRATIONS);
  const chunk = db.prepare(
    "INSERT INTO chunk_rows(id, file_id, line_start, line_span, symbol_row, content) VALUES (?, ?, 1, 0, NULL, ?)",
  );
  const fts = db.prepare("INSERT INTO chunks_fts(rowid, body, path) VALUES (?, ?, ?)");
  const file = db.prepare(
    "INSERT INTO files(path, hash, size, mtime_ms, language, line_count, symbol_count) VALUES (?, '', 1, 0, 'go', 1, 0)",
  );
  transaction(db, () => {
    for (let i = 1; i <= chunks; i++) {
      const path = `d${i % 50}/f${i}.go`;
      const text = i % 100 === 0 ? `common rare value${i}` : `common value${i}`;
      chunk.run(i, file.run(path).lastInsertRowid, text);
      fts.run(i, text, path);
    }
    db.exec(FILL_FILE_RANGES_SQL);
  });
  return { db, dir };
}

Deno.test("search_code ranks a bounded number of rows: a word found nearly everywhere answers partial, fast", () => {
  const { db, dir } = commonWordStore(RANK_SCAN_ROWS + 500);
  try {
    const t0 = performance.now();
    const wide = searchCode(db, { query: "common", limit: 5 });
    assert.equal(wide.results.length, 5);
    assert.equal(wide.meta?.result_completeness, "partial");
    assert.match(wide.meta?.note ?? "", /narrow/);
    assert.equal(wide.truncated, true);
    // Generous bound: the ranking reads at most RANK_SCAN_ROWS rows, not every match.
    assert.ok(performance.now() - t0 < 20_000);

    // get_code_context, built on the same search, says so too, and stays within its budget.
    const ctx = getCodeContext(db, { query: "common", max_tokens: 500 });
    assert.equal(ctx.meta?.result_completeness, "partial");
    assert.ok(ctx.items.length > 0 && ctx.estimated_tokens <= 500);
    assert.ok(JSON.stringify(ctx).length / 4 <= 500 + 200, "the whole answer, note included, is about the budget");

    // A rarer word ranks every match it has: a complete answer.
    const narrow = searchCode(db, { query: "rare", limit: 5 });
    assert.equal(narrow.meta, undefined);
    assert.ok(narrow.results.length > 0);
    assert.ok(narrow.results.every((r) => /rare/.test(r.snippet ?? "")), JSON.stringify(narrow.results[0]));
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("term counts for the query planner can stop early: a capped count, a prefix sum that stops past its bound", () => {
  const { db, dir } = commonWordStore(2_000);
  try {
    const vocab = chunkVocabulary(db)!;
    assert.equal(vocab.df("common"), 2_000);
    assert.equal(vocab.dfAtMost("common", 150), 150);
    assert.equal(vocab.dfAtMost("common", 150.5), 150, "a fractional bound (a share of the corpus) is floored");
    assert.equal(vocab.dfAtMost("rare", 150), 20);
    // `value1` .. `value2000`: one chunk each.
    assert.equal(vocab.dfPrefix("value"), 2_000);
    assert.equal(vocab.dfPrefix("value", 50), 51);
    assert.equal(vocab.dfPrefix("value", 5_000), 2_000);
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
