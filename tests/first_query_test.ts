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

/** An in-process server with one query worker (none started yet) over an indexed copy of go_basic. */
async function indexedWithOneWorker() {
  const dir = copyFixture("go_basic");
  const s = inProcess({ cwd: dir }, { readerWorkers: 1 });
  const project = registerProject(s.registry, dir);
  const job = await s.rt.runner.start(project, { mode: "full", force: false }).active.done;
  if (job.status !== "published") {
    s.close();
    throw new Error(`indexing go_basic: ${job.status}`);
  }
  return { s, project };
}

Deno.test("a query worker is warmed before health says ready, and the first search_code runs on it", async () => {
  const { s, project } = await indexedWithOneWorker();
  try {
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

Deno.test("a query while the first worker still loads is answered on the main thread, not queued behind it", async () => {
  const { s, project } = await indexedWithOneWorker();
  try {
    s.rt.warmReaders([project]);
    assert.equal(s.rt.readerPool.warming, true);
    const r = await s.call("locate_symbol", { name: "ValidateToken" });
    assert.ok(!r.isError, JSON.stringify(bodyOf(r)));
    // Loading a worker takes far longer than this answer: it came while the worker was still loading.
    assert.equal(s.rt.readerPool.warming, true, "answered before the worker was ready");
    assert.deepEqual(s.rt.readerPool.stats(), { workers: 1, busy: 0, queued: 0, fallbacks: 0 });
    await waitFor(() => buildHealth(s.rt).status === "ready", 60_000, "the query worker to be warm");
  } finally {
    s.close();
  }
});
