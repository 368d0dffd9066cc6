/**
 * A served workspace whose root directory is swapped for a symlink to a
 * directory outside it, with the permission sandbox off (`CRUXE_SANDBOX=off`,
 * so no Deno grant stops a read of the new target). The watcher (events and
 * polling), the scan and every sync must notice that the root now resolves
 * elsewhere, stop, and say "re-register it"; nothing from the new target may
 * ever be indexed or answered, and the project is not served until the root
 * is its own path again.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { bodyOf, stdioClient, tempHomeDir, waitFor } from "./mcp_helpers.ts";
import { scanRepository } from "../src/index/scan.ts";
import { scanPaths } from "../src/index/scan_paths.ts";
import { readRepoFile } from "../src/io/safe_open.ts";
import { git } from "./helpers/fixture_repo.ts";
import { liveInProcess } from "./helpers/live_in_process.ts";
import { WATCH_DEFERRED } from "../src/index/live_indexer.ts";

/** Only the outside directory holds it: seeing it in an answer is a leak. */
const SECRET = `SECRET_${crypto.randomUUID().replaceAll("-", "")}`;
const NAME = `outside_fn_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;

/** A repository and an outside directory holding the secret. */
function fixture(): { base: string; repo: string; outside: string } {
  const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "cruxe-root-swap-" }));
  const repo = join(base, "repo");
  const outside = join(base, "outside");
  Deno.mkdirSync(repo);
  Deno.mkdirSync(outside);
  Deno.writeTextFileSync(join(repo, "main.py"), "def main_entry():\n    return 2\n");
  Deno.writeTextFileSync(join(outside, "tool.py"), `def ${NAME}():\n    return "${SECRET}"\n`);
  return { base, repo, outside };
}

/** Moves the root aside (still watched: it is the same directory) and puts a symlink to `outside` in its place. */
function swap(repo: string, outside: string): string {
  const old = repo + ".old";
  Deno.renameSync(repo, old);
  Deno.symlinkSync(outside, repo);
  return old;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r = await client.callTool({ name, arguments: args });
  const text = JSON.stringify(r);
  assert.ok(!text.includes(SECRET), `${name} answered with the new target's content: ${text}`);
  return { error: r.isError === true, body: bodyOf(r) };
}

/** The live-index state of the served workspace, as `health_check` lists it. */
async function watchOf(client: Client, root: string): Promise<Record<string, unknown>> {
  const { body } = await call(client, "health_check");
  const p = (body.projects as { repo_root: string; watch: Record<string, unknown> }[]).find((x) =>
    x.repo_root === root
  );
  return p?.watch ?? {};
}

/** Serves `repo` with the sandbox off (and `env`), indexes it, swaps its root, then runs `trigger`. */
async function swappedWhileServed(env: Record<string, string>, trigger: (old: string) => void): Promise<void> {
  const { base, repo, outside } = fixture();
  const home = tempHomeDir();
  const vars = { CRUXE_SANDBOX: "off", ...env };
  for (const [k, v] of Object.entries(vars)) Deno.env.set(k, v);
  const s = await stdioClient(home, ["--workspace", repo, "--no-prewarm"]);
  for (const k of Object.keys(vars)) Deno.env.delete(k);
  try {
    assert.equal((await call(s.client, "index_repo", { wait: true })).body.status, "published");
    // The watch up (its walk and catch-up done), so the swap is seen by the running watcher, not its start.
    let before: Record<string, unknown> = {};
    await waitFor(
      async () => !String((before = await watchOf(s.client, repo)).reason).startsWith("starting"),
      60_000,
      "the watch up",
    );
    assert.notEqual(before.mode, "off", JSON.stringify(before));
    const old = swap(repo, outside);
    trigger(old);
    // Whichever comes first: the watcher stops, or (what must not happen) a sync runs from the new target.
    let w: Record<string, unknown> = {};
    await waitFor(
      async () => {
        w = await watchOf(s.client, repo);
        return w.mode === "off" || Number(w.syncs) > 0 || w.last_sync !== null;
      },
      60_000,
      "the watcher's verdict after the swap",
    );
    assert.equal(w.mode, "off", `the watcher went on after the root moved: ${JSON.stringify(w)}`);
    assert.match(String(w.reason), new RegExp(`now resolves to ${outside}; re-register it`));
    // Not served, not synced, not re-indexed until the root is its own path again.
    for (const [name, args] of [["search_code", { query: NAME }], ["sync_repo", {}], ["index_repo", {}]] as const) {
      const r = await call(s.client, name, args);
      assert.equal(r.error, true, `${name} served the moved root: ${JSON.stringify(r.body)}`);
      assert.match(JSON.stringify(r.body), /now resolves to .*re-register it/, name);
    }
    // Put back: served again, and nothing of the outside directory was ever indexed.
    Deno.removeSync(repo);
    Deno.renameSync(old, repo);
    const hit = await call(s.client, "locate_symbol", { name: NAME });
    assert.doesNotMatch(JSON.stringify(hit.body), /tool\.py/, "the outside file was indexed");
    const own = await call(s.client, "locate_symbol", { name: "main_entry" });
    assert.match(JSON.stringify(own.body), /main\.py/, JSON.stringify(own.body));
  } finally {
    await s.client.close().catch(() => {});
    Deno.removeSync(base, { recursive: true });
    Deno.removeSync(home, { recursive: true });
  }
}

Deno.test({
  name: "root swapped for a symlink: the event watcher stops and says re-register, nothing is synced from the target",
  sanitizeResources: false,
  sanitizeOps: false,
  // A new directory in the watched (moved-aside) root: on its own it would sync the whole tree.
  fn: () => swappedWhileServed({ CRUXE_WATCH: "auto" }, (old) => Deno.mkdirSync(join(old, "newdir"))),
});

Deno.test({
  name: "root swapped for a symlink: polling stops and says re-register, nothing is synced from the target",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () => swappedWhileServed({ CRUXE_WATCH: "poll", CRUXE_WATCH_POLL_MS: "100" }, () => {}),
});

Deno.test("root swapped for a symlink while the watch waits to list its directories: it stops, says re-register", async () => {
  const { base, repo, outside } = fixture();
  const s = await liveInProcess(repo, { walkDeferMs: 600_000 }, true);
  try {
    assert.equal(s.rt.live.status(s.project).reason, WATCH_DEFERRED);
    swap(repo, outside);
    s.rt.live.answered(); // the walk starts now, on a root that resolves elsewhere
    await waitFor(() => s.rt.live.status(s.project).mode === "off", 30_000, "the watch's verdict");
    const st = s.rt.live.status(s.project);
    assert.match(String(st.reason), new RegExp(`now resolves to ${outside}; re-register it`));
    assert.equal(st.syncs, 0, JSON.stringify(st));
  } finally {
    s.close();
    Deno.removeSync(base, { recursive: true });
  }
});

Deno.test("root swapped for a symlink: the full scan, the scan of named paths and the safe open refuse it", async () => {
  const { base, repo, outside } = fixture();
  try {
    assert.equal((await scanRepository(repo, { maxFileBytes: 1 << 20 })).files.length, 1);
    swap(repo, outside);
    await assert.rejects(
      () => scanRepository(repo, { maxFileBytes: 1 << 20 }),
      (e: Error & { code?: string }) => e.code === "forbidden" && /now resolves to .*re-register it/.test(e.message),
    );
    assert.throws(
      () => scanPaths(repo, ["tool.py"], { maxFileBytes: 1 << 20 }),
      (e: Error & { code?: string }) => e.code === "forbidden" && /now resolves to/.test(e.message),
    );
    // A read after a scan (a job's, while the root is swapped under it) is refused too.
    assert.throws(
      () => readRepoFile(repo, "tool.py", { maxBytes: 1 << 20 }),
      (e: Error & { code?: string }) => e.code === "forbidden" && /now resolves to/.test(e.message),
    );
  } finally {
    Deno.removeSync(base, { recursive: true });
  }
});

Deno.test("root swapped while the scan lists it: the scan is refused, never a listing of the new target", async () => {
  const { base, repo, outside } = fixture();
  try {
    git(repo, "init", "-q");
    // The scan awaits `git ls-files` after its first check of the root; the swap lands while it waits.
    const scanning = scanRepository(repo, { maxFileBytes: 1 << 20 });
    swap(repo, outside);
    await assert.rejects(
      () => scanning,
      (e: Error & { code?: string }) => e.code === "forbidden" && /now resolves to .*re-register it/.test(e.message),
    );
  } finally {
    Deno.removeSync(base, { recursive: true });
  }
});
