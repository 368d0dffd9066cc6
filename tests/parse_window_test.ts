import assert from "node:assert/strict";
import { join } from "node:path";
import { runIndex } from "../src/index/indexer.ts";
import { type ParserEndpoint, RECYCLE_AFTER_BYTES } from "../src/index/worker_pool.ts";
import { buildFileRows } from "../src/state/file_rows.ts";

Deno.test("at most one large file is parsed at a time; small files go ahead meanwhile", async () => {
  const root = Deno.makeTempDirSync({ prefix: "cruxe-window-" });
  const projectDir = Deno.makeTempDirSync({ prefix: "cruxe-window-store-" });
  const big = "x".repeat(RECYCLE_AFTER_BYTES + 1024) + "\n";
  for (let i = 0; i < 3; i++) Deno.writeTextFileSync(join(root, `big${i}.go`), big);
  for (let i = 0; i < 12; i++) Deno.writeTextFileSync(join(root, `small${i}.go`), `note ${i}\n`);

  let large = 0;
  let maxLarge = 0;
  let smallDuringLarge = 0;
  // A parser that answers after a delay, counting how many large files it holds at once.
  const spawnParser = (): Promise<ParserEndpoint> => {
    const ep: ParserEndpoint = {
      post: (t) => {
        const isLarge = t.facts.size > RECYCLE_AFTER_BYTES;
        if (isLarge) maxLarge = Math.max(maxLarge, ++large);
        else if (large > 0) smallDuringLarge++;
        setTimeout(() => {
          if (isLarge) large--;
          ep.onResult({ id: t.id, rows: buildFileRows({ ...t.facts, lineCount: 1 }, [], [], []), problem: null });
        }, isLarge ? 30 : 5);
      },
      onResult: () => {},
      onCrash: () => {},
      close: () => {},
    };
    return Promise.resolve(ep);
  };
  const summary = await runIndex({
    root,
    projectDir,
    ref: "live",
    vcsMode: "plain",
    force: false,
    maxFileBytes: 16 * 1024 * 1024,
    workers: 4,
    workerRecycleFiles: 1000,
    spawnParser,
  }, () => {});
  assert.equal(summary.filesIndexed, 15);
  assert.equal(maxLarge, 1);
  assert.ok(smallDuringLarge > 0, "small files wait for nothing");
});
