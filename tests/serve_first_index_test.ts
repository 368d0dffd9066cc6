/**
 * A served workspace with no index starts indexing when the server starts,
 * not at the first `index_repo`: calls meanwhile answer `indexing` (never
 * `fresh`, never an error), and a first index that a stop interrupted is
 * resumed by the next start without anyone asking.
 */
import assert from "node:assert/strict";
import { bodyOf, stdioClient, syntheticGoRepo, tempHomeDir, waitFor } from "./mcp_helpers.ts";

type Meta = { freshness_status: string; indexing_status: string; schema_status: string };

Deno.test("serve-mcp --workspace on a never-indexed workspace indexes it at once and never says fresh before", async () => {
  const home = tempHomeDir();
  const repo = syntheticGoRepo(150);
  const s = await stdioClient(home, ["--workspace", repo, "--no-prewarm"]);
  try {
    const seen: Meta[] = [];
    let results: unknown[] = [];
    await waitFor(
      async () => {
        const r = await s.client.callTool({ name: "search_code", arguments: { query: "Compute3x1" } });
        const body = bodyOf(r);
        assert.ok(!r.isError, `an error instead of an indexing answer: ${JSON.stringify(body)}`);
        const meta = body.metadata as Meta;
        seen.push(meta);
        results = body.results as unknown[];
        return meta.indexing_status === "ready";
      },
      120_000,
      "the first index, started by the server itself",
    );
    const before = seen.filter((m) => m.schema_status !== "compatible");
    for (const m of before) {
      assert.notEqual(m.freshness_status, "fresh", JSON.stringify(m));
      assert.equal(m.indexing_status, "indexing", JSON.stringify(m));
    }
    assert.ok(results.length > 0, "results once the index is published");
    const status = bodyOf(await s.client.callTool({ name: "index_status", arguments: {} }));
    const jobs = status.recent_jobs as { status: string }[];
    assert.ok(jobs.length >= 1 && jobs[0].status === "published", JSON.stringify(jobs));
  } finally {
    await s.client.close();
  }
});

Deno.test("a first index interrupted by a stop is resumed by the next start", async () => {
  const home = tempHomeDir();
  const repo = syntheticGoRepo(1500, 6);
  let s = await stdioClient(home, ["--workspace", repo, "--no-prewarm"]);
  try {
    const first = bodyOf(await s.client.callTool({ name: "index_status", arguments: {} }));
    assert.ok(first.active_job, `the server started indexing on its own: ${JSON.stringify(first).slice(0, 300)}`);
    Deno.kill(s.transport.pid!, "SIGKILL");
    await s.client.close().catch(() => {});
    s = await stdioClient(home, ["--workspace", repo, "--no-prewarm"]);
    let last: Record<string, unknown> = {};
    await waitFor(
      async () => {
        last = bodyOf(await s.client.callTool({ name: "index_status", arguments: {} }));
        return last.index_status === "ready" && !last.active_job;
      },
      180_000,
      "the resumed index",
    );
    const jobs = last.recent_jobs as { status: string }[];
    assert.ok(jobs.some((j) => j.status === "interrupted"), `the first job was interrupted: ${JSON.stringify(jobs)}`);
    assert.equal(jobs[0].status, "published");
    assert.equal(last.interrupted_recovery_report, undefined, "the resumed index resolves the report");
    assert.equal(last.file_count, 1500);
  } finally {
    await s.client.close().catch(() => {});
  }
});
