import assert from "node:assert/strict";
import { IndexWriter } from "../src/state/project_index.ts";

/** The writer's page cache in KiB (SQLite reports a KiB size as a negative number). */
function cacheKiB(w: IndexWriter): number {
  return -Number((w.db.prepare("PRAGMA cache_size").get() as { cache_size: number }).cache_size);
}

Deno.test("a bulk load inserts rows with half the writer's page cache and has it back for the merges", () => {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-bulk-cache-" });
  const w = IndexWriter.open(dir, false);
  try {
    const normal = cacheKiB(w);
    assert.ok(normal >= 32_768, `writer cache ${normal} KiB`);
    w.begin();
    w.beginBulkLoad();
    assert.ok(cacheKiB(w) <= normal / 2, `cache during the row inserts: ${cacheKiB(w)} KiB`);
    w.endBulkLoad();
    assert.equal(cacheKiB(w), normal, "merges and index builds get the whole cache");
    w.rollback();
  } finally {
    w.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
