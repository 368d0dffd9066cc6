import assert from "node:assert/strict";
import { join } from "node:path";
import { type IndexOptions, runIndex } from "../src/index/indexer.ts";
import { type ParserEndpoint, RECYCLE_AFTER_BYTES, WorkerPool } from "../src/index/worker_pool.ts";
import { buildFileRows } from "../src/state/file_rows.ts";

/** A plain working-tree index run of `root` into `projectDir`, parsing with `spawnParser`. */
function indexOptions(
  root: string,
  projectDir: string,
  spawnParser: () => Promise<ParserEndpoint>,
  more: Partial<IndexOptions>,
): IndexOptions {
  return {
    root,
    projectDir,
    ref: "live",
    vcsMode: "plain",
    force: false,
    maxFileBytes: 16 * 1024 * 1024,
    workers: 1,
    workerRecycleFiles: 1000,
    spawnParser,
    ...more,
  };
}

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
  const summary = await runIndex(indexOptions(root, projectDir, spawnParser, { workers: 4 }), () => {});
  assert.equal(summary.filesIndexed, 15);
  assert.equal(maxLarge, 1);
  assert.ok(smallDuringLarge > 0, "small files wait for nothing");
});

Deno.test("the parse workers go once every file is parsed, before the writer's merges and index builds", async () => {
  const root = Deno.makeTempDirSync({ prefix: "cruxe-window-" });
  for (let i = 0; i < 12; i++) Deno.writeTextFileSync(join(root, `f${i}.go`), `package p\n\nfunc F${i}() {}\n`);
  let open = 0;
  const spawnParser = (): Promise<ParserEndpoint> => {
    open++;
    let closed = false;
    const ep: ParserEndpoint = {
      post: (t) =>
        setTimeout(
          () => ep.onResult({ id: t.id, rows: buildFileRows({ ...t.facts, lineCount: 3 }, [], [], []), problem: null }),
          2,
        ),
      onResult: () => {},
      onCrash: () => {},
      close: () => {
        if (!closed) open--;
        closed = true;
      },
    };
    return Promise.resolve(ep);
  };
  const run = async (pool?: WorkerPool) => {
    let openAtPublish = -1;
    const projectDir = Deno.makeTempDirSync({ prefix: "cruxe-window-store-" });
    await runIndex(indexOptions(root, projectDir, spawnParser, { workers: 3, pool }), () => {}, {
      beforePublish: () => openAtPublish = open,
    });
    return openAtPublish;
  };
  assert.equal(await run(), 0, "a run's own parsers are all closed before it publishes");
  const kept = new WorkerPool(1, 1000, spawnParser);
  try {
    assert.equal(await run(kept), 1, "a pool the caller keeps keeps one warm parser");
  } finally {
    kept.close();
  }
  assert.equal(open, 0);
});
