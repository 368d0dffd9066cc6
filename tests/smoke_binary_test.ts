/**
 * The release smoke test (scripts/smoke_binary.ts) passes against Cruxe run
 * from source, so the script the release workflow runs on each compiled
 * binary is itself known to work; and it fails for a program that is not Cruxe.
 */
import assert from "node:assert/strict";

const ROOT = new URL("..", import.meta.url).pathname;

async function smoke(program: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/smoke_binary.ts", ...program],
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    ok: out.success,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test("the release smoke test passes for Cruxe and fails for something else", async () => {
  // A CRUXE_HOME in the caller's environment does not move the store away from the platform default it checks.
  const elsewhere = Deno.makeTempDirSync({ prefix: "cruxe-smoke-home-" });
  const good = await smoke([Deno.execPath(), "run", "-A", `${ROOT}main.ts`], { CRUXE_HOME: elsewhere });
  Deno.removeSync(elsewhere, { recursive: true });
  assert.ok(good.ok, good.stderr);
  assert.match(good.stdout, /^smoke ok: cruxe \d+\.\d+\.\d+ on /);
  const bad = await smoke(["true"]);
  assert.equal(bad.ok, false);
  assert.match(bad.stderr, /smoke FAILED at --version/);
});
