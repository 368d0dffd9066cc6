/**
 * An answer quoting a file edited since the last sync says `stale` and names
 * the file; one quoting only unchanged files stays `fresh`. Through the CLI,
 * which runs no watcher and no tree scan, so nothing else would notice.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { copyFixture } from "./helpers/fixture_repo.ts";
import { tempDir } from "./helpers/temp_dir.ts";
import { runCruxe } from "./helpers/cli_run.ts";

async function metadataOf(home: string, dir: string, args: string[]): Promise<Record<string, unknown>> {
  const out = await runCruxe(home, dir, [...args, "--json"]);
  assert.equal(out.code, 0, out.stderr);
  return JSON.parse(out.stdout).metadata;
}

Deno.test("an answer quoting a file changed since the last index is stale and names it", async () => {
  const dir = copyFixture("go_basic");
  const home = tempDir("cruxe-home-");
  assert.equal((await runCruxe(home, dir, ["index"])).code, 0);
  assert.equal((await metadataOf(home, dir, ["locate", "ValidateToken"])).freshness_status, "fresh");

  Deno.writeTextFileSync(join(dir, "auth", "jwt.go"), "\n// edited\n", { append: true });
  const edited = await metadataOf(home, dir, ["locate", "ValidateToken"]);
  assert.equal(edited.freshness_status, "stale");
  assert.match((edited.warnings as string[]).join("\n"), /1 file this answer quotes changed .*\(auth\/jwt\.go\)/);
  // An answer that quotes only unchanged files is still fresh.
  assert.equal((await metadataOf(home, dir, ["locate", "CheckRateLimit"])).freshness_status, "fresh");

  assert.equal((await runCruxe(home, dir, ["sync"])).code, 0);
  assert.equal((await metadataOf(home, dir, ["locate", "ValidateToken"])).freshness_status, "fresh");
});

Deno.test("a partial answer quoting a changed file is stale too", async () => {
  const dir = copyFixture("kconfig_basic");
  const home = tempDir("cruxe-home-");
  assert.equal((await runCruxe(home, dir, ["index"])).code, 0);
  Deno.writeTextFileSync(join(dir, "drivers", "serial", "Kconfig.debug"), "\n# edited\n", { append: true });
  // A Kconfig symbol's references are partial (its C uses are not recorded); the edited file still shows.
  const refs = await metadataOf(home, dir, ["refs", "CONFIG_SERIAL_CORE"]);
  assert.equal(refs.result_completeness, "partial");
  assert.equal(refs.freshness_status, "stale");
  assert.match((refs.warnings as string[]).join("\n"), /\(drivers\/serial\/Kconfig\.debug\)/);
  // For people, the CLI says what the partial answer leaves out.
  const shown = await runCruxe(home, dir, ["refs", "CONFIG_SERIAL_CORE"]);
  assert.match(shown.stdout + shown.stderr, /partial: uses spelled CONFIG_SERIAL_CORE in other languages/);
});
