/**
 * A store built with older extraction rules for a language is brought up to
 * the current ones at its next whole-tree sync: that language's files are
 * parsed again though unchanged, the others are not, and the store records
 * the rules it now holds.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { copyFixture, indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { openDb } from "../src/state/db.ts";
import { indexPath } from "../src/state/project_index.ts";
import { languagesWithNewRules, rulesVersions } from "../src/index/languages/registry.ts";

Deno.test("a sync parses again the files of a language whose extraction rules changed, and only those", async () => {
  const h = tempHome();
  const dir = copyFixture("c_basic");
  try {
    // More files of other languages than of C: the C files are replaced one by one.
    for (const n of ["helper", "a", "b", "c"]) {
      Deno.writeTextFileSync(join(dir, `${n}.py`), `def ${n}():\n    return 1\n`);
    }
    const { project, status } = await indexDir(h, dir);
    assert.equal(status, "published");
    const store = indexPath(h.registry.projectDir(project.project_id));
    const db = openDb(store);
    const meta = (k: string) => (db.prepare("SELECT value FROM meta WHERE key = ?").get(k) as { value: string }).value;
    const names = () =>
      (db.prepare("SELECT name FROM symbol_rows ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    try {
      assert.deepEqual(JSON.parse(meta("rules_versions")), rulesVersions());
      const built = names();
      // A store of an older build: its rows were extracted by other rules (here: renamed by hand), and it
      // records another version of the C rules.
      const older = { ...rulesVersions(), c: 0 };
      db.prepare("UPDATE meta SET value = ? WHERE key = 'rules_versions'").run(JSON.stringify(older));
      db.exec(`UPDATE symbol_rows SET name = 'old_' || name`);
      assert.deepEqual([...languagesWithNewRules(older)], ["c"]);

      const job = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
      assert.equal(job.status, "published");
      const cFiles = Number(
        (db.prepare("SELECT count(*) AS n FROM files WHERE language = 'c'").get() as { n: number }).n,
      );
      assert.ok(cFiles > 0);
      assert.equal(job.changed_files, cFiles);
      // The C files' rows are extracted anew; the Python file's, unchanged, are not.
      const after = names();
      const py = ["a", "b", "c", "helper"];
      assert.deepEqual(after.filter((n) => !n.startsWith("old_")), built.filter((n) => !py.includes(n)));
      assert.deepEqual(after.filter((n) => n.startsWith("old_")), py.map((n) => `old_${n}`));
      assert.deepEqual(JSON.parse(meta("rules_versions")), rulesVersions());

      const again = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
      assert.equal(again.changed_files, 0);
    } finally {
      db.close();
    }
  } finally {
    h.close();
  }
});

Deno.test("new extraction rules for most of an index's files rebuild it whole, as --force does", async () => {
  const h = tempHome();
  const dir = copyFixture("c_basic");
  try {
    Deno.writeTextFileSync(join(dir, "helper.py"), "def helper():\n    return 1\n");
    const { project } = await indexDir(h, dir);
    const db = openDb(indexPath(h.registry.projectDir(project.project_id)));
    const names = () =>
      (db.prepare("SELECT name FROM symbol_rows ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    try {
      const built = names();
      db.prepare("UPDATE meta SET value = ? WHERE key = 'rules_versions'").run(
        JSON.stringify({ ...rulesVersions(), c: 0 }),
      );
      db.exec(`UPDATE symbol_rows SET name = 'old_' || name`);
      const job = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
      assert.equal(job.status, "published");
      // Every file is parsed again, the Python one too.
      assert.deepEqual(names(), built);
      assert.equal(job.changed_files, Number((db.prepare("SELECT count(*) AS n FROM files").get() as { n: number }).n));
    } finally {
      db.close();
    }
  } finally {
    h.close();
  }
});

Deno.test("a store that records no rules versions was built with version 1 of every language", () => {
  assert.deepEqual(
    [...languagesWithNewRules({})],
    Object.entries(rulesVersions()).filter(([, v]) => v !== 1).map(([k]) => k),
  );
  assert.ok(languagesWithNewRules({}).has("c"), "C's rules are past version 1");
  assert.equal(languagesWithNewRules(rulesVersions()).size, 0);
});
