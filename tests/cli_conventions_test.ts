/**
 * The CLI behaves like rg and grep where a person or a script expects it to:
 * exit 0 when something was found, 1 when nothing matched, 2 on errors; one
 * `--limit` range per command, the same in its help and its check; the nearest
 * value named for a misspelt closed-set value; snake_case JSON throughout.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runCruxe } from "./helpers/cli_run.ts";
import { copyFixture } from "./helpers/fixture_repo.ts";
import { snakeKeys } from "../src/cli/snake_keys.ts";
import { candidateLines } from "../src/cli/error_candidates.ts";
import { parseCommandArgs } from "../src/cli/args.ts";
import { findCommand } from "../src/cli/command_table.ts";
import { LIMITS } from "../src/query/limits.ts";

const cruxe = runCruxe;

/** Every key of a JSON value, at any depth. */
function keysOf(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap(keysOf);
  if (v === null || typeof v !== "object") return [];
  return Object.entries(v).flatMap(([k, x]) => [k, ...keysOf(x)]);
}

Deno.test("exit codes: 0 found, 1 nothing matched, 2 errors; index --json is snake_case", async () => {
  const repo = copyFixture("go_basic");
  // A second CheckRateLimit makes the name ambiguous.
  Deno.mkdirSync(join(repo, "limits"));
  Deno.writeTextFileSync(
    join(repo, "limits", "dup.go"),
    "package limits\n\nfunc CheckRateLimit() bool { return true }\n",
  );
  const home = Deno.makeTempDirSync({ prefix: "cruxe-conv-home-" });
  try {
    const idx = await cruxe(home, repo, ["index", "--json"]);
    assert.equal(idx.code, 0, idx.stderr);
    const camel = keysOf(JSON.parse(idx.stdout)).filter((k) => /[A-Z]/.test(k));
    assert.deepEqual(camel, [], "index --json keys are snake_case");
    assert.ok("files_scanned" in JSON.parse(idx.stdout));

    assert.equal((await cruxe(home, repo, ["locate", "ValidateToken"])).code, 0);
    const none = await cruxe(home, repo, ["search", "zzqqxxnothing"]);
    assert.equal(none.code, 1, none.stdout + none.stderr);
    const noSymbol = await cruxe(home, repo, ["locate", "Zzqqxxnothing"]);
    assert.equal(noSymbol.code, 1, noSymbol.stderr);

    const lang = await cruxe(home, repo, ["search", "token", "--lang", "pyhton"]);
    assert.equal(lang.code, 2);
    assert.match(lang.stderr, /Unknown language "pyhton"; did you mean "python"\?/);
    const dir = await cruxe(home, repo, ["hierarchy", "ValidateToken", "--direction", "ancestor"]);
    assert.equal(dir.code, 2);
    assert.match(dir.stderr, /did you mean ancestors\?/);
    // A flag that is no number is the CLI's parse error; the range is the tool's own rule, the same over MCP.
    const text = await cruxe(home, repo, ["search", "token", "--limit", "abc"]);
    assert.equal(text.code, 2);
    assert.match(text.stderr, /error\[invalid_input\]: --limit needs a number \(got "abc"\)/);
    const zero = await cruxe(home, repo, ["locate", "token", "--limit", "0"]);
    assert.equal(zero.code, 2);
    assert.match(zero.stderr, /limit must be at least 1 \(got 0\)/);
    for (const cmd of ["search", "locate"] as const) {
      const max = LIMITS[cmd].max;
      const over = await cruxe(home, repo, [cmd, "ValidateToken", "--limit", String(max + 1), "--json"]);
      assert.ok(over.code <= 1, over.stderr);
      assert.ok(JSON.parse(over.stdout).results.length <= max, `${cmd}: clamped to ${max}`);
      const help = await cruxe(home, repo, [cmd, "--help"]);
      assert.match(help.stdout, new RegExp(`--limit N +Max results \\(1\\.\\.${max}\\)\\. Default: `), `${cmd} help`);
    }
    const ambiguous = await cruxe(home, repo, ["refs", "CheckRateLimit"]);
    assert.equal(ambiguous.code, 2);
    assert.match(ambiguous.stderr, /error\[ambiguous_symbol\]/);
    assert.match(
      ambiguous.stderr,
      /\n {2}limits\/dup\.go:3: function \S*CheckRateLimit\n/,
      "candidates listed in text mode",
    );
    assert.match(ambiguous.stderr, /\n {2}auth\/rate_limiter\.go:\d+: method \S*CheckRateLimit/);
    const page = await cruxe(home, repo, ["refs", "Claims", "--limit", "1"]);
    assert.equal(page.code, 0, page.stderr);
    assert.match(page.stdout, /auth\.Claims \(auth\/jwt\.go:\d+\): 1 reference on this page \(more below\)\n/);
    assert.match(page.stdout, /\nmore: --cursor \S+/);
    const missingProject = await cruxe(home, home, ["search", "token"]);
    assert.equal(missingProject.code, 2, missingProject.stderr);
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(repo, { recursive: true });
  }
});

Deno.test("a command that takes no arguments refuses a stray word rather than acting on the current directory", async () => {
  const home = Deno.makeTempDirSync({ prefix: "cruxe-conv-home-" });
  const cwd = Deno.makeTempDirSync({ prefix: "cruxe-conv-cwd-" });
  try {
    for (const cmd of ["index", "sync", "init"]) {
      const r = await cruxe(home, cwd, [cmd, "/some/repo"]);
      assert.equal(r.code, 2, `${cmd}: ${r.stderr}`);
      const flag = cmd === "init" ? "--workspace" : "--path";
      assert.match(
        r.stderr,
        new RegExp(
          `error\\[invalid_input\\]: cruxe ${cmd} takes no arguments \\(got "/some/repo"\\); for a directory, use ${flag} /some/repo`,
        ),
      );
    }
    const status = await cruxe(home, cwd, ["status", "extra", "--json"]);
    assert.equal(status.code, 2);
    assert.equal(JSON.parse(status.stdout).error.code, "invalid_input");
    // Nothing was registered or indexed on the way to the error.
    const projects = join(home, "projects");
    assert.ok(!existsSync(projects) || [...Deno.readDirSync(projects)].length === 0);
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(cwd, { recursive: true });
  }
});

Deno.test("a tool command's --limit help states its tool's own range, from the tool's schema", async () => {
  for (const cmd of ["search", "locate", "related", "refs"] as const) {
    const def = (await findCommand(cmd))!;
    const max = LIMITS[cmd].max;
    assert.match(def.options.limit.help, new RegExp(`\\(1\\.\\.${max}\\)`), cmd);
    // The value reaches the tool as a number; the tool, not the parser, judges it (one validation).
    assert.equal(parseCommandArgs(cmd, ["x", "--limit", "1.5"], def.options).values.limit, "1.5");
  }
});

Deno.test("snakeKeys turns every key snake_case at any depth and leaves values alone", () => {
  assert.deepEqual(snakeKeys({ filesScanned: 1, skipped: { tooLarge: 2 }, list: [{ parseErrors: "aB" }] }), {
    files_scanned: 1,
    skipped: { too_large: 2 },
    list: [{ parse_errors: "aB" }],
  });
});

Deno.test("candidateLines: one grep-style line per candidate, at most 20, then how many more", () => {
  const c = (i: number) => ({ path: `p${i}.go`, line_start: i, kind: "function", qualified_name: `pkg.F${i}` });
  assert.deepEqual(candidateLines({ candidates: [c(1)] }), ["  p1.go:1: function pkg.F1"]);
  const many = candidateLines({ candidates: Array.from({ length: 25 }, (_, i) => c(i)), total_candidates: 30 });
  assert.equal(many.length, 21);
  assert.equal(many.at(-1), "  … and 10 more");
  assert.deepEqual(candidateLines({}), []);
});
