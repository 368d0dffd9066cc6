import assert from "node:assert/strict";
import { join } from "node:path";
import { copyFixture, indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { IndexReaders } from "../src/query/index_reader.ts";
import { damagedMarkerPath, indexPath } from "../src/state/project_index.ts";
import { DatabaseSync } from "node:sqlite";
import { SCHEMA_VERSION } from "../src/core/version.ts";

Deno.test("a healthy view is re-checked against its file once per interval: a replaced or damaged store is then seen", async () => {
  const h = tempHome();
  let now = 1_000;
  const readers = new IndexReaders(h.registry, () => now, 500);
  try {
    const { project } = await indexDir(h, copyFixture("go_basic"));
    const dir = h.registry.projectDir(project.project_id);
    const first = readers.view(project);
    assert.equal(first.schemaStatus, "compatible");

    // Another process swaps in a new file (as `index --force` does).
    const copy = join(dir, "next.db");
    Deno.copyFileSync(indexPath(dir), copy);
    Deno.renameSync(copy, indexPath(dir));
    now += 499;
    assert.equal(readers.view(project), first, "within the interval the view is trusted without a stat");
    now += 1;
    const second = readers.view(project);
    assert.notEqual(second, first, "past the interval the replaced file is reopened");
    assert.equal(second.schemaStatus, "compatible");
    assert.equal(readers.view(project), second);

    // Another process records that the store is damaged.
    Deno.writeTextFileSync(damagedMarkerPath(dir), "damaged by a test\n");
    assert.equal(readers.view(project), second);
    now += 500;
    const third = readers.view(project);
    assert.equal(third.schemaStatus, "corrupt_manifest");
    // A view that is not healthy is checked on every call: a rebuilt store is seen at once.
    Deno.copyFileSync(indexPath(dir), copy);
    Deno.renameSync(copy, indexPath(dir));
    Deno.removeSync(damagedMarkerPath(dir));
    assert.equal(readers.view(project).schemaStatus, "compatible");
  } finally {
    readers.closeAll();
    h.close();
  }
});

Deno.test("a view of an older schema is looked at again on every call: another process upgrading in place is seen", async () => {
  const h = tempHome();
  const readers = new IndexReaders(h.registry, () => 0, Infinity);
  try {
    const { project } = await indexDir(h, copyFixture("go_basic"));
    const dir = h.registry.projectDir(project.project_id);
    // As a reader sees a store another process is still migrating: its version committed one step at a time.
    const db = new DatabaseSync(indexPath(dir));
    db.exec("UPDATE meta SET value = '1' WHERE key = 'schema_version'");
    assert.equal(readers.view(project).schemaStatus, "reindex_required");
    db.exec(`UPDATE meta SET value = '${SCHEMA_VERSION}' WHERE key = 'schema_version'`);
    db.close();
    assert.equal(readers.view(project).schemaStatus, "compatible", "no time re-check needed: the file is read again");
  } finally {
    readers.closeAll();
    h.close();
  }
});
