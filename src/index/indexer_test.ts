import assert from "node:assert/strict";
import { classifyChanges } from "./indexer.ts";

Deno.test("changed files divide into modified, renamed (a deleted path's content) and added", () => {
  const previous = new Map([["a.go", { hash: "h1" }], ["old.go", { hash: "h2" }], ["gone.go", { hash: "h3" }]]);
  const changed = [
    { path: "a.go", hash: "h9" }, // modified in place
    { path: "new.go", hash: "h2" }, // old.go moved here
    { path: "fresh.go", hash: "h7" }, // new content
  ];
  assert.deepEqual(classifyChanges(changed, previous, ["old.go", "gone.go"]), { added: 1, modified: 1, renamed: 1 });
  assert.deepEqual(classifyChanges([], previous, []), { added: 0, modified: 0, renamed: 0 });
});
