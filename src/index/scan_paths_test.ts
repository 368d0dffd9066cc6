import assert from "node:assert/strict";
import { join } from "node:path";
import { scanPaths } from "./scan_paths.ts";

Deno.test("scanPaths: the full scan's verdict per named path; a directory now is for a full scan", () => {
  const root = Deno.makeTempDirSync({ prefix: "cruxe-scan-paths-" });
  Deno.writeTextFileSync(join(root, ".gitignore"), "out/\n");
  Deno.writeTextFileSync(join(root, ".cruxeignore"), "secret.go\n");
  Deno.writeTextFileSync(join(root, "secret.go"), "package main\n");
  Deno.mkdirSync(join(root, "node_modules"));
  Deno.writeTextFileSync(join(root, "node_modules", "m.js"), "x\n");
  Deno.mkdirSync(join(root, "src"));
  Deno.mkdirSync(join(root, "out"));
  Deno.writeTextFileSync(join(root, "src", "a.go"), "package src\n");
  Deno.writeTextFileSync(join(root, "out", "b.go"), "package out\n");
  Deno.writeTextFileSync(join(root, "big.go"), "x".repeat(100));
  Deno.symlinkSync(join(root, "src", "a.go"), join(root, "link.go"));
  const named = ["src/a.go", "out/b.go", "gone.go", "big.go", "link.go", "src/a.go", "secret.go", "node_modules/m.js"];
  const r = scanPaths(root, named, { maxFileBytes: 50 });
  assert.ok(r);
  assert.deepEqual(r.files.map((f) => f.path), ["src/a.go"], "each path once");
  assert.deepEqual(r.absent.sort(), ["big.go", "gone.go", "link.go", "node_modules/m.js", "out/b.go", "secret.go"]);
  assert.equal(r.skipped.tooLarge, 1);
  assert.equal(r.skipped.symlinks, 1);
  assert.equal(scanPaths(root, ["src/a.go", "src"], { maxFileBytes: 50 }), null, "a directory");
  assert.equal(scanPaths(root, ["../outside.go"], { maxFileBytes: 50 }), null, "a path out of the root");
});
