/**
 * How deep the scan goes: as deep as paths can be opened. A file 80
 * directories down is indexed; a directory past the platform's path length
 * limit cannot be listed, and is counted under "skipped" (unreadable)
 * instead of vanishing while the index says it is complete.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { scanRepository } from "../src/index/scan.ts";
import { CRUXE_FLAGS, REPO_ROOT, tempHomeDir } from "./mcp_helpers.ts";

/** A directory chain `levels` deep under `root`, each level named `name`, with `file` at the bottom. */
function chain(root: string, levels: number, name: string, file: string): void {
  // Built with one-letter names, then renamed from the bottom up: no call ever names a path over the limit.
  const short = Array.from({ length: levels }, () => "d");
  Deno.mkdirSync(join(root, ...short), { recursive: true });
  Deno.writeTextFileSync(join(root, ...short, file), "package deep\n\nfunc Deep() {}\n");
  if (name === "d") return;
  for (let i = levels; i >= 1; i--) {
    const parent = join(root, ...short.slice(0, i - 1));
    Deno.renameSync(join(parent, "d"), join(parent, name));
  }
}

Deno.test("the plain scan goes below 64 levels and counts a directory past the path limit as unreadable", async () => {
  const repo = Deno.makeTempDirSync({ prefix: "cruxe-deep-" });
  try {
    Deno.writeTextFileSync(join(repo, "top.go"), "package top\n");
    Deno.mkdirSync(join(repo, "deep"));
    chain(join(repo, "deep"), 80, "d", "eighty.go");
    Deno.mkdirSync(join(repo, "far"));
    chain(join(repo, "far"), 20, "x".repeat(250), "unreachable.go"); // about 5,000 bytes of path
    const r = await scanRepository(repo, { maxFileBytes: 1 << 20, useGit: false });
    const paths = r.files.map((f) => f.path);
    assert.ok(paths.includes(["deep", ...Array(80).fill("d"), "eighty.go"].join("/")), "80 levels down");
    assert.ok(paths.includes("top.go"));
    assert.ok(!paths.some((p) => p.endsWith("unreachable.go")));
    assert.equal(r.skipped.unreadable, 1, "the directory that cannot be opened is counted");

    const home = tempHomeDir();
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), "index", "--path", repo],
      env: { CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(120_000),
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    assert.match(text, /Skipped:\n(.*\n)*\s+1 unreadable/, text);
    // `status` says so too, in words and in JSON, long after the index ran.
    const status = async (...args: string[]) => {
      const o = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), "status", ...args],
        env: { CRUXE_HOME: home, NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(60_000),
      }).output();
      assert.ok(o.success, new TextDecoder().decode(o.stderr));
      return new TextDecoder().decode(o.stdout);
    };
    assert.match(await status(), /1 path could not be read \(skipped by the last full scan\)/);
    const json = JSON.parse(await status("--json"));
    assert.equal(json.projects[0].skipped.unreadable, 1, JSON.stringify(json.projects[0].skipped));
  } finally {
    Deno.removeSync(repo, { recursive: true });
  }
});
