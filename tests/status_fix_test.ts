/**
 * `cruxe status` names the fix every query's error names: an index written by an older Cruxe is upgraded in place by
 * a sync; one from a newer build, or damaged, needs `index --force`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { runCruxe } from "./helpers/cli_run.ts";
import { copyFixture } from "./helpers/fixture_repo.ts";
import { SCHEMA_VERSION } from "../src/core/version.ts";

/** The one project store under `home`. */
function storeOf(home: string): string {
  const projects = join(home, "projects");
  const [id] = [...Deno.readDirSync(projects)].filter((e) => e.isDirectory).map((e) => e.name);
  return join(projects, id, "index.db");
}

/** Makes the store claim schema `v`. */
function claimSchema(store: string, v: number): void {
  const db = new DatabaseSync(store);
  db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(v));
  db.close();
}

Deno.test("status: an older index is upgraded by a sync, a newer one needs index --force, as queries say", async () => {
  const repo = copyFixture("go_basic");
  const home = Deno.makeTempDirSync({ prefix: "cruxe-status-fix-" });
  try {
    assert.equal((await runCruxe(home, repo, ["index"])).code, 0);
    const store = storeOf(home);
    claimSchema(store, SCHEMA_VERSION - 1);
    const older = await runCruxe(home, repo, ["status"]);
    assert.match(older.stdout, new RegExp(`run \`cruxe sync --path ${repo}\`: it upgrades it in place`));
    assert.doesNotMatch(older.stdout, /index --force/);
    const query = await runCruxe(home, repo, ["locate", "ValidateToken"]);
    assert.match(query.stderr, new RegExp(`cruxe sync --path ${repo}`), "the query's error names the same fix");
    claimSchema(store, SCHEMA_VERSION + 1);
    const newer = await runCruxe(home, repo, ["status"]);
    assert.match(newer.stdout, new RegExp(`run \`cruxe index --force --path ${repo}\``));
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(repo, { recursive: true });
  }
});
