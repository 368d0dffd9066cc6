/**
 * The team store against a real PostgreSQL (a throwaway cluster per test,
 * `tests/helpers/pg_cluster.ts`): a git ref indexed into it and the core
 * query commands answering from it with the commit they read; workers
 * racing for jobs (each job runs once); a worker killed mid-job (another
 * finishes it when the lease runs out, and readers see the old commit until
 * then); the database stopped under a long-lived store (`storage_unavailable`,
 * then the same answers once it is back). Skipped, saying so, only when no
 * PostgreSQL binaries are installed (`.ci/run` installs them).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { NO_PG, pgBinDir, type PgCluster, startPgCluster } from "./helpers/pg_cluster.ts";
import { commitAll, copyFixture, git } from "./helpers/fixture_repo.ts";
import { runCruxe, spawnCruxe } from "./helpers/team_cli.ts";
import { waitFor, within } from "./mcp_helpers.ts";
import { MAX_CLAIMS, PgTeamStore } from "../src/state/pg/pg_team_store.ts";
import { withTeamService } from "./helpers/team_service.ts";

const dec = new TextDecoder();
const HAVE_PG = pgBinDir() !== null;
if (!HAVE_PG) console.warn(`pg_team_test.ts: ${NO_PG}`);

Deno.test({
  name: "CI has PostgreSQL: the team-store tests never skip there",
  ignore: !Deno.env.get("CI"),
  fn: () => assert.ok(HAVE_PG, NO_PG),
});

const cruxe = runCruxe;

/** Runs `fn` with a fresh cluster, a temporary Cruxe home, and a copy of go_basic as a git repository. */
async function withTeam(fn: (pg: PgCluster, home: string, repo: string) => Promise<void>): Promise<void> {
  const pg = (await startPgCluster())!;
  const home = Deno.makeTempDirSync({ prefix: "cruxe-team-home-" });
  const repo = copyFixture("go_basic", { git: true });
  try {
    await fn(pg, home, repo);
  } finally {
    await pg.destroy();
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(repo, { recursive: true });
  }
}

/** Runs a query against the store in this process (a long-lived reader, as a server is). */
async function withStore<T>(url: string, fn: (s: PgTeamStore) => Promise<T>): Promise<T> {
  const s = await PgTeamStore.open(url, { migrate: false, max: 2 });
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

Deno.test({
  name: "team store: a ref indexed into PostgreSQL answers locate, outline, search and open, naming its commit",
  ignore: !HAVE_PG,
  fn: () =>
    withTeam(async (pg, home, repo) => {
      const commit = git(repo, "rev-parse", "main").trim();
      const idx = await cruxe(home, ["index", "--store", pg.url, "--path", repo, "--ref", "main", "--json"]);
      assert.equal(idx.code, 0, idx.stderr);
      assert.deepEqual(idx.json.heads.map((h: { ref: string; commit: string }) => [h.ref, h.commit]), [[
        "main",
        commit,
      ]]);
      const q = (cmd: string, arg: string, ...more: string[]) =>
        cruxe(home, [cmd, arg, "--store", pg.url, "--json", ...more]);
      const loc = await q("locate", "ValidateToken");
      assert.equal(loc.code, 0, loc.stderr);
      assert.deepEqual([loc.json.metadata.ref, loc.json.metadata.ref_commit], ["main", commit]);
      assert.deepEqual(
        loc.json.results.map((r: { path: string; line_start: number; kind: string }) => [r.path, r.line_start, r.kind]),
        [["auth/jwt.go", 23, "function"]],
      );
      const outline = await q("outline", "auth/jwt.go");
      const names = outline.json.symbols.map((s: { name: string }) => s.name);
      for (const n of ["Claims", "Validator", "ValidateToken", "parseClaims"]) {
        assert.ok(names.includes(n), names.join());
      }
      assert.equal(outline.json.metadata.ref_commit, commit);
      const search = await q("search", "check rate limit");
      assert.equal(search.code, 0, search.stderr);
      assert.ok(search.json.results.length > 0);
      assert.equal(search.json.results[0].path, "auth/rate_limiter.go");
      const open = await q("open", "auth/jwt.go", "--start", "23", "--end", "23");
      assert.equal(open.json.content, Deno.readTextFileSync(join(repo, "auth/jwt.go")).split("\n")[22] + "\n");
      assert.equal(open.json.metadata.ref_commit, commit);
      // A file that is not in the commit, and a ref never indexed: the registry's codes.
      assert.equal((await q("open", "nope.go")).json.error.code, "file_not_found");
      assert.equal((await q("locate", "ValidateToken", "--ref", "dev")).json.error.code, "ref_not_indexed");

      // Every tool a replica answers gives what a local index of the same commit gives, metadata included.
      const local = await cruxe(home, ["index", "--path", repo, "--ref", "main", "--json"]);
      assert.equal(local.code, 0, local.stderr);
      for (
        const argv of [
          ["locate", "ValidateToken"],
          ["search", "check rate limit"],
          ["outline", "auth/jwt.go"],
          ["refs", "ValidateToken"],
          ["callgraph", "ValidateToken"],
          ["context", "rate limiting"],
          ["hierarchy", "ValidateToken"],
          ["related", "ValidateToken"],
          ["impls", "Validator"],
        ]
      ) {
        const team = await q(argv[0], argv[1], "--ref", "main");
        const own = await cruxe(home, [...argv, "--workspace", repo, "--ref", "main", "--json"]);
        assert.equal(own.code, team.code, `${argv.join(" ")}: ${own.stderr} ${team.stderr}`);
        assert.deepEqual(team.json, own.json, argv.join(" "));
      }

      // status says what is published; the config's store stands for --store.
      const status = await cruxe(home, ["status", "--store", pg.url, "--json"]);
      assert.deepEqual(status.json.heads.map((h: { ref: string; commit: string }) => [h.ref, h.commit]), [[
        "main",
        commit,
      ]]);
      const config = join(home, "team.json");
      Deno.writeTextFileSync(config, JSON.stringify({ store: pg.url }));
      const viaConfig = await cruxe(home, ["locate", "ValidateToken", "--config", config, "--json"]);
      assert.deepEqual(viaConfig.json, loc.json);
      assert.equal((await q("locate", "x", "--repo", "nope")).json.error.code, "project_not_found");

      // The ref moves: indexing again publishes the new commit and drops the old snapshot.
      Deno.writeTextFileSync(join(repo, "auth/extra.go"), "package auth\n\nfunc RotateKeys() {}\n");
      commitAll(repo, "rotate");
      const next = git(repo, "rev-parse", "main").trim();
      assert.equal((await cruxe(home, ["index", "--store", pg.url, "--path", repo, "--json"])).code, 0);
      const moved = await q("locate", "RotateKeys");
      assert.equal(moved.json.metadata.ref_commit, next);
      assert.equal(moved.json.results[0].path, "auth/extra.go");
      await withStore(pg.url, async (s) => {
        const snaps = await s.pool.query("SELECT commit_id FROM cruxe.snapshots");
        assert.deepEqual(snaps.map((r) => r.commit_id), [next]);
        // The replaced head's shard went with it; blobs the new commit still has stayed.
        assert.equal((await s.pool.query("SELECT id FROM cruxe.shards")).length, 1);
        const blobs = await s.pool.query("SELECT count(*)::int AS n FROM cruxe.blobs");
        const files = await s.pool.query("SELECT count(DISTINCT blob_oid)::int AS n FROM cruxe.files");
        assert.equal(blobs[0].n, files[0].n);
      });
    }),
});

/** Makes `n` branches `b1`…`bn` in `repo`, each one commit apart. */
function branches(repo: string, n: number): void {
  for (let i = 1; i <= n; i++) {
    git(repo, "checkout", "-q", "-b", `b${i}`, "main");
    Deno.writeTextFileSync(join(repo, `auth/b${i}.go`), `package auth\n\nfunc Branch${i}() int { return ${i} }\n`);
    commitAll(repo, `b${i}`);
  }
  git(repo, "checkout", "-q", "main");
}

/** Spawns `cruxe worker` with its own home (a 2 s lease unless `--lease-seconds` is among `args`). */
function spawnWorker(url: string, env: Record<string, string>, ...args: string[]): Deno.ChildProcess {
  const home = Deno.makeTempDirSync({ prefix: "cruxe-worker-home-" });
  const lease = args.includes("--lease-seconds") ? [] : ["--lease-seconds", "2"];
  const flags = ["--store", url, "--poll-ms", "100", ...lease, "--json"];
  return spawnCruxe(home, ["worker", ...flags, ...args], env);
}

Deno.test({
  name: "team store: two workers racing for six jobs run each exactly once and publish all six refs",
  ignore: !HAVE_PG,
  fn: () =>
    withTeam(async (pg, home, repo) => {
      branches(repo, 6);
      const add = await cruxe(home, ["repo", "add", repo, "--refs", "b*", "--store", pg.url, "--json"]);
      assert.equal(add.code, 0, add.stderr);
      assert.equal(add.json.queued.length, 6);
      // Each build held a second before its publish, so the second worker starts while the first holds a job.
      const env = { CRUXE_TEST_WORKER_STALL_MS: "1000" };
      // Leases long enough that a loaded machine's late renewal never hands a running job to the other worker.
      const once = ["--once", "--lease-seconds", "30"];
      const workers = [spawnWorker(pg.url, env, ...once), spawnWorker(pg.url, env, ...once)];
      const done = Promise.all(workers.map((w) => w.output()));
      try {
        // A bound, not a sleep: workers that keep taking jobs from each other never finish.
        await within(done, 90_000, "both workers to finish every job");
      } finally {
        for (const w of workers) {
          try {
            w.kill("SIGKILL");
          } catch { /* already exited */ }
        }
      }
      const outs = await done;
      for (const o of outs) assert.equal(o.code, 0, dec.decode(o.stderr));
      const published = outs.map((o) => JSON.parse(dec.decode(o.stdout)).published as number);
      assert.equal(published[0] + published[1], 6, `published per worker: ${published}`);
      await withStore(pg.url, async (s) => {
        const jobs = await s.pool.query(
          `SELECT j.id, j.status, j.attempts, (SELECT count(*)::int FROM cruxe.job_events e
             WHERE e.job_id = j.id AND e.event = 'claimed') AS claims
           FROM cruxe.jobs j ORDER BY j.id`,
        );
        assert.equal(jobs.length, 6);
        for (const j of jobs) assert.deepEqual([j.status, j.attempts, j.claims], ["done", 1, 1], `job ${j.id}`);
        const heads = await s.pool.query("SELECT ref, commit_id FROM cruxe.ref_heads ORDER BY ref");
        assert.deepEqual(
          heads.map((h) => [h.ref, h.commit_id]),
          [1, 2, 3, 4, 5, 6].map((i) => [`b${i}`, git(repo, "rev-parse", `b${i}`).trim()]),
        );
      });
    }),
});

Deno.test({
  name:
    "team store: a worker killed mid-job is replaced when its lease runs out; readers see the old commit until then",
  ignore: !HAVE_PG,
  fn: () =>
    withTeam(async (pg, home, repo) => {
      assert.equal((await cruxe(home, ["index", "--store", pg.url, "--path", repo, "--ref", "main"])).code, 0);
      const old = git(repo, "rev-parse", "main").trim();
      Deno.writeTextFileSync(join(repo, "auth/extra.go"), "package auth\n\nfunc RotateKeys() {}\n");
      commitAll(repo, "rotate");
      const next = git(repo, "rev-parse", "main").trim();
      assert.equal((await cruxe(home, ["repo", "add", repo, "--refs", "main", "--store", pg.url])).code, 0);
      // Worker A builds the new commit, then holds before publishing; it is killed there.
      const a = spawnWorker(pg.url, { CRUXE_TEST_WORKER_STALL_MS: "600000" });
      const stderr = a.stderr.pipeThrough(new TextDecoderStream()).getReader();
      let seen = "";
      try {
        await waitFor(
          async () => {
            const { value, done } = await stderr.read();
            seen += value ?? "";
            return done || /built, holding/.test(seen);
          },
          60_000,
          "worker A to build its job",
        );
        assert.match(seen, /built, holding/);
        // Built but not published: readers still get the old commit, whole.
        await withTeamService(pg.url, async (call) => {
          const r = await call("locate_symbol", { name: "RotateKeys", ref: "main" });
          const code = (r.error as { code: string } | undefined)?.code;
          assert.deepEqual([(r.metadata as { ref_commit: string }).ref_commit, code], [old, "symbol_not_found"]);
        });
      } finally {
        a.kill("SIGKILL");
        await stderr.cancel();
        await a.status;
        await a.stdout.cancel();
      }
      // Worker B waits for A's lease to run out, takes the job over and publishes it.
      const b = await spawnWorker(pg.url, {}, "--once").output();
      assert.equal(b.code, 0, dec.decode(b.stderr));
      assert.equal(JSON.parse(dec.decode(b.stdout)).published, 1);
      await withStore(pg.url, async (s) => {
        const [job] = await s.pool.query("SELECT id, status, attempts FROM cruxe.jobs WHERE commit_id = $1", [next]);
        assert.deepEqual([job.status, job.attempts], ["done", 2]);
        const events = await s.pool.query("SELECT worker, event FROM cruxe.job_events WHERE job_id = $1 ORDER BY at", [
          job.id,
        ]);
        assert.deepEqual(events.map((e) => e.event), ["claimed", "claimed", "published"]);
        assert.notEqual(events[0].worker, events[1].worker);
        assert.equal(events[1].worker, events[2].worker);
      });
      await withTeamService(pg.url, async (call) => {
        const r = await call("locate_symbol", { name: "RotateKeys" });
        const path = (r.results as { path: string }[])[0]?.path;
        assert.deepEqual([(r.metadata as { ref_commit: string }).ref_commit, path], [next, "auth/extra.go"]);
      });
    }),
});

Deno.test({
  name: "team store: PostgreSQL stopped under a reader is storage_unavailable, then the same answers once it is back",
  ignore: !HAVE_PG,
  fn: () =>
    withTeam(async (pg, home, repo) => {
      assert.equal((await cruxe(home, ["index", "--store", pg.url, "--path", repo, "--ref", "main"])).code, 0);
      await withTeamService(pg.url, async (call) => {
        const before = await call("search_code", { query: "validate token" });
        assert.ok((before.results as unknown[]).length > 0);
        await pg.stop();
        const err = await call("search_code", { query: "validate token" });
        const e = err.error as { code: string; message: string; data: { reason: string } };
        assert.equal(err.isError, true);
        assert.equal(e.code, "storage_unavailable");
        assert.ok(["unreachable", "connection_lost", "shutting_down"].includes(e.data.reason), e.message);
        assert.equal(e.message.includes("postgres://postgres@127.0.0.1"), true, e.message);
        // The CLI says the same, as its one error line.
        const cli = await cruxe(home, ["search", "validate token", "--store", pg.url, "--json"]);
        assert.equal(cli.json.error.code, "storage_unavailable");
        await pg.start();
        const after = await call("search_code", { query: "validate token" });
        assert.deepEqual(after, before);
      });
    }),
});

Deno.test({
  name: "team store: a job whose every worker dies is failed after its last claim, not retried forever",
  ignore: !HAVE_PG,
  fn: async () => {
    const pg = (await startPgCluster())!;
    const store = await PgTeamStore.open(pg.url, { migrate: true, max: 2 });
    try {
      const repo = await store.addRepo("r", "/nonexistent/r", ["main"]);
      const id = await store.enqueue(repo.id, "main", "a".repeat(40));
      assert.ok(id !== null);
      // Each claim's lease (50 ms) runs out unrenewed, as a killed worker's does; the next claim takes the job over.
      for (let i = 1; i <= MAX_CLAIMS; i++) {
        let job = null;
        await waitFor(async () => (job = await store.claim(`w${i}`, 0.05)) !== null, 20_000, `claim ${i}`);
        assert.equal(job!.attempts, i);
      }
      // The next look for work, once the last lease ran out, fails the job instead of claiming it.
      await waitFor(
        async () => (await store.claim("late", 60)) === null && (await store.openJobs()) === 0,
        20_000,
        "the job to be given up",
      );
      const [row] = await store.pool.query("SELECT status, error FROM cruxe.jobs WHERE id = $1", [id]);
      assert.equal(row.status, "failed");
      assert.match(String(row.error), /gave up/);
    } finally {
      await store.close();
      await pg.destroy();
    }
  },
});

Deno.test({
  name: "team store: a repository registered by URL is fetched into the worker's own copy, and again when it moves",
  ignore: !HAVE_PG,
  fn: () =>
    withTeam(async (pg, home, repo) => {
      const url = `file://${repo}`;
      const first = await cruxe(home, ["index", "--store", pg.url, "--path", url, "--ref", "main", "--json"]);
      assert.equal(first.code, 0, first.stderr);
      const q = (name: string) => cruxe(home, ["locate", name, "--store", pg.url, "--json"]);
      const loc = await q("ValidateToken");
      assert.deepEqual(
        [loc.json.metadata.ref_commit, loc.json.results[0]?.path],
        [git(repo, "rev-parse", "main").trim(), "auth/jwt.go"],
      );
      // The upstream moves: registering again fetches and queues the new commit; a worker publishes it.
      Deno.writeTextFileSync(join(repo, "auth/extra.go"), "package auth\n\nfunc RotateKeys() {}\n");
      commitAll(repo, "rotate");
      const again = await cruxe(home, ["repo", "add", url, "--refs", "main", "--store", pg.url, "--json"]);
      assert.equal(again.json.queued.length, 1, again.stderr);
      const w = await cruxe(home, ["worker", "--store", pg.url, "--once", "--json"]);
      assert.equal(w.json.published, 1, w.stderr);
      const moved = await q("RotateKeys");
      assert.deepEqual(
        [moved.json.metadata.ref_commit, moved.json.results[0]?.path],
        [git(repo, "rev-parse", "main").trim(), "auth/extra.go"],
      );
      // The copy lives in the worker's home, not in the repository (nothing was written there).
      assert.equal(git(repo, "status", "--porcelain").trim(), "");
      // A scheme Cruxe does not fetch over is refused before anything is registered.
      const bad = await cruxe(home, [
        "repo",
        "add",
        "ftp://example.invalid/x.git",
        "--refs",
        "main",
        "--store",
        pg.url,
      ]);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /invalid_input|fetches repositories over/);
    }),
});

Deno.test({
  name: "team store: a shard whose copy does not match its digest is never read, and the next good copy is",
  ignore: !HAVE_PG,
  fn: () =>
    withTeam(async (pg, home, repo) => {
      assert.equal((await cruxe(home, ["index", "--store", pg.url, "--path", repo, "--ref", "main"])).code, 0);
      const [shard] = await withStore(pg.url, (s) => s.pool.query("SELECT id, digest FROM cruxe.shards"));
      await withStore(pg.url, (s) => s.pool.query("UPDATE cruxe.shards SET digest = $1", ["f".repeat(64)]));
      await withTeamService(pg.url, async (call) => {
        const bad = await call("locate_symbol", { name: "ValidateToken" });
        const e = bad.error as { code: string; data: { reason: string } };
        assert.deepEqual([bad.isError, e.code, e.data.reason], [true, "storage_unavailable", "shard_damaged"]);
        // The digest put back: the same replica copies it again and answers.
        await withStore(pg.url, (s) => s.pool.query("UPDATE cruxe.shards SET digest = $1", [shard.digest]));
        const good = await call("locate_symbol", { name: "ValidateToken" });
        assert.equal((good.results as { path: string }[])[0]?.path, "auth/jwt.go", JSON.stringify(good));
      });
    }),
});
