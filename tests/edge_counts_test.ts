import assert from "node:assert/strict";
import { join } from "node:path";
import { copyFixture, indexDir, tempHome, withIndex } from "./helpers/fixture_repo.ts";
import type { Db } from "../src/state/db.ts";
import { referenceCount } from "../src/state/read/edges.ts";
import { CALL_EDGE_KIND } from "../src/state/call_edges.ts";

/**
 * Every used name's count from `referenceCount` against a plain count of
 * its uses: the rows of the `edges` view and the call edges kept as
 * references (see call_edges.ts), by lower-case name (the fixtures' names
 * are ASCII: SQLite's `lower` gives it).
 */
function mismatches(db: Db): string[] {
  const names = (db.prepare(
    `SELECT target_lower AS t FROM edges UNION SELECT lower(n.name) FROM refs r JOIN ref_names n ON n.id = r.name_id
      WHERE r.kind = ${CALL_EDGE_KIND}`,
  ).all() as { t: string }[]).map((r) => r.t);
  assert.ok(names.length > 0, "the store has edges");
  const viewCount = db.prepare(
    `SELECT (SELECT count(*) FROM edges WHERE target_lower = ?1) + (SELECT count(*) FROM refs r
       JOIN ref_names n ON n.id = r.name_id WHERE r.kind = ${CALL_EDGE_KIND} AND lower(n.name) = ?1) AS n`,
  );
  const out: string[] = [];
  for (const t of [...names, "no_such_target_anywhere"]) {
    const want = Number((viewCount.get(t) as { n: number }).n);
    const got = referenceCount(db, t, undefined);
    if (got !== want) out.push(`${t}: ${got} against ${want}`);
  }
  return out;
}

/** The tree's source files (not its manifests), relative, sorted. */
function sourceFiles(dir: string, sub = ""): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(join(dir, sub))) {
    const rel = sub ? `${sub}/${e.name}` : e.name;
    if (e.isDirectory) out.push(...sourceFiles(dir, rel));
    else if (/\.(go|py|ts|java|c|h)$/.test(e.name)) out.push(rel);
  }
  return out.sort();
}

Deno.test("a name's use count read from the target index equals a plain count of its uses, before and after a sync", async () => {
  for (const fixture of ["nav_go", "nav_py", "nav_ts", "java_basic", "c_basic"]) {
    const h = tempHome();
    try {
      const dir = copyFixture(fixture);
      const { project, status } = await indexDir(h, dir);
      assert.equal(status, "published");
      assert.deepEqual(withIndex(h, project.project_id, mismatches), [], `${fixture} indexed`);
      // A sync that removes one file and rewrites another: their rows go, new ones take the next ids.
      const files = sourceFiles(dir);
      assert.ok(files.length >= 2, `${fixture}: ${files.length} source files`);
      Deno.removeSync(join(dir, files[0]));
      Deno.writeTextFileSync(join(dir, files[1]), Deno.readTextFileSync(join(dir, files[1])) + "\n");
      assert.equal((await indexDir(h, dir, { mode: "incremental" })).status, "published");
      assert.deepEqual(withIndex(h, project.project_id, mismatches), [], `${fixture} after a sync`);
    } finally {
      h.close();
    }
  }
});
