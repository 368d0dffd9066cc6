/**
 * The live index, end to end: real edits in temporary repositories while a
 * real `serve-mcp` (stdio, the SDK's Client) runs, and the answers that
 * follow. Create, modify, delete, rename, a new directory, ignored paths (no
 * sync), a branch switch (one sync, the ref label follows), forced polling,
 * `--no-watch`, a config that turns one workspace off, and a restart that
 * finds what changed while the server was down. Every wait is bounded and
 * ends on the event it waits for.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Client, Client as McpClient } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { bodyOf, CRUXE_FLAGS, REPO_ROOT, stdioClient, syntheticGoRepo, tempHomeDir, waitFor } from "./mcp_helpers.ts";
import { resolveConfig } from "../src/core/config.ts";
import { Registry } from "../src/state/registry.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { ServerRuntime } from "../src/service/runtime.ts";
import { JobRunner } from "../src/index/job_runner.ts";
import { Dispatcher } from "../src/service/dispatch.ts";
import { WatchFilter } from "../src/index/watch_filter.ts";
import { WATCH_DEFERRED } from "../src/index/live_indexer.ts";
import { liveInProcess } from "./helpers/live_in_process.ts";
import {
  Debouncer,
  diffListings,
  listingOf,
  listingOfManifest,
  TreeWatcher,
  type WatchBatch,
} from "../src/index/watcher.ts";

type Body = Record<string, unknown>;
type Meta = { freshness_status: string; ref: string; pending_changes?: { count: number; paths: string[] } };

const BOUND = 30_000;

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Body> {
  const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
  return bodyOf(r);
}

function meta(b: Body): Meta {
  return b.metadata as Meta;
}

/**
 * The files a `locate_symbol` answer names an exact definition of `name` in:
 * empty only when the answer says there is none (`symbol_not_found` or no
 * result), never because the call failed otherwise.
 */
function exactPaths(b: Body, name: string): string[] {
  if (b.error) {
    assert.equal((b.error as { code: string }).code, "symbol_not_found", JSON.stringify(b.error));
    return [];
  }
  assert.ok(Array.isArray(b.results), JSON.stringify(b).slice(0, 300));
  return (b.results as { name: string; path: string; match_tier: string }[])
    .filter((r) => r.name === name && r.match_tier === "exact").map((r) => r.path);
}

/** The files `locate_symbol` finds an exact definition of `name` in (empty when none; see `exactPaths`). */
async function definedIn(client: Client, name: string): Promise<{ paths: string[]; meta: Meta }> {
  const b = await call(client, "locate_symbol", { name });
  return { paths: exactPaths(b, name), meta: meta(b) };
}

/** The paths of a search_code answer's results; the answer must not be an error. */
function searchPaths(b: Body): string[] {
  assert.equal(b.error, undefined, JSON.stringify(b.error));
  assert.ok(Array.isArray(b.results), JSON.stringify(b).slice(0, 300));
  return (b.results as { path: string }[]).map((r) => r.path);
}

/**
 * Waits until `name` is defined exactly in `paths`, checking on every answer
 * the read-your-writes rule: an answer that is still wrong never says `fresh`
 * once the server has said it knows of a change.
 */
async function waitDefined(client: Client, name: string, paths: string[], what: string): Promise<void> {
  let knew = false;
  await waitFor(
    async () => {
      const r = await definedIn(client, name);
      const right = JSON.stringify(r.paths.sort()) === JSON.stringify([...paths].sort());
      if (r.meta.freshness_status === "syncing") knew = true;
      if (!right && knew) {
        assert.notEqual(
          r.meta.freshness_status,
          "fresh",
          `${what}: a wrong answer said fresh after a change was known`,
        );
      }
      return right;
    },
    BOUND,
    what,
  );
}

async function status(client: Client): Promise<Body> {
  return await call(client, "index_status");
}

async function watchOf(client: Client): Promise<Record<string, unknown>> {
  return (await status(client)).watch as Record<string, unknown>;
}

/** Waits until the watch is up: its walk (which starts after the server's first answer) is done. */
async function watchUp(client: Client): Promise<Record<string, unknown>> {
  let w: Record<string, unknown> = {};
  await waitFor(
    async () => !String((w = await watchOf(client)).reason ?? "").startsWith("starting"),
    BOUND,
    "the watch",
  );
  return w;
}

function jobCount(st: Body): number {
  return (st.recent_jobs as unknown[]).length;
}

function git(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", {
    args: ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false", ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** A served, indexed repository. */
async function serve(home: string, repo: string, extra: string[] = [], env: Record<string, string> = {}) {
  for (const [k, v] of Object.entries(env)) Deno.env.set(k, v);
  const s = await stdioClient(home, ["--workspace", repo, "--no-prewarm", ...extra]);
  for (const k of Object.keys(env)) Deno.env.delete(k);
  return s;
}

async function indexed(client: Client): Promise<void> {
  const b = await call(client, "index_repo", { wait: true });
  assert.equal(b.status, "published", JSON.stringify(b));
}

Deno.test("live index (events): create, modify, delete, rename, new directory, ignored paths", async () => {
  const home = tempHomeDir();
  const repo = syntheticGoRepo(6, 2);
  Deno.writeTextFileSync(join(repo, ".gitignore"), "generated/\n");
  const s = await serve(home, repo);
  try {
    await indexed(s.client);
    const w = await watchOf(s.client);
    assert.equal(w.mode, "events", JSON.stringify(w));

    // create
    Deno.writeTextFileSync(join(repo, "pkg0", "fresh.go"), "package pkg0\n\nfunc LiveCreated() int { return 1 }\n");
    await waitDefined(s.client, "LiveCreated", ["pkg0/fresh.go"], "a created file's function");

    // modify: a function renamed inside a file
    Deno.writeTextFileSync(join(repo, "pkg0", "fresh.go"), "package pkg0\n\nfunc LiveRenamed() int { return 2 }\n");
    await waitDefined(s.client, "LiveRenamed", ["pkg0/fresh.go"], "a modified file's new function");
    assert.deepEqual((await definedIn(s.client, "LiveCreated")).paths, [], "the old name is gone");

    // rename the file
    Deno.renameSync(join(repo, "pkg0", "fresh.go"), join(repo, "pkg0", "moved.go"));
    await waitDefined(s.client, "LiveRenamed", ["pkg0/moved.go"], "a renamed file");
    // The query that must stop finding it finds it now.
    assert.ok(searchPaths(await call(s.client, "search_code", { query: "LiveRenamed" })).includes("pkg0/moved.go"));

    // delete
    Deno.removeSync(join(repo, "pkg0", "moved.go"));
    await waitDefined(s.client, "LiveRenamed", [], "a deleted file's function");
    assert.ok(
      !searchPaths(await call(s.client, "search_code", { query: "LiveRenamed" })).includes("pkg0/moved.go"),
      "search_code no longer answers from the deleted file",
    );

    // a new directory, created with a file in one go
    Deno.mkdirSync(join(repo, "newdir", "deeper"), { recursive: true });
    Deno.writeTextFileSync(join(repo, "newdir", "deeper", "x.go"), "package deeper\n\nfunc InNewDir() {}\n");
    await waitDefined(s.client, "InNewDir", ["newdir/deeper/x.go"], "a file in a new directory");

    // ignored paths: events are seen and dropped, no sync starts (first let the syncs above settle)
    let before: Body = {};
    await waitFor(
      async () => {
        before = await status(s.client);
        return before.active_job === null && (before.watch as { pending_changes: number }).pending_changes === 0;
      },
      BOUND,
      "the syncs above to settle",
    );
    const newestJob = (st: Body) => (st.recent_jobs as { job_id: string }[])[0]?.job_id;
    const ignoredBefore = (before.watch as { events_ignored: number }).events_ignored;
    Deno.mkdirSync(join(repo, "node_modules", "dep"), { recursive: true });
    Deno.writeTextFileSync(join(repo, "node_modules", "dep", "i.go"), "package dep\n\nfunc Vendored() {}\n");
    Deno.mkdirSync(join(repo, "generated"), { recursive: true });
    Deno.writeTextFileSync(join(repo, "generated", "g.go"), "package generated\n\nfunc Generated() {}\n");
    await waitFor(
      // At least the two directories created in the watched root; events for files written at once inside a
      // brand-new directory can arrive before the recursive watch covers it, so they are not counted on.
      async () => ((await watchOf(s.client)).events_ignored as number) >= ignoredBefore + 2,
      BOUND,
      "the ignored events to be seen",
    );
    const after = await status(s.client);
    assert.equal(newestJob(after), newestJob(before), "no sync ran for ignored paths");
    assert.equal(jobCount(after), jobCount(before));
    assert.equal(after.active_job, null);
    assert.equal((after.watch as { pending_changes: number }).pending_changes, 0);
    assert.equal(meta(after).freshness_status, "fresh");
    assert.deepEqual((await definedIn(s.client, "Generated")).paths, []);
  } finally {
    await s.client.close();
  }
});

Deno.test("live index: a branch switch of many files is one sync and the ref label follows", async () => {
  const home = tempHomeDir();
  const repo = syntheticGoRepo(40, 1);
  git(repo, "init", "-q", "-b", "main");
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "main");
  git(repo, "checkout", "-q", "-b", "feature");
  for (let i = 0; i < 40; i++) {
    const f = join(repo, `pkg${i % 10}`, `file${i}.go`);
    Deno.writeTextFileSync(f, Deno.readTextFileSync(f).replace(`Widget${i} struct`, `Feature${i} struct`));
  }
  git(repo, "commit", "-q", "-am", "feature");
  git(repo, "checkout", "-q", "main");
  const s = await serve(home, repo);
  try {
    await indexed(s.client);
    await watchUp(s.client);
    assert.equal(meta(await status(s.client)).ref, "main");
    const jobsBefore = jobCount(await status(s.client));
    git(repo, "checkout", "-q", "feature");
    await waitFor(
      async () => {
        const r = await definedIn(s.client, "Feature39");
        return r.paths.length === 1 && r.meta.ref === "feature" && r.meta.freshness_status === "fresh";
      },
      BOUND,
      "the feature branch to be indexed and labelled",
    );
    assert.deepEqual((await definedIn(s.client, "Widget39")).paths, [], "the main branch's type is gone");
    const st = await status(s.client);
    const jobs = (st.recent_jobs as { status: string; ref: string }[]).slice(0, jobCount(st) - jobsBefore);
    assert.equal(jobs.length, 1, `one sync for the switch: ${JSON.stringify(jobs)}`);
    assert.equal(jobs[0].ref, "feature");

    // Only HEAD moving to a branch with the same tree: a sync just for the label.
    git(repo, "checkout", "-q", "-b", "feature-2");
    await waitFor(async () => meta(await status(s.client)).ref === "feature-2", BOUND, "the label of a new branch");
  } finally {
    await s.client.close();
  }
});

Deno.test("live index (polling forced by CRUXE_WATCH=poll): changes are found by scans", async () => {
  const home = tempHomeDir();
  const repo = syntheticGoRepo(4, 1);
  const s = await serve(home, repo, [], { CRUXE_WATCH: "poll", CRUXE_WATCH_POLL_MS: "200" });
  try {
    await indexed(s.client);
    const w = await watchOf(s.client);
    assert.equal(w.mode, "polling");
    assert.match(String(w.reason), /config/);
    Deno.writeTextFileSync(join(repo, "pkg1", "polled.go"), "package pkg1\n\nfunc Polled() {}\n");
    await waitDefined(s.client, "Polled", ["pkg1/polled.go"], "a polled change");
    Deno.removeSync(join(repo, "pkg1", "polled.go"));
    await waitDefined(s.client, "Polled", [], "a polled deletion");
    const health = await call(s.client, "health_check");
    const p = (health.projects as { repo_root: string; watch: { mode: string } }[])[0];
    assert.equal(p.watch.mode, "polling");
  } finally {
    await s.client.close();
  }
});

Deno.test("live index: --no-watch and a config turning a workspace off leave syncing to sync_repo", async () => {
  for (const how of ["--no-watch", "config"] as const) {
    const home = tempHomeDir();
    const repo = syntheticGoRepo(4, 1);
    let extra = ["--no-watch"];
    if (how === "config") {
      const cfg = join(home, "config.json");
      Deno.writeTextFileSync(cfg, JSON.stringify({ watch: { workspaces: { [repo]: "off" } } }));
      extra = ["--config", cfg];
    }
    const s = await serve(home, repo, extra);
    try {
      await indexed(s.client);
      const w = await watchOf(s.client);
      assert.equal(w.mode, "off", how);
      assert.match(String(w.reason), how === "config" ? /config/ : /--no-watch/);
      const jobs = jobCount(await status(s.client));
      const file = join(repo, "pkg2", "unwatched.go");
      Deno.writeTextFileSync(file, "package pkg2\n\nfunc Unwatched() {}\n");
      // Newer than the publish by more than the index's 1 s precision, so the freshness scan must see it.
      const later = new Date(Date.now() + 5000);
      Deno.utimeSync(file, later, later);
      // The freshness scan notices the change; nothing syncs it.
      await waitFor(
        async () => meta(await call(s.client, "locate_symbol", { name: "Unwatched" })).freshness_status === "stale",
        BOUND,
        `${how}: the change seen as stale`,
      );
      assert.deepEqual((await definedIn(s.client, "Unwatched")).paths, []);
      assert.equal(jobCount(await status(s.client)), jobs, `${how}: no sync ran by itself`);
      assert.equal((await call(s.client, "sync_repo", { wait: true })).status, "published");
      assert.deepEqual((await definedIn(s.client, "Unwatched")).paths, ["pkg2/unwatched.go"]);
    } finally {
      await s.client.close();
    }
  }
});

Deno.test("live index: a restart finds edits and deletions made while the server was down", async () => {
  const home = tempHomeDir();
  const repo = syntheticGoRepo(6, 1);
  let s = await serve(home, repo);
  try {
    await indexed(s.client);
    assert.deepEqual((await definedIn(s.client, "Widget3")).paths, ["pkg3/file3.go"]);
  } finally {
    await s.client.close();
  }
  Deno.removeSync(join(repo, "pkg3", "file3.go"));
  Deno.writeTextFileSync(join(repo, "pkg4", "later.go"), "package pkg4\n\nfunc WhileDown() {}\n");
  s = await serve(home, repo);
  try {
    await waitDefined(s.client, "Widget3", [], "a deletion made while down");
    await waitDefined(s.client, "WhileDown", ["pkg4/later.go"], "a file added while down");
    const st = await status(s.client);
    const last = (st.recent_jobs as { mode: string; status: string }[])[0];
    assert.equal(last.mode, "incremental");
    assert.equal(last.status, "published");
  } finally {
    await s.client.close();
  }
});

Deno.test("a watch's walk waits for the server's first answer, then watches and sees edits", async () => {
  const repo = syntheticGoRepo(4, 1);
  const s = await liveInProcess(repo, { walkDeferMs: 600_000 }, true);
  try {
    assert.deepEqual([s.rt.live.status(s.project).mode, s.rt.live.status(s.project).reason], [
      "events",
      WATCH_DEFERRED,
    ]);
    assert.deepEqual(exactPaths(await s.run("locate_symbol", { name: "Widget2" }), "Widget2"), ["pkg2/file2.go"]);
    await waitFor(() => s.rt.live.status(s.project).reason === null, BOUND, "the watch after the first answer");
    Deno.writeTextFileSync(join(repo, "pkg1", "late.go"), "package pkg1\n\nfunc AfterFirstAnswer() {}\n");
    await waitFor(() => s.rt.live.pendingPaths(s.project.project_id).count > 0, BOUND, "the event");
  } finally {
    s.close();
  }
});

Deno.test("a watch's walk starts by its deadline when no call comes", async () => {
  const repo = syntheticGoRepo(4, 1);
  const s = await liveInProcess(repo, { walkDeferMs: 50 }, true);
  try {
    await waitFor(() => s.rt.live.status(s.project).reason === null, BOUND, "the watch without a call");
    Deno.writeTextFileSync(join(repo, "pkg1", "early.go"), "package pkg1\n\nfunc NoCallYet() {}\n");
    await waitFor(() => s.rt.live.pendingPaths(s.project.project_id).count > 0, BOUND, "the event");
  } finally {
    s.close();
  }
});

Deno.test("read-your-writes: a known deletion is dropped at once; answers say syncing with the pending path", async () => {
  const repo = syntheticGoRepo(4, 1);
  // A quiet period longer than the test and no query wait: the change stays known and unindexed until asked.
  const s = await liveInProcess(repo, { timing: { quietMs: 600_000, maxMs: 600_000 }, readYourWritesMs: 0 });
  try {
    assert.equal(s.rt.live.status(s.project).mode, "events");
    // What must disappear is answered before the deletion.
    assert.deepEqual(exactPaths(await s.run("locate_symbol", { name: "Widget2" }), "Widget2"), ["pkg2/file2.go"]);
    assert.ok(searchPaths(await s.run("search_code", { query: "Widget2" })).includes("pkg2/file2.go"));
    Deno.removeSync(join(repo, "pkg2", "file2.go"));
    await waitFor(
      () => s.rt.live.pendingPaths(s.project.project_id).paths.includes("pkg2/file2.go"),
      BOUND,
      "the event",
    );
    const loc = await s.run("locate_symbol", { name: "Widget2" });
    assert.deepEqual(exactPaths(loc, "Widget2"), [], "the deleted file's symbol is not answered");
    assert.equal(meta(loc).freshness_status, "syncing");
    assert.deepEqual(meta(loc).pending_changes, { count: 1, paths: ["pkg2/file2.go"] });
    assert.ok(!searchPaths(await s.run("search_code", { query: "Widget2" })).includes("pkg2/file2.go"));
    const outline = await s.run("get_file_outline", { path: "pkg2/file2.go" });
    assert.equal((outline.error as { code: string }).code, "file_not_found");
    // Still present in the index itself: the filter, not a sync, hid it.
    assert.equal(s.rt.runner.all().length, 0);
    assert.equal(s.rt.live.status(s.project).syncs, 0);
  } finally {
    s.close();
  }
});

Deno.test("read-your-writes: a query after a known change starts its sync at once and waits for it", async () => {
  const repo = syntheticGoRepo(4, 1);
  // Without a query the quiet period would hold the sync for 10 minutes; the query's wait (bounded) must not.
  const s = await liveInProcess(repo, { timing: { quietMs: 600_000, maxMs: 600_000 }, readYourWritesMs: BOUND });
  try {
    Deno.writeTextFileSync(join(repo, "pkg1", "ryw.go"), "package pkg1\n\nfunc ReadYourWrites() {}\n");
    await waitFor(() => s.rt.live.pendingPaths(s.project.project_id).count > 0, BOUND, "the event");
    const loc = await s.run("locate_symbol", { name: "ReadYourWrites" });
    assert.equal((loc.results as { path: string }[])[0]?.path, "pkg1/ryw.go", JSON.stringify(loc));
    assert.equal(meta(loc).freshness_status, "fresh");
    assert.equal(meta(loc).pending_changes, undefined);
    assert.equal(s.rt.live.status(s.project).syncs, 1);
  } finally {
    s.close();
  }
});

Deno.test("watch filter: the scan's ignore rules, .git HEAD and refs only", () => {
  const root = Deno.makeTempDirSync({ prefix: "cruxe-watch-filter-" });
  Deno.writeTextFileSync(join(root, ".gitignore"), "*.log\ngenerated/\n");
  Deno.mkdirSync(join(root, "sub"));
  Deno.writeTextFileSync(join(root, "sub", ".gitignore"), "local_only.go\n");
  Deno.writeTextFileSync(join(root, ".cruxeignore"), "secret/\n");
  const f = new WatchFilter(root);
  assert.equal(f.classify("main.go"), "change");
  assert.equal(f.classify("sub/other.go"), "change");
  assert.equal(f.classify("sub/local_only.go"), "ignored", "a nested .gitignore");
  assert.equal(f.classify("local_only.go"), "change", "a nested rule does not apply above its directory");
  assert.equal(f.classify("debug.log"), "ignored");
  assert.equal(f.classify("generated", true), "ignored", "an ignored directory itself");
  assert.equal(f.classify("generated/x.go"), "ignored");
  assert.equal(f.classify("secret/x.go"), "ignored", ".cruxeignore");
  assert.equal(f.classify("node_modules/dep/x.js"), "ignored", "built-in skip");
  assert.equal(f.classify("app.min.js"), "ignored", "built-in generated name");
  assert.equal(f.classify(".git/HEAD"), "head");
  assert.equal(f.classify(".git/refs/heads/main"), "head");
  assert.equal(f.classify(".git/objects/ab/cdef"), "ignored");
  assert.equal(f.classify(".git/index.lock"), "git-lock");
  assert.equal(f.classify(".git/ORIG_HEAD"), "ignored");
  assert.equal(f.classify("sub/.gitignore"), "rules");
  // After the rule file changed, the new rules apply.
  Deno.writeTextFileSync(join(root, "sub", ".gitignore"), "\n");
  assert.equal(f.classify("sub/.gitignore"), "rules");
  assert.equal(f.classify("sub/local_only.go"), "change");
});

Deno.test("debouncer: a burst is one report; a continuous one is reported within the max bound", async () => {
  let fired = 0;
  const d = new Debouncer(40, 150, () => fired++);
  for (let i = 0; i < 5; i++) d.poke();
  await waitFor(() => fired === 1, BOUND, "the burst's report");
  assert.equal(d.armed, false);
  const t0 = performance.now();
  const firstAt: number[] = [];
  const d2 = new Debouncer(40, 150, () => firstAt.push(performance.now() - t0));
  // Pokes every 10 ms never leave a quiet period, so only the max bound can report.
  while (!firstAt.length && performance.now() - t0 < BOUND) {
    d2.poke();
    await new Promise((r) => setTimeout(r, 10));
  }
  d2.cancel();
  assert.ok(firstAt.length === 1 && firstAt[0] >= 140, `reported by the max bound: ${firstAt}`);
  let flushed = 0;
  const d3 = new Debouncer(600_000, 600_000, () => flushed++);
  d3.poke();
  d3.flush();
  assert.equal(flushed, 1, "flush reports at once");
});

Deno.test("listing diff: changed, added and deleted paths; non-indexable files left out", () => {
  const file = (path: string, size: number, mtimeMs: number) => ({ path, size, mtimeMs });
  const before = listingOf([file("a.go", 1, 1), file("b.go", 2, 2), file("c.go", 3, 3), file("notes.bin", 1, 1)]);
  assert.ok(!before.has("notes.bin"));
  const after = listingOf([file("a.go", 1, 1), file("b.go", 2, 5), file("d.go", 4, 4)]);
  assert.deepEqual(diffListings(before, after), { changed: ["b.go", "d.go"], deleted: ["c.go"] });
  const manifest = listingOfManifest([{ path: "tool", size: 9, mtime_ms: 9 }]);
  assert.ok(listingOf([file("tool", 9, 9)], manifest).has("tool"), "an indexed file without extension is kept");
});

Deno.test("cruxe watch: a line per sync from a terminal, until SIGTERM", async () => {
  const home = tempHomeDir();
  const repo = syntheticGoRepo(3, 1);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), "watch", "--workspace", repo, "--json"],
    env: { ...Deno.env.toObject(), CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines: Record<string, unknown>[] = [];
  const reading = (async () => {
    let buf = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        lines.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
    }
  })();
  try {
    await waitFor(() => lines.some((l) => l.event === "watching"), BOUND, "watching to start");
    const first = lines.find((l) => l.event === "sync")!;
    assert.equal(first.mode, "full", "a workspace without an index is indexed first");
    const watching = lines.find((l) => l.event === "watching")!;
    assert.equal(watching.mode, "events");
    assert.notEqual(watching.reason, WATCH_DEFERRED, "cruxe watch answers no call: its walk waits for none");
    Deno.writeTextFileSync(join(repo, "pkg0", "w.go"), "package pkg0\n\nfunc Watched() {}\n");
    await waitFor(() => lines.some((l) => l.event === "sync" && l.mode === "incremental"), BOUND, "a sync line");
    const sync = lines.find((l) => l.event === "sync" && l.mode === "incremental")!;
    assert.equal(sync.status, "published");
    assert.equal(sync.changed_files, 1);
    assert.equal(sync.added, 1);
    assert.equal(sync.symbols, 1);
    assert.equal(typeof sync.duration_ms, "number");
  } finally {
    child.kill("SIGTERM");
    const status = await child.status;
    await reading;
    assert.equal(status.code, 0, "SIGTERM stops it cleanly");
  }
});

/** True when this machine lets us set a private inotify limit (a user namespace), to hit the limit for real. */
function canLimitInotify(): boolean {
  if (Deno.build.os !== "linux") return false;
  try {
    return new Deno.Command("unshare", {
      args: ["-U", "-r", "sh", "-c", "echo 0 > /proc/sys/user/max_inotify_watches"],
      stdout: "null",
      stderr: "null",
    }).outputSync().success;
  } catch {
    return false;
  }
}

Deno.test({
  name: "live index: the inotify watch limit reached falls back to polling, says why and how to fix it",
  ignore: !canLimitInotify(),
  fn: async () => {
    const home = tempHomeDir();
    const repo = syntheticGoRepo(4, 1);
    const transport = new StdioClientTransport({
      command: "unshare",
      args: [
        "-U",
        "-r",
        "sh",
        "-c",
        'echo 0 > /proc/sys/user/max_inotify_watches && exec "$0" "$@"',
        Deno.execPath(),
        "run",
        ...CRUXE_FLAGS,
        join(REPO_ROOT, "main.ts"),
        "serve-mcp",
        "--workspace",
        repo,
        "--no-prewarm",
      ],
      env: { ...Deno.env.toObject(), CRUXE_HOME: home, CRUXE_WORKERS: "1", CRUXE_WATCH_POLL_MS: "200" },
      stderr: "pipe",
      cwd: REPO_ROOT,
    });
    const client = new McpClient({ name: "cruxe-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      await indexed(client);
      let w: Record<string, string> = {};
      await waitFor(
        async () => {
          const health = await call(client, "health_check");
          w = (health.projects as { watch: Record<string, string> }[])[0].watch;
          return !w.reason?.startsWith("starting");
        },
        BOUND,
        "the watch's verdict",
      );
      assert.equal(w.mode, "polling", JSON.stringify(w));
      assert.match(w.reason, /watch limit/);
      assert.match(w.fix, /fs\.inotify\.max_user_watches/);
      Deno.writeTextFileSync(join(repo, "pkg3", "limited.go"), "package pkg3\n\nfunc UnderTheLimit() {}\n");
      await waitDefined(client, "UnderTheLimit", ["pkg3/limited.go"], "a change found by polling");
    } finally {
      await client.close();
    }
  },
});

Deno.test("live index: watching follows use; the least recently used workspace past the capacity stops", async () => {
  const home = tempHomeDir();
  const config = { ...resolveConfig({ CRUXE_HOME: home }, Deno.build.os), workers: 1 };
  const registry = Registry.open(home);
  const repos = [syntheticGoRepo(2, 1), syntheticGoRepo(2, 1)];
  const projects = repos.map((r) => registerProject(registry, r));
  const rt = new ServerRuntime(config, registry, {
    prewarm: false,
    watch: true,
    live: { capacity: 1 },
    router: { startupWorkspaces: [], autoWorkspace: false, allowedRoots: [], maxAutoWorkspaces: 10, cwd: repos[0] },
  });
  const dispatcher = new Dispatcher(rt);
  // A query uses a workspace (a status query such as index_status does not).
  const use = async (i: number) => {
    await dispatcher.call("locate_symbol", { name: "Compute0x0", workspace: repos[i] }, {
      sendNotification: () => Promise.resolve(),
      signal: new AbortController().signal,
    });
    return rt.live.status(projects[i]);
  };
  try {
    assert.equal(rt.live.status(projects[0]).mode, "off", "nothing is watched before it is used");
    assert.equal((await use(0)).mode, "events");
    assert.equal((await use(1)).mode, "events");
    assert.equal(rt.live.status(projects[0]).mode, "off", "the least recently used one left");
    assert.match(String(rt.live.status(projects[0]).reason), /not in use/);
    assert.equal((await use(0)).mode, "events", "watched again when used again");
    assert.equal(rt.live.status(projects[1]).mode, "off");
  } finally {
    rt.close();
  }
});

/** A watcher over a new directory with a `.git` folder, recording the paths it sees and the batches it makes. */
function gitTreeWatcher(prefix: string, timing: { quietMs: number; maxMs: number }) {
  const root = Deno.makeTempDirSync({ prefix });
  Deno.mkdirSync(join(root, ".git"));
  const batches: WatchBatch[] = [];
  const seen: string[] = [];
  const w = new TreeWatcher(root, {
    onChange: (rel) => seen.push(rel),
    onIgnored: () => {},
    onBatch: (b) => batches.push(b),
    onError: (e) => {
      throw e;
    },
  }, timing);
  return { root, batches, seen, w };
}

Deno.test("watcher: a batch is held while git's index lock exists, so a checkout is one batch", async () => {
  const { root, batches, seen, w } = gitTreeWatcher("cruxe-watch-lock-", { quietMs: 20, maxMs: 100 });
  try {
    Deno.writeTextFileSync(join(root, ".git", "index.lock"), "");
    Deno.writeTextFileSync(join(root, "a.go"), "package a\n");
    await waitFor(() => seen.includes("a.go"), BOUND, "the event");
    w.flush();
    assert.equal(batches.length, 0, "held while the lock exists, even when asked to flush");
    Deno.writeTextFileSync(join(root, "b.go"), "package a\n");
    await waitFor(() => seen.includes("b.go"), BOUND, "the second event");
    Deno.removeSync(join(root, ".git", "index.lock"));
    await waitFor(() => batches.length > 0, BOUND, "the batch after the lock went");
    assert.deepEqual(batches[0].changed.sort(), ["a.go", "b.go"]);
    assert.equal(batches.length, 1);
  } finally {
    w.close();
  }
});

Deno.test("live index: an edit syncs only its paths on a warm worker; a new directory syncs the whole tree", async () => {
  const repo = syntheticGoRepo(6, 1);
  const s = await liveInProcess(repo, { timing: { quietMs: 30, maxMs: 500 } });
  const ends: { scope: string; filesScanned: number; changedFiles: number; deleted: number }[] = [];
  const off = s.rt.runner.subscribe((e) => {
    if (e.type === "end" && e.summary && e.summary.mode === "incremental") ends.push(e.summary);
  });
  const id = s.project.project_id;
  const found = async (name: string) => exactPaths(await s.run("locate_symbol", { name }), name);
  try {
    // An edit: the sync stats and parses that one file, not the tree (six files).
    Deno.writeTextFileSync(join(repo, "pkg1", "file1.go"), "\nfunc EditedLive() {}\n", { append: true });
    await waitFor(async () => (await found("EditedLive")).includes("pkg1/file1.go"), BOUND, "the edit");
    const edit = ends.find((e) => e.changedFiles === 1 && e.scope === "paths");
    assert.ok(edit, `a sync of the named path: ${JSON.stringify(ends)}`);
    assert.equal(edit.filesScanned, 1, "only the edited path was stat'ed");
    assert.ok(s.rt.runner.hasWarmWorker(id), "the job worker stays warm for the next edit");

    // A directory deleted whole: its files leave the index through the named path alone.
    assert.deepEqual(await found("Widget2"), ["pkg2/file2.go"], "answered before the deletion");
    Deno.removeSync(join(repo, "pkg2"), { recursive: true });
    await waitFor(async () => (await found("Widget2")).length === 0, BOUND, "the deleted directory's files");
    await waitFor(() => !s.rt.runner.activeFor(id) && s.rt.live.pendingPaths(id).count === 0, BOUND, "settled");
    assert.ok(ends.some((e) => e.scope === "paths" && e.deleted === 1), JSON.stringify(ends));

    // A new directory created with a file in it: only a scan of the tree can know what it holds.
    const before = ends.length;
    Deno.mkdirSync(join(repo, "fresh", "inner"), { recursive: true });
    Deno.writeTextFileSync(join(repo, "fresh", "inner", "n.go"), "package inner\n\nfunc InFreshDir() {}\n");
    await waitFor(async () => (await found("InFreshDir")).includes("fresh/inner/n.go"), BOUND, "the new directory");
    assert.ok(ends.slice(before).some((e) => e.scope === "tree"), `a whole-tree sync: ${JSON.stringify(ends)}`);
  } finally {
    off();
    s.close();
  }
});

Deno.test("job runner: a warm worker is parked after its job and retired when idle", async () => {
  const home = tempHomeDir();
  const config = { ...resolveConfig({ CRUXE_HOME: home }, Deno.build.os), workers: 1 };
  const registry = Registry.open(home);
  const project = registerProject(registry, syntheticGoRepo(2, 1));
  const runner = new JobRunner(registry, config, { warmIdleMs: 200 });
  try {
    assert.equal((await runner.start(project, { mode: "full", force: false }).active.done).status, "published");
    assert.equal(runner.hasWarmWorker(project.project_id), false, "a job not started warm leaves nothing behind");
    const first = runner.start(project, { mode: "incremental", force: false, warm: true }).active;
    assert.equal((await first.done).status, "published");
    assert.ok(runner.hasWarmWorker(project.project_id), "parked after a warm job");
    const second = runner.start(project, { mode: "incremental", force: false, warm: true }).active;
    assert.equal(second.worker, first.worker, "the next warm job runs on the parked worker");
    await second.done;
    await waitFor(() => !runner.hasWarmWorker(project.project_id), BOUND, "the idle worker to retire");
  } finally {
    runner.shutdown();
    registry.close();
  }
});

Deno.test("watcher: a lock git took and released before its events were read still holds the batch a while", async () => {
  const { root, batches, seen, w } = gitTreeWatcher("cruxe-watch-quick-lock-", { quietMs: 3000, maxMs: 3000 });
  try {
    // A quick checkout: the lock comes and goes, then a file; the last events of git may still be on the way.
    Deno.writeTextFileSync(join(root, ".git", "index.lock"), "");
    Deno.removeSync(join(root, ".git", "index.lock"));
    Deno.writeTextFileSync(join(root, "a.go"), "package a\n");
    await waitFor(() => seen.includes("a.go"), BOUND, "the event");
    w.flush();
    assert.equal(batches.length, 0, "a reader's flush does not cut the hold short");
    assert.ok(w.waiting, "the held batch is still waiting");
    await waitFor(() => batches.length > 0, BOUND, "the batch after the quiet period");
    assert.deepEqual(batches[0].changed, ["a.go"]);
  } finally {
    w.close();
  }
});
