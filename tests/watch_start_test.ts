/**
 * Starting a watch on a large tree: the walk that lists the directories to
 * watch is asynchronous, so the process goes on with other work while it
 * runs, and its answer is the synchronous walk's. The ignore rules it
 * applies per directory are kept between paths and dropped when an ignore
 * file changes. Every wait ends on what it waits for (no timing bounds).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { TreeWatcher, type WatchBatch } from "../src/index/watcher.ts";
import { watchDirectories, watchDirectoriesAsync } from "../src/index/watch_dirs.ts";
import { WatchFilter } from "../src/index/watch_filter.ts";
import { waitFor } from "./mcp_helpers.ts";

const FAST = { quietMs: 50, maxMs: 500 };

/** A tree with ignored and kept directories, a nested `.gitignore`, a `.git` with a branch namespace. */
function tree(): string {
  const root = Deno.makeTempDirSync({ prefix: "cruxe-watch-start-" });
  for (const d of ["src/a/b", "src/gen/deep", "build/out", "node_modules/x", "docs", ".git/refs/heads/feature"]) {
    Deno.mkdirSync(join(root, d), { recursive: true });
  }
  Deno.writeTextFileSync(join(root, ".gitignore"), "build/\n");
  Deno.writeTextFileSync(join(root, "src/.gitignore"), "gen/\n");
  Deno.writeTextFileSync(join(root, ".git/HEAD"), "ref: refs/heads/main\n");
  return root;
}

Deno.test("the asynchronous walk for a watch finds what the synchronous one finds", async () => {
  const root = tree();
  try {
    const sync = watchDirectories(root, new WatchFilter(root)).dirs.sort();
    const async = (await watchDirectoriesAsync(root, new WatchFilter(root))).dirs.sort();
    assert.deepEqual(async, sync);
    assert.deepEqual(sync, [
      "",
      ".git",
      ".git/refs/heads",
      ".git/refs/heads/feature",
      "docs",
      "src",
      "src/a",
      "src/a/b",
    ]);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("a watch whose walk is still listing lets other work run, then reports events", async () => {
  const root = tree();
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  let listed = 0;
  // Each listing waits for the gate: the start cannot finish before the test lets it.
  const readDir = async (abs: string) => {
    listed++;
    await gate;
    return Array.fromAsync(Deno.readDir(abs));
  };
  const changes: string[] = [];
  const hooks = {
    onChange: (rel: string) => void changes.push(rel),
    onIgnored: () => {},
    onBatch: (_: WatchBatch) => {},
    onError: (e: Error) => {
      throw e;
    },
  };
  let started = false;
  const starting = TreeWatcher.start(root, hooks, FAST, readDir).then((w) => {
    started = true;
    return w;
  });
  // Timers and other promises run while the walk waits on its listing.
  let ticks = 0;
  await new Promise<void>((r) => setTimeout(() => (ticks++, r()), 0));
  await new Promise<void>((r) => setTimeout(() => (ticks++, r()), 0));
  assert.equal(ticks, 2);
  assert.equal(started, false, "the watch is not up before its walk ends");
  assert.equal(listed, 1, "the walk waits on its first listing");
  release();
  const w = await starting;
  try {
    Deno.writeTextFileSync(join(root, "src/a/b/x.go"), "package b\n");
    Deno.writeTextFileSync(join(root, "src/gen/deep/y.go"), "package deep\n");
    await waitFor(() => changes.includes("src/a/b/x.go"), 30_000, "the event in a directory the walk found");
    assert.ok(!changes.some((c) => c.startsWith("src/gen")), "nothing from the ignored directory");
  } finally {
    w.close();
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("the watch filter's kept rules follow a changed .gitignore, at the root and below", () => {
  const root = tree();
  try {
    const f = new WatchFilter(root);
    assert.equal(f.classify("docs/guide", true), "change");
    assert.equal(f.classify("src/gen/deep/y.go"), "ignored");
    assert.equal(f.classify("build/out/z.go"), "ignored");
    // The root's rules now also ignore docs/; src's no longer ignore gen/.
    Deno.writeTextFileSync(join(root, ".gitignore"), "build/\ndocs/\n");
    assert.equal(f.classify(".gitignore"), "rules");
    assert.equal(f.classify("docs/guide", true), "ignored");
    Deno.writeTextFileSync(join(root, "src/.gitignore"), "");
    assert.equal(f.classify("src/.gitignore"), "rules");
    assert.equal(f.classify("src/gen/deep/y.go"), "change");
    // `.git/info/exclude` is read again too.
    Deno.mkdirSync(join(root, ".git/info"), { recursive: true });
    Deno.writeTextFileSync(join(root, ".git/info/exclude"), "src/a/\n");
    assert.equal(f.classify(".git/info/exclude"), "rules");
    assert.equal(f.classify("src/a/b/x.go"), "ignored");
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
