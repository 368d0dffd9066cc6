/** Shared pieces of the navigation tests: the polyglot fixture repository and registry-error assertions. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CruxeError } from "../../src/core/errors.ts";
import { commitAll, copyFixture, git } from "./fixture_repo.ts";
import { tempDir } from "./temp_dir.ts";

/** Runs `fn`, which must throw a CruxeError with `code`; returns the error. */
export function throwsCode(fn: () => unknown, code: string): CruxeError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof CruxeError, `expected CruxeError ${code}, got ${e}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}, nothing was thrown`);
}

/**
 * The Python, TypeScript and Go navigation fixtures side by side in one git
 * repository (they share no top-level directory), plus `extra` files
 * (relative path → text): one index job serves all of them (each job costs
 * seconds of worker start-up under `deno test`).
 */
export function polyglotRepo(extra: Record<string, string> = {}): string {
  const dir = tempDir("cruxe-nav-");
  for (const name of ["nav_py", "nav_ts", "nav_go"]) {
    const src = copyFixture(name);
    for (const e of Deno.readDirSync(src)) Deno.renameSync(join(src, e.name), join(dir, e.name));
    Deno.removeSync(src, { recursive: true });
  }
  for (const [p, text] of Object.entries(extra)) Deno.writeTextFileSync(join(dir, p), text);
  git(dir, "init", "-q", "-b", "main");
  commitAll(dir, "initial");
  return dir;
}
