/**
 * Least privilege in the team store, against a real PostgreSQL: after
 * `cruxe store-setup`, a login in the reader role answers queries but can
 * write nothing; a login in the writer role queues, claims and publishes jobs
 * but can create nothing (no table in Cruxe's schema or any other). Both
 * refusals are `storage_unavailable` with reason `permission_denied`.
 * Skipped, saying so, only when no PostgreSQL binaries are installed.
 */
import assert from "node:assert/strict";
import { NO_PG, pgBinDir, startPgCluster } from "./helpers/pg_cluster.ts";
import { copyFixture } from "./helpers/fixture_repo.ts";
import { runCruxe } from "./helpers/team_cli.ts";
import { PgPool } from "../src/state/pg/pg_pool.ts";
import { PgTeamStore } from "../src/state/pg/pg_team_store.ts";
import { withTeamService } from "./helpers/team_service.ts";
import { CruxeError } from "../src/core/errors.ts";

const HAVE_PG = pgBinDir() !== null;
if (!HAVE_PG) console.warn(`pg_roles_test.ts: ${NO_PG}`);

/** Runs `cruxe args…`; fails the test on a non-zero exit. */
async function cruxe(home: string, args: string[]): Promise<void> {
  const r = await runCruxe(home, args);
  assert.equal(r.code, 0, r.stderr);
}

/** The registry error `p` rejects with. */
async function refusal(p: Promise<unknown>): Promise<CruxeError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof CruxeError, String(e));
    return e;
  }
  assert.fail("no refusal");
}

Deno.test({
  name: "team store roles: the reader only reads, the writer writes rows of Cruxe's schema and creates nothing",
  ignore: !HAVE_PG,
  fn: async () => {
    const pg = (await startPgCluster())!;
    const home = Deno.makeTempDirSync({ prefix: "cruxe-roles-home-" });
    const repo = copyFixture("go_basic", { git: true });
    const admin = new PgPool(pg.url);
    try {
      await cruxe(home, ["store-setup", "--store", pg.url]);
      await admin.query("CREATE ROLE replica1 LOGIN PASSWORD 'r-secret' IN ROLE cruxe_reader");
      await admin.query("CREATE ROLE worker1 LOGIN PASSWORD 'w-secret' IN ROLE cruxe_writer");
      // The writer registers and indexes (claim, publish): rows only.
      await cruxe(home, ["index", "--store", pg.urlFor("worker1", "w-secret"), "--path", repo, "--ref", "main"]);
      const writer = await PgTeamStore.open(pg.urlFor("worker1", "w-secret"), { migrate: true });
      try {
        for (
          const ddl of ["CREATE TABLE cruxe.evil (x int)", "CREATE TABLE public.evil (x int)", "DROP TABLE cruxe.jobs"]
        ) {
          const e = await refusal(writer.pool.query(ddl));
          assert.deepEqual([e.code, e.data.reason], ["storage_unavailable", "permission_denied"], ddl);
        }
      } finally {
        await writer.close();
      }
      const reader = await PgTeamStore.open(pg.urlFor("replica1", "r-secret"), { migrate: false });
      try {
        await withTeamService(pg.urlFor("replica1", "r-secret"), async (call) => {
          const r = await call("locate_symbol", { name: "ValidateToken" });
          assert.equal((r.results as { path: string }[])[0]?.path, "auth/jwt.go");
        });
        const [repoRow] = await reader.listRepos();
        const e = await refusal(reader.enqueue(repoRow.id, "main", "0".repeat(40)));
        assert.equal(e.code, "storage_unavailable");
        assert.ok(["permission_denied", "read_only"].includes(String(e.data.reason)), e.message);
        assert.equal(e.message.includes("r-secret"), false, "no password in the message");
        const d = await refusal(reader.pool.query("DELETE FROM cruxe.blobs"));
        assert.equal(d.code, "storage_unavailable");
      } finally {
        await reader.close();
      }
    } finally {
      await admin.close();
      await pg.destroy();
      Deno.removeSync(home, { recursive: true });
      Deno.removeSync(repo, { recursive: true });
    }
  },
});
