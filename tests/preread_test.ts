import assert from "node:assert/strict";
import { join } from "node:path";
import { indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { openDb } from "../src/state/db.ts";
import { prereadRowSizes } from "../src/state/read/preread.ts";

Deno.test("the row-size pre-read reads every row of the three tables in slices, yielding between them, and stops when told", async () => {
  const h = tempHome();
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-preread-" });
  try {
    // Past 20,000 chunks: the chunk table takes more than one slice.
    for (let f = 0; f < 30; f++) {
      const funcs = Array.from({ length: 800 }, (_, i) => `func F${f}_${i}() int { return ${i} }\n`).join("\n");
      Deno.writeTextFileSync(join(dir, `f${f}.go`), `package p\n\n${funcs}`);
    }
    const { project, status } = await indexDir(h, dir);
    assert.equal(status, "published");
    const db = openDb(join(h.registry.projectDir(project.project_id), "index.db"), { readOnly: true });
    try {
      const rows = (t: string) => Number((db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n);
      const tables = ["chunks_fts_docsize", "symbols_fts_docsize", "files_fts_docsize"];
      assert.ok(rows("chunks_fts_docsize") > 20_000, `${rows("chunks_fts_docsize")} chunks`);
      let pauses = 0;
      const read = await prereadRowSizes(db, () => (pauses++, Promise.resolve()));
      assert.deepEqual(read, Object.fromEntries(tables.map((t) => [t, rows(t)])));
      // One pause per slice: at least two for the chunk sizes, one for each other table.
      assert.ok(pauses >= 4, `${pauses} pauses`);

      let slices = 0;
      const cut = await prereadRowSizes(db, () => (slices++, Promise.resolve()), () => slices >= 1);
      assert.deepEqual(Object.keys(cut), ["chunks_fts_docsize"]);
      assert.ok(cut.chunks_fts_docsize < rows("chunks_fts_docsize"));
    } finally {
      db.close();
    }
  } finally {
    h.close();
  }
});
