/**
 * The release smoke test (scripts/smoke_binary.ts) passes against Cruxe run
 * from source, so the script the release workflow runs on each compiled
 * binary is itself known to work; and it fails for a program that is not Cruxe.
 */
import assert from "node:assert/strict";

const ROOT = new URL("..", import.meta.url).pathname;

async function smoke(program: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/smoke_binary.ts", ...program],
    cwd: ROOT,
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
  const good = await smoke([Deno.execPath(), "run", "-A", `${ROOT}main.ts`]);
  assert.ok(good.ok, good.stderr);
  assert.match(good.stdout, /^smoke ok: cruxe \d+\.\d+\.\d+ on /);
  const bad = await smoke(["true"]);
  assert.equal(bad.ok, false);
  assert.match(bad.stderr, /smoke FAILED at --version/);
});
