/**
 * What the file watch covers: the directories the scan visits and nothing
 * else. A symlink present at start (to a large tree outside the repository)
 * is never watched through; directories that appear later are; an
 * unreadable directory is left out and named while the rest keeps its
 * events. Every wait ends on the event it waits for.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { TreeWatcher, type WatchBatch } from "../src/index/watcher.ts";
import { REPO_ROOT, waitFor } from "./mcp_helpers.ts";

const BOUND = 30_000;
const FAST = { quietMs: 50, maxMs: 500 };

/** inotify watches this process holds (Linux; -1 where `/proc` cannot tell), read by a child (Deno bars `/proc`). */
function inotifyWatches(): number {
  if (Deno.build.os !== "linux") return -1;
  const out = new Deno.Command("sh", {
    args: ["-c", `cat /proc/${Deno.pid}/fdinfo/* 2>/dev/null | grep -c '^inotify wd:'`],
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  const n = Number(new TextDecoder().decode(out.stdout).trim());
  return Number.isInteger(n) ? n : -1;
}

function recorder() {
  const changes: string[] = [];
  const batches: WatchBatch[] = [];
  const errors: Error[] = [];
  const hooks = {
    onChange: (rel: string) => void changes.push(rel),
    onIgnored: () => {},
    onBatch: (b: WatchBatch) => void batches.push(b),
    onError: (e: Error) => void errors.push(e),
  };
  return { changes, batches, errors, hooks };
}

Deno.test("the watch never goes through a symlink present at start; it covers only the scanned directories", async () => {
  const outside = Deno.makeTempDirSync({ prefix: "cruxe-watch-outside-" });
  for (let i = 0; i < 60; i++) Deno.mkdirSync(join(outside, `d${i}`, "inner"), { recursive: true });
  const repo = Deno.makeTempDirSync({ prefix: "cruxe-watch-links-" });
  Deno.mkdirSync(join(repo, "src", "pkg"), { recursive: true });
  Deno.mkdirSync(join(repo, "node_modules", "dep"), { recursive: true });
  Deno.symlinkSync(outside, join(repo, "linked"));
  Deno.symlinkSync(outside, join(repo, "src", "deeper-link"));
  const before = inotifyWatches();
  const r = recorder();
  const w = new TreeWatcher(repo, r.hooks, FAST);
  try {
    if (before >= 0) {
      // The root, src and src/pkg: not node_modules (skipped by the scan), nothing through the links.
      assert.equal(inotifyWatches() - before, 3, "watches held");
    }
    Deno.writeTextFileSync(join(outside, "d7", "inner", "far.go"), "package far\n");
    Deno.writeTextFileSync(join(repo, "src", "pkg", "near.go"), "package pkg\n");
    await waitFor(() => r.changes.includes("src/pkg/near.go"), BOUND, "the event inside the repository");
    assert.deepEqual(r.changes.filter((c) => c.startsWith("linked") || c.includes("deeper-link/")), []);
    assert.deepEqual(r.errors, []);
  } finally {
    w.close();
  }
});

Deno.test("directories created after the watch started are watched, below them too", async () => {
  const repo = Deno.makeTempDirSync({ prefix: "cruxe-watch-newdirs-" });
  const r = recorder();
  const w = new TreeWatcher(repo, r.hooks, FAST);
  try {
    Deno.mkdirSync(join(repo, "fresh", "a", "b"), { recursive: true });
    await waitFor(() => r.batches.some((b) => b.directory), BOUND, "the batch saying a directory appeared");
    Deno.writeTextFileSync(join(repo, "fresh", "a", "b", "x.go"), "package b\n");
    await waitFor(() => r.changes.includes("fresh/a/b/x.go"), BOUND, "the event two levels into the new directory");
    // A directory replaced by a link to the outside is not watched through.
    const outside = Deno.makeTempDirSync({ prefix: "cruxe-watch-swap-" });
    Deno.removeSync(join(repo, "fresh"), { recursive: true });
    Deno.symlinkSync(outside, join(repo, "fresh"));
    const seen = r.batches.length;
    await waitFor(() => r.batches.length > seen, BOUND, "the batch of the swap");
    Deno.writeTextFileSync(join(outside, "y.go"), "package y\n");
    Deno.writeTextFileSync(join(repo, "z.go"), "package z\n");
    await waitFor(() => r.changes.includes("z.go"), BOUND, "the later event inside");
    assert.ok(!r.changes.includes("fresh/y.go"), "nothing through the swapped-in link");
    assert.deepEqual(r.errors, []);
  } finally {
    w.close();
  }
});

/** Runs `cmd` without the capabilities that let root read any directory (plain user: as is). */
function withoutReadOverride(cmd: string[]): string[] {
  if (Deno.uid() !== 0) return cmd;
  return ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search", "--", ...cmd];
}

function hasSetpriv(): boolean {
  try {
    return new Deno.Command("setpriv", { args: ["--help"], stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

Deno.test({
  name: "an unreadable directory is left out of the watch and named; the rest keeps its events",
  ignore: Deno.build.os !== "linux" || (Deno.uid() === 0 && !hasSetpriv()),
  fn: async () => {
    const repo = Deno.makeTempDirSync({ prefix: "cruxe-watch-locked-" });
    Deno.mkdirSync(join(repo, "locked", "inner"), { recursive: true });
    Deno.mkdirSync(join(repo, "open"));
    Deno.chmodSync(join(repo, "locked"), 0o000);
    const script = `
      import { TreeWatcher } from ${JSON.stringify(join(REPO_ROOT, "src/index/watcher.ts"))};
      const say = (o) => console.log(JSON.stringify(o));
      try {
        const w = new TreeWatcher(${JSON.stringify(repo)}, {
          onChange: (rel) => say({ change: rel }),
          onIgnored: () => {},
          onBatch: () => {},
          onError: (e) => say({ error: e.message }),
        }, { quietMs: 50, maxMs: 500 });
        say({ started: true, unreadable: [...w.unreadable.keys()] });
      } catch (e) {
        say({ error: e.message });
      }`;
    const [bin, ...args] = withoutReadOverride([Deno.execPath(), "eval", "--no-check", script]);
    const child = new Deno.Command(bin, { args, cwd: REPO_ROOT, stdout: "piped", stderr: "piped" }).spawn();
    const lines: Record<string, unknown>[] = [];
    let err = "";
    const reading = (async () => {
      let buf = "";
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        buf += chunk;
        for (let nl; (nl = buf.indexOf("\n")) >= 0; buf = buf.slice(nl + 1)) lines.push(JSON.parse(buf.slice(0, nl)));
      }
    })();
    const readingErr = (async () => {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) err += chunk;
    })();
    try {
      await waitFor(() => lines.some((l) => l.started || l.error), BOUND, "the watcher to start");
      const started = lines.find((l) => l.started);
      assert.ok(started, `the watch starts: ${JSON.stringify(lines)} ${err}`);
      assert.deepEqual(started.unreadable, ["locked"]);
      Deno.writeTextFileSync(join(repo, "open", "a.go"), "package open\n");
      await waitFor(() => lines.some((l) => l.change === "open/a.go"), BOUND, "an event beside the unreadable dir");
      assert.match(err, /not watching .*locked/);
      assert.ok(!lines.some((l) => l.error), JSON.stringify(lines));
    } finally {
      child.kill("SIGKILL");
      await child.status;
      await reading;
      await readingErr;
      Deno.chmodSync(join(repo, "locked"), 0o755);
    }
  },
});
