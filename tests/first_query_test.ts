/**
 * The first query after `ready` does not pay for starting a query worker:
 * serving starts one ahead of it, with the workspace's index open and its
 * query code run once, and health says `warming` until it is ready.
 */
import assert from "node:assert/strict";
import { copyFixture } from "./helpers/fixture_repo.ts";
import { bodyOf, inProcess, waitFor } from "./mcp_helpers.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { buildHealth } from "../src/service/health.ts";

Deno.test("a query worker is warmed before health says ready, and the first search_code runs on it", async () => {
  const dir = copyFixture("go_basic");
  const s = inProcess({ cwd: dir }, { readerWorkers: 1 });
  try {
    const project = registerProject(s.registry, dir);
    assert.equal((await s.rt.runner.start(project, { mode: "full", force: false }).active.done).status, "published");
    assert.equal(s.rt.readerPool.stats().workers, 0, "no worker before serving starts");
    s.rt.warmReaders([project]);
    assert.equal(buildHealth(s.rt).status, "warming", "warming while the worker loads");
    await waitFor(() => buildHealth(s.rt).status === "ready", 60_000, "the query worker to be warm");
    assert.equal(s.rt.readerPool.stats().workers, 1);
    const r = await s.call("search_code", { query: "validate token" });
    assert.ok(!r.isError, JSON.stringify(bodyOf(r)));
    assert.ok((bodyOf(r).results as unknown[]).length > 0);
    assert.deepEqual(
      s.rt.readerPool.stats(),
      { workers: 1, busy: 0, queued: 0, fallbacks: 0 },
      "answered by the warmed worker, no second one started",
    );
  } finally {
    s.close();
  }
});

Deno.test("a call while the first query worker still loads is answered at once on the main thread, not queued behind it", async () => {
  const dir = copyFixture("go_basic");
  // The worker's start is held for 20 s: a call that waited for it would find it warm by the time it answered.
  const s = inProcess({ cwd: dir }, { readerWorkers: 1, env: { CRUXE_TEST_READER_WARM_STALL_MS: "20000" } });
  try {
    const project = registerProject(s.registry, dir);
    assert.equal((await s.rt.runner.start(project, { mode: "full", force: false }).active.done).status, "published");
    s.rt.warmReaders([project]);
    const r = await s.call("search_code", { query: "validate token" });
    assert.ok(!r.isError, JSON.stringify(bodyOf(r)));
    assert.ok((bodyOf(r).results as unknown[]).length > 0);
    assert.equal(buildHealth(s.rt).status, "warming", "answered before the worker said it was warm");
    assert.deepEqual(s.rt.readerPool.stats(), { workers: 1, busy: 0, queued: 0, fallbacks: 0 });
  } finally {
    s.close();
  }
});
