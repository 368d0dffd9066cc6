import assert from "node:assert/strict";
import { join } from "node:path";
import { copyFixture, indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { locateSymbol } from "../src/query/locate_symbol.ts";
import { openIndexForRead } from "../src/state/project_index.ts";
import type { Db } from "../src/state/db.ts";

/** Row counts of every table (full-text shadow tables aside), as a fingerprint of an index's content. */
function counts(db: Db): Record<string, number> {
  const out: Record<string, number> = {};
  const tables = db.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%fts%' " +
      "AND name != 'meta'",
  ).all() as { name: string }[];
  for (const t of tables) {
    out[t.name] = Number((db.prepare(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n);
  }
  out.symbols_fts = Number(
    (db.prepare("SELECT count(*) AS n FROM symbols_fts WHERE symbols_fts MATCH 'validate'").get() as { n: number }).n,
  );
  return out;
}

Deno.test("index --force empties and reloads the index: same rows as a cold index, old readers see the old rows until it publishes", async () => {
  const h = tempHome();
  const cold = tempHome();
  try {
    const dir = copyFixture("go_basic");
    const { project } = await indexDir(h, dir);
    // Change the tree: a file gone, one added; then force a rebuild.
    const gone = [...Deno.readDirSync(join(dir, "auth"))].find((e) => e.name.endsWith(".go") && e.name !== "jwt.go")!;
    Deno.removeSync(join(dir, "auth", gone.name));
    Deno.writeTextFileSync(
      join(dir, "auth", "extra.go"),
      "package auth\n\nfunc ValidateExtra() bool { return true }\n",
    );

    const { db: before } = openIndexForRead(h.registry.projectDir(project.project_id));
    const oldCounts = counts(before!);
    before!.exec("BEGIN"); // a reader mid-read keeps its snapshot while the rebuild runs
    counts(before!);
    const job = await h.runner.start(project, { mode: "full", force: true }).active.done;
    assert.equal(job.status, "published");
    assert.deepEqual(counts(before!), oldCounts, "the open read transaction still sees the old index");
    before!.exec("COMMIT");
    before!.close();

    const { project: p2 } = await indexDir(cold, dir);
    const r1 = new IndexReaders(h.registry);
    const r2 = new IndexReaders(cold.registry);
    try {
      const forced = requireIndex(r1.view(project));
      const fresh = requireIndex(r2.view(p2));
      assert.deepEqual(counts(forced), counts(fresh));
      // Emptied whole, not row by row: row ids start again from 1, as in a cold index.
      assert.equal(Number((forced.prepare("SELECT min(id) AS m FROM symbols").get() as { m: number }).m), 1);
      assert.equal(locateSymbol(forced, { name: "ValidateExtra" }).results[0].path, "auth/extra.go");
      assert.equal(
        locateSymbol(forced, { name: "ValidateToken" }).results.filter((r) => r.match === "definition").length,
        1,
      );
    } finally {
      r1.closeAll();
      r2.closeAll();
    }
  } finally {
    h.close();
    cold.close();
  }
});
