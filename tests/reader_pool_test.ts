import assert from "node:assert/strict";
import { copyFixture } from "./helpers/fixture_repo.ts";
import { bodyOf, type InProcess, inProcess, within } from "./mcp_helpers.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { ReaderPool, readerPoolSize } from "../src/service/reader_pool.ts";
import { indexPath } from "../src/state/project_index.ts";

async function indexed(readerWorkers: number, env?: Record<string, string>): Promise<{ s: InProcess; dir: string }> {
  const dir = copyFixture("go_basic");
  const s = inProcess({ cwd: dir }, { readerWorkers, env });
  const job = await s.rt.runner.start(registerProject(s.registry, dir), { mode: "full", force: false }).active.done;
  assert.equal(job.status, "published");
  return { s, dir };
}

/** A tool answer without the parts that differ between two servers (timing, ids of the home). */
function comparable(r: unknown): unknown {
  const b = bodyOf(r);
  delete b.metadata;
  return { isError: (r as { isError?: boolean }).isError ?? false, body: b };
}

const CALLS: [string, Record<string, unknown>][] = [
  ["locate_symbol", { name: "ValidateToken" }],
  ["locate_symbol", { name: "ValidateTokn" }],
  ["locate_symbol", { name: "NoSuchThingAnywhere" }],
  ["locate_symbol", { name: "" }],
  ["search_code", { query: "validate token" }],
  ["search_code", { query: "validate token", scope: { type: "current" } }],
  ["get_file_outline", { path: "auth/jwt.go" }],
  ["get_file_outline", { path: "no/such/file.go" }],
  ["get_symbol_hierarchy", { symbol_name: "CheckRateLimit" }],
  ["find_related_symbols", { symbol_name: "ValidateToken" }],
  ["get_code_context", { query: "ValidateToken" }],
  ["find_references", { symbol_name: "Claims" }],
  ["find_references", { symbol_name: "NoSuchThingAnywhere" }],
  ["get_call_graph", { symbol_name: "ValidateToken", depth: 2 }],
  ["explain_ranking", { query: "validate token", result_id: "no-such-result" }],
  ["suggest_followup_queries", { query: "validate token" }],
];

Deno.test("reader workers answer query tools exactly as the main thread does, errors included", async () => {
  const on = await indexed(2);
  const off = await indexed(0);
  try {
    for (const [tool, args] of CALLS) {
      const a = comparable(await on.s.call(tool, args));
      const b = comparable(await off.s.call(tool, args));
      assert.deepEqual(a, b, `${tool} ${JSON.stringify(args)}`);
    }
    assert.ok(on.s.rt.readerPool.stats().workers >= 1, "the pool answered");
    // Answered in a worker, not sent back to the main thread (which would answer the same, slower for all).
    const before = on.s.rt.readerPool.stats().fallbacks;
    for (
      const [tool, args] of CALLS.filter(([t, a]) =>
        t !== "explain_ranking" && t !== "suggest_followup_queries" && !a.scope
      )
    ) {
      await on.s.call(tool, args);
      assert.equal(
        on.s.rt.readerPool.stats().fallbacks,
        before,
        `${tool} ${JSON.stringify(args)} ran on the main thread`,
      );
    }
    assert.equal(off.s.rt.readerPool.stats().workers, 0, "a pool of size 0 never starts a worker");
    // Calls in parallel use every worker and all come back.
    const many = await Promise.all(
      Array.from({ length: 12 }, (_, i) => on.s.call("locate_symbol", { name: i % 2 ? "ValidateToken" : "Claims" })),
    );
    assert.ok(many.every((r) => !(r as { isError?: boolean }).isError));
    assert.equal(on.s.rt.readerPool.stats().workers, 2);
  } finally {
    on.s.close();
    off.s.close();
  }
});

Deno.test("health_check and index_status answer at once while every reader worker is stuck in a slow query", async () => {
  // The stall is the server's configuration (read once from its environment), passed down to the pool.
  const { s } = await indexed(1, { CRUXE_TEST_READER_STALL_MS: "3000" });
  try {
    let slowDone = false;
    const slow = s.call("search_code", { query: "validate token" }).then((r) => {
      slowDone = true;
      return r;
    });
    await within(
      (async () => {
        while (s.rt.readerPool.stats().busy === 0) await new Promise((r) => setTimeout(r, 5));
      })(),
      10_000,
      "the worker to take the slow call",
    );
    const t0 = performance.now();
    const health = await s.call("health_check", {});
    const status = await s.call("index_status", {});
    const ms = performance.now() - t0;
    assert.equal((health as { isError?: boolean }).isError ?? false, false);
    assert.equal((status as { isError?: boolean }).isError ?? false, false);
    assert.equal(slowDone, false, "the slow query was still running");
    assert.ok(ms < 2000, `health and status took ${ms.toFixed(0)} ms`);
    const r = await within(slow, 20_000, "the slow query");
    assert.ok((bodyOf(r).results as unknown[]).length > 0);
  } finally {
    s.close();
  }
});

Deno.test("CRUXE_READER_WORKERS sizes the pool; 0 or off turns it off; anything else is refused", () => {
  assert.equal(readerPoolSize({ CRUXE_READER_WORKERS: "0" }), 0);
  assert.equal(readerPoolSize({ CRUXE_READER_WORKERS: "off" }), 0);
  assert.equal(readerPoolSize({ CRUXE_READER_WORKERS: "3" }), 3);
  const dflt = readerPoolSize({});
  assert.ok(dflt >= 1 && dflt <= 4);
  assert.throws(() => readerPoolSize({ CRUXE_READER_WORKERS: "lots" }), /CRUXE_READER_WORKERS must be a whole number/);
});

Deno.test("an idle reader worker is retired and a later call starts a new one", async () => {
  const { s } = await indexed(0);
  const pool = new ReaderPool(1, 50);
  try {
    const project = s.registry.listProjects()[0];
    const store = indexPath(s.registry.projectDir(project.project_id));
    const first = await pool.run("locate_symbol", { name: "ValidateToken" }, store);
    assert.equal((first?.results as { name: string }[])[0].name, "ValidateToken");
    await within(
      (async () => {
        while (pool.stats().workers > 0) await new Promise((r) => setTimeout(r, 10));
      })(),
      10_000,
      "the idle worker to retire",
    );
    const again = await pool.run("locate_symbol", { name: "Claims" }, store);
    assert.equal((again?.results as { name: string }[])[0].name, "Claims");
    assert.equal(pool.stats().workers, 1);
  } finally {
    pool.close();
    s.close();
  }
});
