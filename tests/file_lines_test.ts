import assert from "node:assert/strict";
import { join } from "node:path";
import { openDb, transaction } from "../src/state/db.ts";
import { FILL_FILE_RANGES_SQL, migrate, PROJECT_MIGRATIONS } from "../src/state/schema.ts";
import { chunkFile } from "../src/index/chunker.ts";
import { MAX_CHUNK_LINES } from "../src/state/file_rows.ts";
import { fileLines } from "../src/query/_file_lines.ts";
import { chunkAt } from "../src/state/read/chunks.ts";

Deno.test("lines of a large file come back whole from a bounded range of its chunks", () => {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-file-lines-" });
  const db = openDb(join(dir, "index.db"));
  try {
    migrate(db, PROJECT_MIGRATIONS);
    const lines = Array.from({ length: 3_000 }, (_, i) => `line ${i + 1}`);
    // A 700-line function (cut into windows of MAX_CHUNK_LINES) between stretches of top-level code.
    const chunks = chunkFile(lines.join("\n"), [{
      name: "big",
      kind: "function",
      qualifiedName: "big",
      signature: "big()",
      lineStart: 1_001,
      lineEnd: 1_700,
      parent: null,
      visibility: null,
      doc: null,
    }]);
    assert.ok(chunks.every((c) => c.lineEnd - c.lineStart + 1 <= MAX_CHUNK_LINES));
    const ins = db.prepare(
      "INSERT INTO chunk_rows(file_id, line_start, line_span, symbol_row, content) VALUES (?, ?, ?, ?, ?)",
    );
    transaction(db, () => {
      const file = db.prepare(
        "INSERT INTO files(path, hash, size, mtime_ms, language, line_count, symbol_count) VALUES ('a.c', '', 1, 0, 'c', 3000, 0)",
      ).run().lastInsertRowid;
      for (const c of chunks) ins.run(file, c.lineStart, c.lineEnd - c.lineStart, c.symbol, c.content);
      db.exec(FILL_FILE_RANGES_SQL);
    });
    for (const [from, to] of [[1, 1], [1_000, 1_003], [1_119, 1_122], [1_500, 1_900], [2_999, 3_000], [1_700, 1_700]]) {
      assert.deepEqual(fileLines(db, "a.c", from, to), lines.slice(from - 1, to), `${from}..${to}`);
    }
    for (const line of [1, 1_001, 1_120, 1_121, 1_700, 1_701, 3_000]) {
      assert.ok(chunkAt(db, "a.c", line, null)?.content.split("\n").includes(`line ${line}`), `line ${line}`);
    }
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
