import assert from "node:assert/strict";
import { join } from "node:path";
import { BlobStash } from "./blob_stash.ts";

Deno.test("BlobStash: memory up to the budget, files past it; each blob taken once; close removes the files", () => {
  const base = Deno.makeTempDirSync({ prefix: "cruxe-stash-" });
  const dir = join(base, "stash");
  const stash = new BlobStash(dir, 10);
  const a = new Uint8Array([1, 2, 3, 4, 5, 6]);
  stash.put("a.go", a);
  assert.throws(() => Deno.statSync(dir), Deno.errors.NotFound, "within the budget nothing is written");
  stash.put("b.go", new Uint8Array([7, 8, 9, 10, 11, 12]));
  stash.put("c.go", new Uint8Array([13, 14, 15, 16, 17]));
  assert.equal([...Deno.readDirSync(dir)].length, 2, "past the budget each blob is a file");
  assert.deepEqual(stash.paths().sort(), ["a.go", "b.go", "c.go"]);
  assert.deepEqual(stash.take("b.go"), new Uint8Array([7, 8, 9, 10, 11, 12]));
  assert.equal(stash.take("b.go"), undefined, "taken once");
  assert.equal([...Deno.readDirSync(dir)].length, 1, "a taken file is removed");
  assert.equal(stash.take("a.go"), a);
  // The memory freed by a take is used again.
  stash.put("d.go", new Uint8Array(8));
  assert.equal([...Deno.readDirSync(dir)].length, 1);
  assert.equal(stash.size, 2);
  stash.close();
  assert.throws(() => Deno.statSync(dir), Deno.errors.NotFound);
  assert.equal(stash.take("c.go"), undefined);
  Deno.removeSync(base, { recursive: true });
});
