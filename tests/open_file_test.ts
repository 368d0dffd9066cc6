import assert from "node:assert/strict";
import { join } from "node:path";
import { CruxeError } from "../src/core/errors.ts";
import { MAX_WINDOW_LINES, openFile, type OpenFileInput } from "../src/query/open_file.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { bodyOf, inProcess } from "./mcp_helpers.ts";

const root = Deno.makeTempDirSync({ prefix: "cruxe-open-" });
const outside = Deno.makeTempDirSync({ prefix: "cruxe-outside-" });
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
Deno.mkdirSync(join(root, "src"));
Deno.writeTextFileSync(join(root, "src/main.ts"), lines(10));
Deno.writeTextFileSync(join(root, "long.txt"), lines(250));
Deno.writeTextFileSync(join(root, "empty.txt"), "");
Deno.writeTextFileSync(join(root, "nonl.txt"), "a\nb");
Deno.writeTextFileSync(join(root, "crlf.txt"), "a\r\nb\r\n");
Deno.writeTextFileSync(join(root, "wide.txt"), "é".repeat(100) + "\nnext\n");
Deno.writeFileSync(join(root, "bin.dat"), new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]));
Deno.writeFileSync(join(root, "latin1.txt"), new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
Deno.writeTextFileSync(join(outside, "secret.txt"), "TOP SECRET\n");
Deno.symlinkSync(join(root, "src/main.ts"), join(root, "alias.ts"));
Deno.symlinkSync(join(outside, "secret.txt"), join(root, "escape.txt"));

function fail(input: OpenFileInput): { code: string; data: Record<string, unknown> } {
  try {
    openFile(root, input);
  } catch (e) {
    if (e instanceof CruxeError) return { code: e.code, data: e.data };
    throw e;
  }
  return { code: "no error", data: {} };
}

Deno.test("open_file: whole small file, language, no truncation", () => {
  const r = openFile(root, { path: "src/main.ts" });
  assert.equal(r.startLine, 1);
  assert.equal(r.endLine, 10);
  assert.equal(r.totalLines, 10);
  assert.equal(r.truncated, false);
  assert.equal(r.content, lines(10));
  assert.equal(r.language, "typescript");
});

Deno.test("open_file: a window inside the file", () => {
  const r = openFile(root, { path: "src/main.ts", startLine: 3, endLine: 5 });
  assert.equal(r.content, "line 3\nline 4\nline 5\n");
  assert.deepEqual([r.startLine, r.endLine, r.totalLines, r.truncated], [3, 5, 10, false]);
});

Deno.test("open_file: endLine beyond EOF is clamped, not truncation", () => {
  const r = openFile(root, { path: "src/main.ts", startLine: 9, endLine: 500 });
  assert.deepEqual([r.startLine, r.endLine, r.truncated], [9, 10, false]);
  assert.equal(r.content, "line 9\nline 10\n");
});

Deno.test("open_file: startLine 0, negative, non-integer and start > end are invalid_input", () => {
  assert.equal(fail({ path: "src/main.ts", startLine: 0 }).code, "invalid_input");
  assert.equal(fail({ path: "src/main.ts", startLine: -3 }).code, "invalid_input");
  assert.equal(fail({ path: "src/main.ts", endLine: 0 }).code, "invalid_input");
  assert.equal(fail({ path: "src/main.ts", startLine: 1.5 }).code, "invalid_input");
  assert.equal(fail({ path: "src/main.ts", startLine: 6, endLine: 5 }).code, "invalid_input");
  assert.equal(fail({ path: "src/main.ts", maxBytes: 0 }).code, "invalid_input");
});

Deno.test("open_file: startLine beyond EOF is invalid_input and says how long the file is", () => {
  const f = fail({ path: "src/main.ts", startLine: 11 });
  assert.equal(f.code, "invalid_input");
  assert.equal(f.data.totalLines, 10);
});

Deno.test("open_file: the line window is capped and says truncated", () => {
  const d = openFile(root, { path: "long.txt" });
  assert.deepEqual([d.startLine, d.endLine, d.totalLines, d.truncated], [1, MAX_WINDOW_LINES, 250, true]);
  assert.equal(d.content.split("\n").length - 1, MAX_WINDOW_LINES);
  const w = openFile(root, { path: "long.txt", startLine: 10, endLine: 249 });
  assert.deepEqual([w.endLine, w.truncated], [10 + MAX_WINDOW_LINES - 1, true]);
  const tail = openFile(root, { path: "long.txt", startLine: 201 });
  assert.deepEqual([tail.startLine, tail.endLine, tail.truncated], [201, 250, false]);
});

Deno.test("open_file: the byte cap cuts at a line boundary and says where it stopped", () => {
  const r = openFile(root, { path: "src/main.ts", maxBytes: 21 });
  assert.equal(r.content, "line 1\nline 2\nline 3\n");
  assert.deepEqual([r.endLine, r.truncated], [3, true]);
});

Deno.test("open_file: one line over the byte cap is cut at a character boundary", () => {
  const r = openFile(root, { path: "wide.txt", maxBytes: 7 });
  assert.equal(r.content, "ééé"); // 6 bytes; a 4th é would need 8
  assert.deepEqual([r.startLine, r.endLine, r.truncated], [1, 1, true]);
});

Deno.test("open_file: empty file, missing final newline, CRLF", () => {
  const e = openFile(root, { path: "empty.txt" });
  assert.deepEqual([e.startLine, e.endLine, e.totalLines, e.content, e.truncated], [0, 0, 0, "", false]);
  assert.equal(fail({ path: "empty.txt", startLine: 2 }).code, "invalid_input");
  const n = openFile(root, { path: "nonl.txt" });
  assert.deepEqual([n.totalLines, n.content], [2, "a\nb"]);
  const c = openFile(root, { path: "crlf.txt", startLine: 2 });
  assert.deepEqual([c.totalLines, c.content], [2, "b\r\n"]);
});

Deno.test("open_file: binary and invalid UTF-8 are unsupported_media", () => {
  assert.equal(fail({ path: "bin.dat" }).code, "unsupported_media");
  assert.equal(fail({ path: "latin1.txt" }).code, "unsupported_media");
});

Deno.test("open_file: missing files and directories are file_not_found", () => {
  assert.equal(fail({ path: "nope.ts" }).code, "file_not_found");
  assert.equal(fail({ path: "src" }).code, "file_not_found");
  assert.equal(fail({ path: "src/" }).code, "file_not_found");
});

Deno.test("open_file: a trailing slash on a file is file_not_found, not the file", () => {
  for (const path of ["src/main.ts/", "src/main.ts//", "src\\main.ts\\", "long.txt/."]) {
    const f = fail({ path });
    assert.equal(f.code, "file_not_found", `${JSON.stringify(path)} gave ${f.code}`);
  }
});

Deno.test("open_file: a symlinked directory on the way is forbidden, even one pointing inside the root", () => {
  const linked = join(root, "src_link");
  Deno.symlinkSync(join(root, "src"), linked);
  try {
    assert.equal(fail({ path: "src_link/main.ts" }).code, "forbidden");
  } finally {
    Deno.removeSync(linked);
  }
});

/**
 * open_file in a process that cannot bypass file modes: as root (which reads
 * 0000 files anyway) the read-bypassing capabilities are dropped with setpriv.
 * Resolves to the code per path, or null when that cannot be arranged.
 */
async function codesWithoutPrivilege(dir: string, paths: string[]): Promise<Record<string, string> | null> {
  const probe = new URL("./helpers/open_file_probe.ts", import.meta.url).pathname;
  const deno = [Deno.execPath(), "run", "--no-check", `--allow-read=${dir}`, probe];
  const drop = ["--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search"];
  const out: Record<string, string> = {};
  for (const path of paths) {
    const args = [
      ...deno,
      JSON.stringify({ root: dir, paths: [path], outside: "/nowhere", marker: "-", maxCalls: 1, maxMs: 10_000 }),
    ];
    let res: Deno.CommandOutput;
    try {
      res = await new Deno.Command(Deno.uid() === 0 ? "setpriv" : args[0], {
        args: Deno.uid() === 0 ? [...drop, ...args] : args.slice(1),
        stdout: "piped",
        stderr: "piped",
      }).output();
    } catch {
      return null; // no setpriv here
    }
    if (!res.success) return null;
    out[path] = Object.keys(JSON.parse(new TextDecoder().decode(res.stdout)).codes)[0];
  }
  return out;
}

Deno.test("open_file: a 0000 file and a file in a 0000 directory answer the same code (forbidden)", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-open-modes-" });
  Deno.writeTextFileSync(join(dir, "locked.txt"), "locked\n");
  Deno.mkdirSync(join(dir, "lockeddir"));
  Deno.writeTextFileSync(join(dir, "lockeddir/inner.txt"), "inner\n");
  Deno.writeTextFileSync(join(dir, "open.txt"), "open\n");
  Deno.chmodSync(join(dir, "locked.txt"), 0o000);
  Deno.chmodSync(join(dir, "lockeddir"), 0o000);
  try {
    const codes = await codesWithoutPrivilege(dir, ["locked.txt", "lockeddir/inner.txt", "open.txt"]);
    if (!codes) return console.log("skipped: cannot drop the privilege to read 0000 files here");
    assert.deepEqual(codes, { "locked.txt": "forbidden", "lockeddir/inner.txt": "forbidden", "open.txt": "ok" });
  } finally {
    Deno.chmodSync(join(dir, "lockeddir"), 0o755);
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("open_file: a FIFO is file_not_found (never opened, so never blocks)", () => {
  const fifo = join(root, "pipe");
  const made = new Deno.Command("mkfifo", { args: [fifo] }).outputSync();
  if (!made.success) return; // no mkfifo on this system
  assert.equal(fail({ path: "pipe" }).code, "file_not_found");
  Deno.removeSync(fifo);
});

Deno.test("open_file: a symlink that stays inside the root is followed", () => {
  const r = openFile(root, { path: "alias.ts", startLine: 1, endLine: 1 });
  assert.equal(r.content, "line 1\n");
  assert.equal(r.path, "alias.ts");
});

Deno.test("open_file: escapes are forbidden (absolute, .., encoded, NUL, symlink out)", () => {
  for (
    const path of [
      join(outside, "secret.txt"),
      "/etc/passwd",
      "../" + outside.split("/").pop() + "/secret.txt",
      "src/../../etc/passwd",
      "src/%2e%2e/%2e%2e/etc/passwd",
      "src\\..\\..\\etc\\passwd",
      "src/main.ts\0.png",
      "escape.txt",
      "~/.ssh/id_rsa",
    ]
  ) {
    const f = fail({ path });
    assert.equal(f.code, "forbidden", `${JSON.stringify(path)} gave ${f.code}`);
  }
});

Deno.test("open_file: ./ prefixes and backslash separators inside the repo are fine", () => {
  assert.equal(openFile(root, { path: "./src/main.ts", endLine: 1 }).path, "src/main.ts");
  assert.equal(openFile(root, { path: "src\\main.ts", endLine: 1 }).content, "line 1\n");
});

Deno.test("open_file: a missing repository root is project_not_found", () => {
  let c = "";
  try {
    openFile(join(root, "gone"), { path: "x" });
  } catch (e) {
    c = (e as CruxeError).code;
  }
  assert.equal(c, "project_not_found");
});

Deno.test("MCP open_file: by repo name or workspace; refusals are error results with registry codes", async () => {
  const s = inProcess();
  try {
    const p = s.registry.upsertProject({ ...registerProject(s.registry, root), name: "openrepo" });
    const ok = bodyOf(await s.call("open_file", { repo: "openrepo", path: "src/main.ts", startLine: 2, endLine: 3 }));
    assert.equal(ok.repo, "openrepo");
    assert.equal(ok.content, "line 2\nline 3\n");
    assert.equal(ok.totalLines, 10);
    assert.ok(ok.metadata, "Protocol v1 metadata is attached");
    const viaWs = bodyOf(await s.call("open_file", { workspace: p.repo_root, path: "src/main.ts", endLine: 1 }));
    assert.equal(viaWs.content, "line 1\n");
    for (
      const [args, code] of [
        [{ repo: "openrepo", path: "escape.txt" }, "forbidden"],
        [{ repo: "openrepo", path: "../../etc/passwd" }, "forbidden"],
        [{ repo: "openrepo", path: "/etc/passwd" }, "forbidden"],
        [{ repo: "openrepo", path: "bin.dat" }, "unsupported_media"],
        [{ repo: "openrepo", path: "nope" }, "file_not_found"],
        [{ repo: "nope", path: "src/main.ts" }, "project_not_found"],
        [{ repo: "openrepo", path: "src/main.ts", startLine: 0 }, "invalid_input"],
        [{ repo: "openrepo" }, "invalid_input"],
      ] as const
    ) {
      const r = await s.call("open_file", args);
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.equal((bodyOf(r).error as { code: string }).code, code, JSON.stringify(args));
      assert.ok(!JSON.stringify(r).includes("TOP SECRET"));
    }
  } finally {
    s.close();
  }
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(root, { recursive: true });
  Deno.removeSync(outside, { recursive: true });
});
