/**
 * Equal-score results come out in the same order whatever the index's row
 * ids (which follow the order files were written, and so the order parse
 * workers finish): ties are broken by path, then line.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { searchCode } from "../src/query/search_code.ts";
import { chunksRanked, filesRanked, symbolsRanked } from "../src/state/read/search.ts";

const BODY = `def tally_widgets(items):
    """Tally the widgets in a crate."""
    total = 0
    for widget in items:
        total += widget.weight
    return total
`;
const FILES = ["pkg/a.py", "pkg/b.py", "pkg/c.py"];

/** What the searches return, reduced to where each result points. */
function answers(db: Parameters<typeof searchCode>[0]) {
  const places = (q: string) => searchCode(db, { query: q }).results.map((r) => `${r.path}:${r.line_start}`);
  return {
    prose: places("how are widgets tallied in a crate"),
    symbol: places("tally_widgets"),
    chunkCut: chunksRanked(db, "widget", {}, 2).map((r) => r.path),
    symbolCut: symbolsRanked(db, "tally_widgets", {}, 1).map((r) => r.path),
    fileCut: filesRanked(db, "tally_widgets", {}, 2).map((r) => r.path),
  };
}

Deno.test("equal-score results are ordered by path and line, not by row id", async () => {
  const h = tempHome();
  const readers = new IndexReaders(h.registry);
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-ties-" });
  try {
    Deno.mkdirSync(join(dir, "pkg"));
    for (const f of FILES) Deno.writeTextFileSync(join(dir, f), BODY);
    const first = await indexDir(h, dir);
    assert.equal(first.status, "published");
    // A rewritten file's rows get the newest ids: rewriting the identical files one by one, in a chosen order,
    // sets their row-id order (each rewrite adds the same comment, so the files stay identical).
    const rewriteInOrder = async (order: string[], mark: string) => {
      for (const f of order) {
        Deno.writeTextFileSync(join(dir, f), BODY + mark);
        assert.equal((await indexDir(h, dir, { mode: "incremental" })).status, "published");
      }
      readers.invalidate(first.project.project_id);
      return answers(requireIndex(readers.view(first.project)));
    };
    const forward = await rewriteInOrder(FILES, "# one\n");
    const backward = await rewriteInOrder([...FILES].reverse(), "# two\n");
    assert.deepEqual(backward, forward);
    // The tied files come in path order, and a cut through the tie keeps the first paths.
    assert.deepEqual(forward.chunkCut, ["pkg/a.py", "pkg/b.py"]);
    assert.deepEqual(forward.symbolCut, ["pkg/a.py"]);
    assert.deepEqual(forward.fileCut, ["pkg/a.py", "pkg/b.py"]);
    const tied = forward.symbol.filter((p) => p.endsWith(":1")).map((p) => p.split(":")[0]);
    assert.deepEqual(tied, [...tied].sort());
    assert.ok(tied.length >= 2, `expected tied definitions, got ${forward.symbol.join(", ")}`);
    assert.deepEqual(forward.prose.map((p) => p.split(":")[0]), [...FILES]);
  } finally {
    readers.closeAll();
    h.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
