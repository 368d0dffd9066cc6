import assert from "node:assert/strict";
import { join } from "node:path";
import { sqliteSpillDir, writableDir } from "./spill_dir.ts";

Deno.test("SQLite's directory for temporary files is the first writable one, in SQLite's order", () => {
  const env = (vars: Record<string, string>) => (n: string) => vars[n];
  const only = (...ok: string[]) => (d: string) => ok.includes(d);
  const all = ["/s", "/t", "/var/tmp", "/usr/tmp", "/tmp", "/repo"];
  const vars = { SQLITE_TMPDIR: "/s", TMPDIR: "/t" };
  assert.equal(sqliteSpillDir(env(vars), "/repo", only(...all)), "/s");
  assert.equal(sqliteSpillDir(env(vars), "/repo", only("/t", "/tmp")), "/t");
  assert.equal(sqliteSpillDir(env({}), "/repo", only("/usr/tmp", "/tmp")), "/usr/tmp");
  assert.equal(sqliteSpillDir(env(vars), "/repo", only("/repo")), "/repo", "the working directory last");
  assert.equal(sqliteSpillDir(env(vars), "/repo", only()), null);
});

Deno.test("a directory is writable when a file can be made in it; a file or a missing path is not", () => {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-spill-" });
  try {
    assert.equal(writableDir(dir), true);
    assert.deepEqual([...Deno.readDirSync(dir)], [], "the file made to find out is removed");
    Deno.writeTextFileSync(join(dir, "f"), "x");
    assert.equal(writableDir(join(dir, "f")), false);
    assert.equal(writableDir(join(dir, "missing")), false);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
