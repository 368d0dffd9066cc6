/**
 * A path the index does not hold: the answer says why (no parser for it, a
 * directory, ignored, too large, binary, a symlink, not indexed yet) when the
 * working tree has it, and offers close paths only when it does not.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { copyFixture } from "./helpers/fixture_repo.ts";
import { tempDir } from "./helpers/temp_dir.ts";
import { bodyOf, inProcess } from "./mcp_helpers.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { unindexedReason } from "../src/index/unindexed_reason.ts";

const LIMIT = 1000;

/** A tree with one path of each kind the scan leaves out. */
function treeOfReasons(): string {
  const dir = tempDir("cruxe-unindexed-");
  const write = (rel: string, text: string | Uint8Array) => {
    Deno.mkdirSync(join(dir, rel, ".."), { recursive: true });
    if (typeof text === "string") Deno.writeTextFileSync(join(dir, rel), text);
    else Deno.writeFileSync(join(dir, rel), text);
  };
  write("app.py", "def main():\n    pass\n");
  write("Makefile", "all:\n\techo hi\n");
  // A `#!` line makes code of a name without an extension only: the indexer never reads this one.
  write("manage.py-tpl", "#!/usr/bin/env python3\nimport os\n");
  write("tool", "#!/usr/bin/env python3\nimport os\n");
  write(".gitignore", "gen/\n");
  write("gen/out.py", "x = 1\n");
  write(".cruxeignore", "skip_me.py\n");
  write("skip_me.py", "y = 2\n");
  write("node_modules/lib/index.js", "module.exports = 1;\n");
  write("big.py", "# " + "x".repeat(LIMIT) + "\n");
  write("blob.py", new Uint8Array([0x64, 0x65, 0x66, 0, 1, 2]));
  write("pkg/mod.py", "z = 3\n");
  const outside = tempDir("cruxe-outside-");
  Deno.writeTextFileSync(join(outside, "secret.py"), "token = 1\n");
  Deno.symlinkSync(outside, join(dir, "linked"));
  Deno.symlinkSync(join(dir, "app.py"), join(dir, "alias.py"));
  return dir;
}

Deno.test("unindexedReason: the scan's verdict for each kind of path, nothing looked at past a symlink", () => {
  const dir = treeOfReasons();
  const cases: [string, string][] = [
    ["nope.py", "missing"],
    ["pkg", "directory"],
    ["alias.py", "symlink"],
    ["linked/secret.py", "symlink"],
    // The same answer whether or not the path exists beyond the link.
    ["linked/absent.py", "symlink"],
    ["gen/out.py", "ignored"],
    ["skip_me.py", "ignored"],
    ["node_modules/lib/index.js", "ignored"],
    ["big.py", "too_large"],
    ["blob.py", "binary"],
    ["Makefile", "no_language"],
    ["manage.py-tpl", "no_language"],
    ["tool", "not_yet_indexed"],
    ["pkg/mod.py", "not_yet_indexed"],
    ["../outside.py", "missing"],
    ["", "missing"],
  ];
  for (const [rel, want] of cases) assert.equal(unindexedReason(dir, rel, LIMIT), want, rel);
});

Deno.test("a tool asked about a path the index lacks says why, and suggests paths only for one that is not there", async () => {
  const dir = copyFixture("go_basic");
  Deno.writeTextFileSync(join(dir, "Makefile"), "all:\n\techo FOO\n");
  const s = inProcess({ cwd: dir });
  try {
    const p = registerProject(s.registry, dir);
    assert.equal((await s.rt.runner.start(p, { mode: "full", force: false }).active.done).status, "published");
    const error = async (tool: string, args: Record<string, unknown>) => {
      const r = await s.call(tool, args);
      assert.equal(r.isError, true, `${tool} ${JSON.stringify(args)}`);
      return bodyOf(r).error as { code: string; message: string; data: Record<string, unknown> };
    };

    const makefile = await error("get_file_outline", { path: "Makefile" });
    assert.equal(makefile.code, "file_not_found");
    assert.equal(makefile.data.reason, "no_language");
    assert.match(makefile.message, /no parser for files named Makefile; read it with open_file/);
    assert.equal(makefile.data.suggestions, undefined, "other files are not what was asked for");

    const folder = await error("find_references", { symbol_name: "ValidateToken", path: "auth" });
    assert.equal(folder.code, "file_not_found");
    assert.equal(folder.data.reason, "directory");
    assert.match(folder.message, /auth is a directory/);

    const missing = await error("get_file_outline", { path: "auth/jwt_test.go" });
    assert.equal(missing.code, "file_not_found");
    assert.equal(missing.data.reason, "missing");
    assert.match(missing.message, /is not in the index/);
    assert.ok((missing.data.suggestions as string[]).includes("auth/jwt.go"), JSON.stringify(missing.data));

    // The file read from disk through open_file is the one the answer points to.
    const opened = bodyOf(await s.call("open_file", { path: "Makefile" }));
    assert.match(JSON.stringify(opened), /echo FOO/);
  } finally {
    s.close();
  }
});
