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

Deno.test("an upgrade keeps temporary storage in files while it runs, and in memory again after", () => {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-migrate-" });
  const db = openDb(join(dir, "index.db"));
  try {
    const tempStore = () => Number(db.prepare("PRAGMA temp_store").get()?.temp_store);
    assert.equal(tempStore(), 2, "a store connection keeps temporary storage in memory");
    const seen: number[] = [];
    const steps = ["CREATE TABLE a (x)", () => seen.push(tempStore()), "CREATE TABLE c (z) BROKEN SQL"];
    // A step rewriting a whole table journals its pages in temporary storage: files, not memory; an upgrade that
    // fails part way gives it back as well.
    assert.throws(() => migrate(db, steps));
    assert.deepEqual(seen, [1]);
    assert.equal(tempStore(), 2);
    migrate(db, steps.slice(0, 2));
    assert.deepEqual(seen, [1, 1]);
    assert.equal(tempStore(), 2);
    // An up-to-date store is left as it is.
    migrate(db, steps.slice(0, 2));
    assert.deepEqual(seen, [1, 1]);
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
