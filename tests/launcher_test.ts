/**
 * The `cruxe` launcher that `npm link` / `npm install -g .` put on PATH
 * (package.json `bin`): reached through a symlink from another directory, it
 * runs the checkout's main.ts with the permission flags of the `cruxe` task
 * (the same sandbox as `deno task cruxe`), passes the arguments through, keeps
 * the user's directory, and `--version` answers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "./mcp_helpers.ts";

const LAUNCHER = join(REPO_ROOT, "bin", "cruxe");

/** The flags of the `cruxe` task in deno.json (between `deno run` and `main.ts`). */
function taskFlags(): string[] {
  const task = JSON.parse(Deno.readTextFileSync(join(REPO_ROOT, "deno.json"))).tasks.cruxe.command as string;
  const words = task.split(/\s+/);
  return words.slice(words.indexOf("run") + 1, words.indexOf("main.ts"));
}

/** Runs the launcher through a symlink in a fresh directory (as npm's global bin does), from `cwd`. */
async function runLinked(args: string[], env: Record<string, string> = {}) {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-bin-" });
  try {
    Deno.symlinkSync(LAUNCHER, join(dir, "cruxe"));
    const out = await new Deno.Command(join(dir, "cruxe"), {
      args,
      cwd: dir,
      env: { CRUXE_HOME: join(dir, "home"), INIT_CWD: "/somewhere/else", ...env },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr), dir: Deno.realPathSync(dir) };
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("package.json puts the launcher on PATH as cruxe", () => {
  const pkg = JSON.parse(Deno.readTextFileSync(join(REPO_ROOT, "package.json")));
  assert.equal(pkg.bin?.cruxe, "bin/cruxe");
  assert.ok((Deno.statSync(LAUNCHER).mode ?? 0) & 0o111, "the launcher is executable");
});

Deno.test("the launcher runs main.ts with the cruxe task's flags and the arguments, in the user's directory", async () => {
  // A stand-in Deno that prints what it was given, one word a line, then its working directory and INIT_CWD.
  const fake = Deno.makeTempFileSync({ prefix: "fake-deno-", suffix: ".sh" });
  try {
    Deno.writeTextFileSync(
      fake,
      '#!/bin/sh\nfor a in "$@"; do echo "$a"; done\necho "cwd=$(pwd -P)"\necho "init=$INIT_CWD"\n',
    );
    Deno.chmodSync(fake, 0o755);
    const r = await runLinked(["locate", "Some Name", "--json"], { CRUXE_DENO: fake });
    assert.equal(r.code, 0);
    const words = r.stdout.trimEnd().split("\n");
    assert.deepEqual(words.slice(0, 3), ["run", "--config", join(REPO_ROOT, "deno.json")]);
    const flags = taskFlags();
    assert.deepEqual(words.slice(3, 3 + flags.length), flags);
    assert.deepEqual(words.slice(3 + flags.length, 7 + flags.length), [
      join(REPO_ROOT, "main.ts"),
      "locate",
      "Some Name",
      "--json",
    ]);
    assert.equal(words.at(-2), `cwd=${r.dir}`);
    assert.equal(words.at(-1), "init=", "INIT_CWD is not passed on");
  } finally {
    Deno.removeSync(fake);
  }
});

Deno.test("cruxe --version through the launcher prints the version", async () => {
  const r = await runLinked(["--version"], { PATH: Deno.env.get("PATH") ?? "" });
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^cruxe \d+\.\d+\.\d+\n$/);
});

Deno.test("without any Deno the launcher says how to get one and exits 2", async () => {
  const r = await runLinked(["--version"], { CRUXE_DENO: "/nonexistent/deno", PATH: "/usr/bin:/bin" });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /no Deno found: run npm ci in .*or set CRUXE_DENO/);
});
