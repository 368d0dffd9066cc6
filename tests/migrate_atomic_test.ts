/**
 * Store migrations are one transaction (`migrate` in `src/state/schema.ts`):
 * a reader of a store being created or upgraded sees it before or after,
 * never at a schema number in between (which would read as an index an
 * older Cruxe wrote, `index_incompatible`, during a first index).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { getMeta, openDb, tableNames } from "../src/state/db.ts";
import { migrate } from "../src/state/schema.ts";

Deno.test("a migration that fails part way leaves the store as it was, not at the steps before it", () => {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-migrate-" });
  const db = openDb(join(dir, "index.db"));
  try {
    const steps = ["CREATE TABLE a (x)", "CREATE TABLE b (y)", "CREATE TABLE c (z) BROKEN SQL"];
    assert.throws(() => migrate(db, steps));
    assert.equal(tableNames(db).has("a"), false);
    assert.equal(tableNames(db).has("meta"), false, "not even the schema number was written");
    // The steps that work, run together: the store is at their last version at once.
    migrate(db, steps.slice(0, 2));
    assert.equal(getMeta(db, "schema_version"), "2");
    assert.ok(tableNames(db).has("a") && tableNames(db).has("b"));
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
