import assert from "node:assert/strict";
import { stageMessage, stagePercent } from "./progress.ts";

Deno.test("each stage reports inside its own band, monotonic in the work done", () => {
  assert.equal(stagePercent("discovery", 0, 10), 0);
  assert.equal(stagePercent("discovery", 10, 10), 10);
  assert.equal(stagePercent("parsing", 5, 10), 40);
  assert.equal(stagePercent("indexing", 10, 10), 95);
  assert.equal(stagePercent("finalizing", 1, 1), 99);
  assert.equal(stagePercent("done", 0, 0), 100);
  assert.equal(stagePercent("parsing", 20, 10), 70, "never past the band");
  let last = -1;
  for (let i = 0; i <= 10; i++) {
    const p = stagePercent("parsing", i, 10);
    assert.ok(p >= last);
    last = p;
  }
});

Deno.test("stage messages say what is counted", () => {
  const e = { filesScanned: 12, filesIndexed: 3, filesTotal: 4, symbols: 7 };
  assert.equal(stageMessage("discovery", e), "Scanning files: 12 discovered");
  assert.equal(stageMessage("parsing", e), "Parsing files: 3/4 (75%)");
  assert.equal(stageMessage("indexing", e), "Indexing: 3/4 files, 7 symbols");
});
