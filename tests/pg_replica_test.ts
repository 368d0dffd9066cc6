/**
 * Stateless team replicas against a real PostgreSQL: two `serve-mcp --store`
 * processes (HTTP, each inside the permission sandbox, connecting with the
 * read-only role) answer the same call with the same commit, as one over
 * stdio does; one killed, the other still answers; a token-protected replica
 * refuses a call without the token; a streaming replica (`pg_basebackup`)
 * serves `--read-store` reads once it has replayed a publish, refuses
 * writes, and keeps answering with the primary stopped. Skipped, saying so,
 * only when no PostgreSQL binaries are installed.
 */
import assert from "node:assert/strict";
import { NO_PG, pgBinDir, startPgCluster, startStandby } from "./helpers/pg_cluster.ts";
import { copyFixture, git } from "./helpers/fixture_repo.ts";
import { runCruxe, spawnCruxe } from "./helpers/team_cli.ts";
import { awaitHttpPort, stdioClient, waitFor } from "./mcp_helpers.ts";
import { PgPool } from "../src/state/pg/pg_pool.ts";
import { join } from "node:path";
import { existsSync } from "node:fs";

const HAVE_PG = pgBinDir() !== null;
if (!HAVE_PG) console.warn(`pg_replica_test.ts: ${NO_PG}`);

/** Runs `cruxe args…`; fails the test on a non-zero exit. */
async function cruxe(home: string, args: string[]): Promise<void> {
  const r = await runCruxe(home, args);
  assert.equal(r.code, 0, r.stderr);
}

/** Starts a replica on a free port (inside the sandbox, as serve-mcp always runs). */
async function replica(home: string, url: string, ...more: string[]) {
  const child = spawnCruxe(home, ["serve-mcp", "--transport", "http", "--port", "0", "--store", url, ...more]);
  void child.stdout.cancel();
  return { child, ...await awaitHttpPort(child) };
}

/** One `tools/call` to the replica on `port`: the HTTP status and the tool result's JSON. */
async function call(port: number, name: string, args: unknown, token?: string) {
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const body = await res.json();
  const text = body.result?.content?.[0]?.text;
  return { status: res.status, result: text ? JSON.parse(text) : null, isError: body.result?.isError === true };
}

Deno.test({
  name: "team replicas: two read-only replicas answer alike; one killed, the other answers; the token still guards",
  ignore: !HAVE_PG,
  fn: async () => {
    const pg = (await startPgCluster())!;
    const home = Deno.makeTempDirSync({ prefix: "cruxe-replica-home-" });
    const repo = copyFixture("go_basic", { git: true });
    const admin = new PgPool(pg.url);
    const replicas: Awaited<ReturnType<typeof replica>>[] = [];
    try {
      await cruxe(home, ["store-setup", "--store", pg.url]);
      await admin.query("CREATE ROLE replica1 LOGIN IN ROLE cruxe_reader");
      await cruxe(home, ["index", "--store", pg.url, "--path", repo, "--ref", "main"]);
      const commit = git(repo, "rev-parse", "main").trim();
      const reader = pg.urlFor("replica1");
      replicas.push(await replica(home, reader), await replica(home, reader, "--auth-token", "s3cret-token"));
      const [a, b] = replicas;
      // A replica copies the published heads' shards ahead of the first call that reads them.
      const shards = join(home, "team-shards");
      await waitFor(
        () => existsSync(shards) && [...Deno.readDirSync(shards)].some((e) => /^[0-9a-f]{64}\.db$/.test(e.name)),
        30_000,
        "the replicas to copy the published shard before any call",
      );
      const fromA = await call(a.port, "locate_symbol", { name: "CheckRateLimit" });
      assert.equal(fromA.status, 200);
      assert.equal(fromA.isError, false, JSON.stringify(fromA.result));
      assert.deepEqual([fromA.result.metadata.ref_commit, fromA.result.results[0].path], [
        commit,
        "auth/rate_limiter.go",
      ]);
      const fromB = await call(b.port, "locate_symbol", { name: "CheckRateLimit" }, "s3cret-token");
      assert.deepEqual(fromB.result, fromA.result);
      // Without the token the second replica refuses, as the local server does.
      assert.equal((await call(b.port, "locate_symbol", { name: "CheckRateLimit" })).status, 401);
      // A bad argument is a tool error with the registry code.
      const bad = await call(a.port, "search_code", { query: "" });
      assert.deepEqual([bad.isError, bad.result.error.code], [true, "invalid_input"]);
      // Over stdio too: the same tools listed, the same answer.
      const stdio = await stdioClient(home, ["--store", reader]);
      try {
        // Every index-reading tool, open_file and index_repo (a request to the workers); nothing that needs a
        // working tree or a job runner of its own.
        const names = (await stdio.client.listTools()).tools.map((t) => t.name);
        const readers = ["search_code", "locate_symbol", "get_file_outline", "find_references", "get_call_graph"];
        for (const n of [...readers, "get_code_context", "open_file", "tool_help"]) assert.ok(names.includes(n), n);
        for (const n of ["sync_repo", "switch_ref", "ask_code"]) assert.ok(!names.includes(n), n);
        const viaStdio = await stdio.client.callTool({ name: "locate_symbol", arguments: { name: "CheckRateLimit" } });
        assert.deepEqual(viaStdio.structuredContent, fromA.result, stdio.stderr());
      } finally {
        await stdio.client.close();
      }
      // Replica A dies; B keeps answering from the same store.
      a.child.kill("SIGKILL");
      await a.child.status;
      const after = await call(b.port, "open_file", { path: "auth/jwt.go", startLine: 1, endLine: 1 }, "s3cret-token");
      assert.deepEqual([after.result.content, after.result.metadata.ref_commit], ["package auth\n", commit]);
    } finally {
      for (const r of replicas) await r.stop().catch(() => {});
      await admin.close();
      await pg.destroy();
      Deno.removeSync(home, { recursive: true });
      Deno.removeSync(repo, { recursive: true });
    }
  },
});

Deno.test({
  name: "team replicas: a streaming replica serves --read-store reads of what it replayed, also with the primary down",
  ignore: !HAVE_PG,
  fn: async () => {
    const pg = (await startPgCluster())!;
    const standby = await startStandby(pg);
    const home = Deno.makeTempDirSync({ prefix: "cruxe-standby-home-" });
    const repo = copyFixture("go_basic", { git: true });
    const mirror = new PgPool(standby.url);
    let served: Awaited<ReturnType<typeof replica>> | null = null;
    try {
      await cruxe(home, ["index", "--store", pg.url, "--path", repo, "--ref", "main"]);
      const commit = git(repo, "rev-parse", "main").trim();
      // Replayed when the standby's head names the commit (before that the schema or the row is not there yet).
      await waitFor(
        async () => {
          try {
            const r = await mirror.query("SELECT commit_id FROM cruxe.ref_heads WHERE ref = 'main'");
            return r[0]?.commit_id === commit;
          } catch {
            return false;
          }
        },
        60_000,
        "the standby to replay the publish",
      );
      const read = ["locate", "ValidateToken", "--read-store", standby.url, "--json"];
      const before = await runCruxe(home, read);
      assert.equal(before.code, 0, before.stderr);
      assert.deepEqual([before.json.metadata.ref_commit, before.json.results[0].path], [commit, "auth/jwt.go"]);
      // Writes cannot go to the standby.
      const write = await runCruxe(home, ["repo", "add", repo, "--store", standby.url, "--json"]);
      assert.equal(write.json.error.code, "storage_unavailable");
      // A served replica reading the standby (the sandbox grants its address, not the primary's use).
      served = await replica(home, pg.url, "--read-store", standby.url);
      // The primary stops: reads from the standby go on, from the CLI and the served replica alike.
      await pg.stop();
      const after = await runCruxe(home, read);
      assert.deepEqual(after.json, before.json);
      const viaMcp = await call(served.port, "locate_symbol", { name: "ValidateToken" });
      assert.deepEqual(viaMcp.result, before.json);
    } finally {
      await served?.stop().catch(() => {});
      await mirror.close();
      await standby.destroy();
      await pg.destroy();
      Deno.removeSync(home, { recursive: true });
      Deno.removeSync(repo, { recursive: true });
    }
  },
});

Deno.test({
  name: "team replicas: after index_repo, the session's next read waits until the streaming replica serves the publish",
  ignore: !HAVE_PG,
  fn: async () => {
    const pg = (await startPgCluster())!;
    const standby = await startStandby(pg);
    const home = Deno.makeTempDirSync({ prefix: "cruxe-ryw-home-" });
    const repo = copyFixture("go_basic", { git: true });
    const worker = spawnCruxe(home, ["worker", "--store", pg.url, "--poll-ms", "100", "--lease-seconds", "5"]);
    void worker.stdout.cancel();
    void worker.stderr.cancel();
    let session: Awaited<ReturnType<typeof stdioClient>> | null = null;
    let served: Awaited<ReturnType<typeof replica>> | null = null;
    try {
      await cruxe(home, ["index", "--store", pg.url, "--path", repo, "--ref", "main"]);
      // A branch the workers were never asked about.
      git(repo, "checkout", "-q", "-b", "feature");
      Deno.writeTextFileSync(`${repo}/auth/feature.go`, "package auth\n\nfunc FeatureFlag() bool { return true }\n");
      git(repo, "add", "-A");
      git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "feature");
      const feature = git(repo, "rev-parse", "feature").trim();
      session = await stdioClient(home, ["--store", pg.url, "--read-store", standby.url]);
      const call = async (name: string, args: Record<string, unknown>) =>
        (await session!.client.callTool({ name, arguments: args })).structuredContent as Record<string, unknown>;
      const asked = await call("index_repo", { ref: "feature" });
      assert.equal(asked.status, "queued", JSON.stringify(asked));
      // No sleep and no retry: the read itself waits for the publish to reach the standby.
      const found = await call("locate_symbol", { name: "FeatureFlag", ref: "feature" });
      assert.deepEqual(
        [(found.metadata as { ref_commit: string }).ref_commit, (found.results as { path: string }[])[0]?.path],
        [feature, "auth/feature.go"],
        JSON.stringify(found),
      );
      assert.equal((found.metadata as { warnings?: string[] }).warnings, undefined);
      // Over HTTP (no session) the call itself waits with wait: true; a ref the repository lacks is refused.
      served = await replica(home, pg.url, "--read-store", standby.url);
      const waited = await call2(served.port, "index_repo", { ref: "main", wait: true });
      assert.deepEqual([waited.result.status, waited.result.commit], [
        "published",
        git(repo, "rev-parse", "main").trim(),
      ]);
      const missing = await call2(served.port, "index_repo", { ref: "nope", wait: true });
      assert.deepEqual([missing.isError, missing.result.error.code], [true, "ref_not_indexed"]);
    } finally {
      await session?.client.close();
      await served?.stop().catch(() => {});
      worker.kill("SIGKILL");
      await worker.status;
      await standby.destroy();
      await pg.destroy();
      Deno.removeSync(home, { recursive: true });
      Deno.removeSync(repo, { recursive: true });
    }
  },
});

/** `call` under another name for the test above (HTTP, no token). */
const call2 = (port: number, name: string, args: unknown) => call(port, name, args);
