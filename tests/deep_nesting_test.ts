/**
 * A file whose syntax nests without end (20,000 `#if` blocks, a function
 * in each) makes symbol extraction quadratic. Its work is bounded: the
 * index finishes, keeps the symbols found in time, and counts the file as
 * one with errors (`status --errors` names it) instead of dropping them
 * silently or never finishing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CRUXE_FLAGS, REPO_ROOT, tempHomeDir } from "./mcp_helpers.ts";

async function cruxe(home: string, args: string[]): Promise<{ ok: boolean; out: string; err: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), ...args],
    env: { CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
    // Unbounded, extraction of this file takes many minutes: the run is killed and fails below.
    signal: AbortSignal.timeout(150_000),
  }).output();
  const dec = new TextDecoder();
  return { ok: r.success, out: dec.decode(r.stdout), err: dec.decode(r.stderr) };
}

Deno.test("20,000 nested #if blocks: the index finishes and counts the file as one with errors", async () => {
  const home = tempHomeDir();
  const repo = Deno.makeTempDirSync({ prefix: "cruxe-deep-if-" });
  const n = 20_000;
  let src = "int before(void) { return 1; }\n";
  for (let i = 0; i < n; i++) src += `#if X${i}\nint level${i}(void) { return ${i}; }\n#else\n`;
  src += "#endif\n".repeat(n);
  Deno.writeTextFileSync(join(repo, "deep.c"), src);
  Deno.writeTextFileSync(join(repo, "plain.c"), "int plain(void) { return 0; }\n");
  const r = await cruxe(home, ["index", "--path", repo, "--json"]);
  assert.ok(r.ok, r.err);
  const s = JSON.parse(r.out);
  assert.equal(s.filesIndexed, 2);
  assert.equal(s.parseErrors, 1, "deep.c is counted");
  assert.ok(s.symbols > 1, "what was found in time is kept");
  const st = await cruxe(home, ["status", "--errors"]);
  assert.ok(st.ok, st.err);
  assert.match(st.out, /deep\.c: extraction stopped at line \d+/);
});
