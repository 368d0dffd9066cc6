/**
 * The command line as a person meets it, through spawned `cruxe` processes:
 * global options anywhere, per-command help, one-line mistakes with "did you
 * mean", JSON errors, grep-like search lines fitted to a terminal (a real one,
 * through `script`), the project a query searched, `status --errors`, skip
 * reasons, an ignore rule that hides everything, config typos, completions.
 */
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { copyFixture } from "./helpers/fixture_repo.ts";
import { COMMANDS } from "../src/cli/command_table.ts";
import { commandHelp } from "../src/cli/help.ts";
import { formatHit } from "../src/cli/hits.ts";
import { splitCommand } from "../src/cli/args.ts";
import { unknownConfigKeys } from "../src/cli/context.ts";
import { CRUXE_FLAGS } from "./mcp_helpers.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const MAIN = join(ROOT, "main.ts");
const dec = new TextDecoder();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The caller's environment without what changes the output under test (`NO_COLOR` set in the caller's shell). */
function callerEnv(): Record<string, string> {
  const env = Deno.env.toObject();
  delete env.NO_COLOR;
  return env;
}

/** Runs `cruxe args…` from `cwd` with a private home; `env` adds variables; killed after `timeoutMs` (a hang fails). */
async function cruxe(
  home: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    cwd: opts.cwd ?? home,
    env: { ...callerEnv(), CRUXE_HOME: home, ...opts.env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000),
  }).output();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) } satisfies Run;
}

/** Runs `cruxe args…` on a pseudo-terminal `cols` wide (util-linux `script`); returns what the terminal got. */
async function cruxeOnTty(home: string, args: string[], cols: number, cwd: string, env: Record<string, string> = {}) {
  const quoted = [Deno.execPath(), "run", "-A", MAIN, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  const out = await new Deno.Command("script", {
    args: ["-q", "-e", "-c", `stty cols ${cols} rows 40; exec ${quoted}`, "/dev/null"],
    cwd,
    env: { ...callerEnv(), CRUXE_HOME: home, ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return dec.decode(out.stdout).replaceAll("\r", "");
}

function tempHome(): string {
  return Deno.makeTempDirSync({ prefix: "cruxe-cli-home-" });
}

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;
/** Every terminal control sequence: colours, and the line clearing Deno's own loading indicator may print on a TTY. */
// deno-lint-ignore no-control-regex
const CSI = /\x1b\[[0-9;]*[A-Za-z]/g;

Deno.test("global options work before the command; the grammar line and info logs appear only with -v", async () => {
  const home = tempHome();
  try {
    const quiet = await cruxe(home, ["status"]);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stderr, "", "nothing on stderr without -v");
    const verbose = await cruxe(home, ["-v", "status"]);
    assert.equal(verbose.code, 0, verbose.stderr);
    assert.match(verbose.stdout, /No projects yet/);
    assert.match(verbose.stderr, /grammars: \d+ of \d+ languages in /);
    const jsonFirst = await cruxe(home, ["--json", "status"]);
    assert.equal(JSON.parse(jsonFirst.stdout).home, home);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("mistakes are one line with a suggestion; with --json the error is {error: {code, message}} without help text", async () => {
  const home = tempHome();
  try {
    const typo = await cruxe(home, ["serch", "foo"]);
    assert.equal(typo.code, 2);
    assert.equal(typo.stderr.trim().split("\n").length, 1, typo.stderr);
    assert.match(typo.stderr, /unknown command "serch"; did you mean `search`\?/);
    const flag = await cruxe(home, ["search", "foo", "--limt", "3"]);
    assert.equal(flag.code, 2);
    assert.equal(flag.stderr.trim().split("\n").length, 1, flag.stderr);
    assert.match(flag.stderr, /unknown option --limt for `cruxe search`; did you mean --limit\?/);
    assert.doesNotMatch(flag.stderr, /Usage|TypeError|ERR_PARSE_ARGS/);
    const json = await cruxe(home, ["search", "foo", "--limt", "3", "--json"]);
    assert.equal(json.code, 2);
    const err = JSON.parse(json.stdout).error;
    assert.equal(err.code, "invalid_input");
    assert.match(err.message, /did you mean --limit/);
    assert.doesNotMatch(err.message, /\n|Usage/);
    const choice = await cruxe(home, ["outline", "x.go", "--depth", "tpo"]);
    assert.match(choice.stderr, /--depth must be one of top, all \(got "tpo"\); did you mean top\?/);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("every command has its own help with aligned option columns and an example", async () => {
  for (const c of COMMANDS) {
    const text = commandHelp(c);
    assert.match(text, new RegExp(`^Usage: cruxe ${c.name}`), c.name);
    assert.match(text, /\nExamples?:\n {2}\S/, c.name);
    // Within each options block, descriptions start in one column.
    for (const block of text.split("\n\n").filter((b) => /^(Global )?[Oo]ptions:/.test(b))) {
      const starts = block.split("\n").slice(1).map((l) => l.match(/^(\s*\S.*?\S)( {2,})\S/)).filter((m) => m)
        .map((m) => m![1].length + m![2].length);
      assert.equal(new Set(starts).size, 1, `${c.name}: ${block}`);
    }
    // Example comments start in one column (unless a command line is too long for it).
    const examples = text.slice(text.search(/\nExamples?:\n/)).split("\n").slice(2);
    const hashes = examples.filter((l) => l.indexOf("#") > 0 && l.indexOf("#") <= 66).map((l) => l.indexOf("#"));
    assert.ok(new Set(hashes).size <= 1, `${c.name}: ${examples.join("\n")}`);
  }
  const home = tempHome();
  try {
    const r = await cruxe(home, ["index", "--help"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Usage: cruxe index \[options\]/);
    assert.match(r.stdout, /--force {2,}re-parse every file/);
    assert.doesNotMatch(r.stdout, /Commands:/, "not the global help");
    const serve = await cruxe(home, ["help", "serve-mcp"]);
    assert.match(serve.stdout, /--transport stdio\|http {2,}transport/);
    assert.match(serve.stdout, /\/mcp/);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("search prints path:line: snippet lines naming the project; No results; INIT_CWD from a checkout", async () => {
  const home = tempHome();
  const repo = copyFixture("go_basic");
  try {
    const idx = await cruxe(home, ["index", "--path", repo]);
    assert.equal(idx.code, 0, idx.stderr);
    const r = await cruxe(home, ["search", "rate limit"], { cwd: join(repo, "auth") });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split("\n");
    assert.equal(lines[0], `search in ${basename(repo)} (${repo}):`);
    assert.match(lines[1], /^auth\/rate_limiter\.go:15: func \(r \*RateLimiter\) CheckRateLimit/);
    for (const l of lines.slice(1)) assert.match(l, /^[\w/.-]+:\d+: \S/);
    // Each `path:line: text` is that line of the file, as `rg -n` prints it (whitespace runs shown as one space).
    const hits: string[] = [];
    for (const q of ["token", "Claims", "err", "expired", "client", '"token expired"', "how is the limit checked"]) {
      hits.push(
        ...(await cruxe(home, ["search", q, "--limit", "20"], { cwd: repo })).stdout.trim().split("\n").slice(1),
      );
    }
    assert.ok(hits.length >= 5, hits.join("\n"));
    for (const h of hits) {
      const [, path, n, text] = h.match(/^([^:]+):(\d+): (.*)$/)!;
      const line = Deno.readTextFileSync(join(repo, path)).split("\n")[Number(n) - 1];
      assert.equal(text, line.replace(/\s+/g, " ").trim(), h);
    }
    const tree = await cruxe(home, ["hierarchy", "CheckRateLimit"], { cwd: repo });
    assert.match(tree.stdout, /\nauth\/rate_limiter\.go:15: method auth\.RateLimiter\.CheckRateLimit\ncontained in:\n/);
    assert.match(tree.stdout, /\nauth\/rate_limiter\.go:4: struct auth\.RateLimiter\n/);
    const none = await cruxe(home, ["search", "zzqqxxnothing"], { cwd: repo });
    assert.equal(none.stdout.trim().split("\n").at(-1), "No results.");
    assert.equal(none.code, 1, "nothing matched exits 1, as rg and grep do");
    // `deno task` runs in the checkout and sets INIT_CWD to where the user was: that is the project searched.
    const task = await cruxe(home, ["search", "rate limit"], { cwd: ROOT, env: { INIT_CWD: repo } });
    assert.ok(task.stdout.startsWith(`search in ${basename(repo)} `), task.stdout);
    // Outside the checkout INIT_CWD is someone else's (npm's): the working directory wins.
    const elsewhere = await cruxe(home, ["search", "rate limit"], { cwd: repo, env: { INIT_CWD: ROOT } });
    assert.ok(elsewhere.stdout.startsWith(`search in ${basename(repo)} `), elsewhere.stdout);
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(repo, { recursive: true });
  }
});

Deno.test("on a terminal search lines fit its width and are coloured, unless NO_COLOR is set", async () => {
  const home = tempHome();
  const repo = copyFixture("go_basic");
  try {
    assert.equal((await cruxe(home, ["index", "--path", repo])).code, 0);
    const tty = await cruxeOnTty(home, ["search", "rate limit"], 44, repo);
    const hits = tty.split("\n").filter((l) => l.replace(CSI, "").startsWith("auth/"));
    assert.ok(hits.length > 0, tty);
    assert.match(hits[0], ANSI, "coloured on a terminal");
    for (const l of hits) assert.ok(l.replace(CSI, "").length <= 44, l);
    assert.ok(hits.some((l) => l.replace(CSI, "").endsWith("…")), "a long line was cut");
    const plain = await cruxeOnTty(home, ["search", "rate limit"], 44, repo, { NO_COLOR: "1" });
    assert.doesNotMatch(plain, ANSI);
    assert.match(plain, /auth\/rate_limiter\.go:15: /);
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(repo, { recursive: true });
  }
});

Deno.test("splitCommand finds the command after global options and refuses a command option before it", () => {
  assert.deepEqual(splitCommand(["-v", "status"]), { command: "status", rest: ["-v"] });
  assert.deepEqual(splitCommand(["--config", "c.json", "-vv", "search", "x", "--json"]), {
    command: "search",
    rest: ["--config", "c.json", "-vv", "x", "--json"],
  });
  assert.deepEqual(splitCommand(["--config=c.json", "doctor"]), { command: "doctor", rest: ["--config=c.json"] });
  assert.deepEqual(splitCommand(["--version"]), { command: undefined, rest: ["--version"] });
  const flags = new Set(["--limit", "--force"]);
  assert.throws(
    () => splitCommand(["--limit", "3", "search", "x"], flags),
    /--limit is not a global option; put it after/,
  );
  // An option no command takes is unknown, not misplaced.
  assert.throws(() => splitCommand(["-q", "status"], flags), /^CruxeError: unknown option -q \(see cruxe --help\)$/);
  assert.throws(() => splitCommand(["--limt=3", "search"], flags), /unknown option --limt; did you mean --limit\?/);
});

Deno.test("formatHit keeps the location and cuts the text to the width", () => {
  const hit = { path: "src/a.ts", line: 12, text: "x".repeat(200) };
  assert.equal(formatHit(hit, { width: 30, color: false }), `src/a.ts:12: ${"x".repeat(16)}…`);
  assert.equal(formatHit(hit, { width: Infinity, color: false }).length, "src/a.ts:12: ".length + 200);
  assert.ok(formatHit({ ...hit, path: "p".repeat(50) }, { width: 20, color: false }).length <= 20);
});

Deno.test("status --errors lists files with syntax errors (also in --json); index explains skips by reason", async () => {
  const home = tempHome();
  const repo = copyFixture("go_basic");
  try {
    Deno.writeTextFileSync(join(repo, "broken.go"), "package auth\n\nfunc Broken( {\n  return\n");
    Deno.writeFileSync(join(repo, "blob.go"), new Uint8Array([0x70, 0, 1, 2]));
    const idx = await cruxe(home, ["index", "--path", repo]);
    assert.equal(idx.code, 0, idx.stderr);
    assert.match(idx.stdout, /1 file had syntax errors \(indexed partially\); list them: cruxe status --errors/);
    assert.match(idx.stdout, /Skipped:\n {2}1 binary \(a NUL byte in the first 8 KiB\)/);
    const plain = await cruxe(home, ["status"]);
    assert.match(
      plain.stdout,
      /go_basic-\w+: 1 file had syntax errors in the last job; list them with `cruxe status --errors`/,
    );
    const listed = await cruxe(home, ["status", "--errors"]);
    assert.match(listed.stdout, /go_basic-\w+: 1 file with syntax errors/);
    assert.match(listed.stdout, /\n {2}broken\.go: syntax errors in file/);
    const json = JSON.parse((await cruxe(home, ["status", "--errors", "--json"])).stdout);
    assert.deepEqual(json.projects[0].files_with_errors.map((f: { path: string }) => f.path), ["broken.go"]);
    assert.equal(json.projects[0].files_with_errors_total, 1);
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(repo, { recursive: true });
  }
});

Deno.test("a scan that finds nothing names the ignore rule and file; doctor explains scan vs index counts", async () => {
  const home = tempHome();
  const repo = copyFixture("go_basic");
  try {
    Deno.writeTextFileSync(join(repo, ".gitignore"), "# generated\n*.o\n/*\n");
    const r = await cruxe(home, ["index", "--path", repo]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /No files to index in .*: rule "\/\*" \(\.gitignore line 3\) excludes \d+ of \d+ top-level entries/,
    );
    Deno.removeSync(join(repo, ".gitignore"));
    Deno.writeTextFileSync(join(repo, "notes.txt"), "plain text\n");
    Deno.writeTextFileSync(join(repo, "data.json"), "{}\n");
    assert.equal((await cruxe(home, ["index", "--path", repo])).code, 0);
    Deno.writeTextFileSync(join(repo, "added.go"), "package auth\n");
    const doc = JSON.parse((await cruxe(home, ["doctor", "--json"], { cwd: repo })).stdout);
    const gap = doc.checks.find((c: { check: string }) => c.check === `files ${basename(repo)}`);
    assert.ok(gap, JSON.stringify(doc.checks));
    assert.match(
      gap.detail,
      /^6 files to index, 2 in the index; not indexed: 3 with no supported language \(.*\.txt 1.*\), 1 new since/,
    );
    assert.equal(gap.status, "warn");
    assert.match(gap.fix, /cruxe sync/);
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(repo, { recursive: true });
  }
});

Deno.test("an unknown config key warns, naming the nearest known key", async () => {
  assert.deepEqual(unknownConfigKeys({ maxFileByte: 10, workers: 2, llm: { modle: "x" } }), [
    'unknown key "maxFileByte" is ignored; did you mean "maxFileBytes"?',
    'unknown key "llm.modle" is ignored; did you mean "llm.model"?',
  ]);
  const home = tempHome();
  try {
    Deno.writeTextFileSync(join(home, "config.json"), '{"maxFileByte": 10}');
    const r = await cruxe(home, ["status"]);
    assert.equal(r.code, 0);
    assert.match(
      r.stderr,
      /config file .*config\.json: unknown key "maxFileByte" is ignored; did you mean "maxFileBytes"\?/,
    );
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("completions: bash, zsh and fish scripts name every command; bash parses them", async () => {
  const home = tempHome();
  try {
    for (const shell of ["bash", "zsh", "fish"]) {
      const r = await cruxe(home, ["completions", shell]);
      assert.equal(r.code, 0, r.stderr);
      for (const c of COMMANDS) assert.ok(r.stdout.includes(c.name), `${shell}: ${c.name}`);
      assert.ok(r.stdout.includes("max-tokens"), shell);
      if (shell === "bash") {
        const file = join(home, "cruxe.bash");
        Deno.writeTextFileSync(file, r.stdout);
        // Source it and ask for completions of `cruxe se` and `cruxe search --li`.
        const probe = await new Deno.Command("bash", {
          args: [
            "-c",
            `source ${file}; COMP_WORDS=(cruxe se); COMP_CWORD=1; _cruxe; echo "\${COMPREPLY[*]}"; ` +
            `COMP_WORDS=(cruxe search --li); COMP_CWORD=2; _cruxe; echo "\${COMPREPLY[*]}"`,
          ],
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.ok(probe.success, dec.decode(probe.stderr));
        assert.deepEqual(dec.decode(probe.stdout).trim().split("\n"), ["search serve-mcp serve", "--limit"]);
      }
    }
    const bad = await cruxe(home, ["completions", "tcsh"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /takes one of bash, zsh, fish/);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test({
  name: "doctor does not warn when the cruxe task's permissions (no --allow-all) cannot read the inotify limits",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const home = Deno.makeTempDirSync({ prefix: "cruxe-cli-doctor-" });
    try {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...CRUXE_FLAGS, MAIN, "doctor", "--json"],
        cwd: home,
        env: { CRUXE_HOME: home },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const doc = JSON.parse(dec.decode(out.stdout));
      const limits = doc.checks.find((c: { check: string }) => c.check === "inotify limits");
      // Deno reads /proc/sys only with --allow-all: the check says so instead of warning about nothing.
      assert.equal(limits.status, "ok", JSON.stringify(limits));
      assert.match(limits.detail, /^not read \(Deno reads \/proc\/sys only with --allow-all; `sysctl fs.inotify`/);
    } finally {
      Deno.removeSync(home, { recursive: true });
    }
  },
});

Deno.test("a bad numeric environment variable stops a command with exit 2 naming it, as CRUXE_WATCH=bogus does", async () => {
  const home = tempHome();
  try {
    const cases: [string[], Record<string, string>, string][] = [
      [["status"], { CRUXE_MAX_FILE_BYTES: "abc" }, "CRUXE_MAX_FILE_BYTES"],
      [["index", "--path", home], { CRUXE_MAX_FILE_BYTES: "-1" }, "CRUXE_MAX_FILE_BYTES"],
      [["serve-mcp"], { CRUXE_WORKERS: "0" }, "CRUXE_WORKERS"],
      [["status"], { CRUXE_MAX_REF_STORES: "lots" }, "CRUXE_MAX_REF_STORES"],
      [["status"], { CRUXE_WATCH: "bogus" }, "CRUXE_WATCH"],
    ];
    for (const [args, env, name] of cases) {
      const r = await cruxe(home, args, { env });
      assert.equal(r.code, 2, `${JSON.stringify(env)} ${args[0]}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`error\\[invalid_input\\]: ${name} must be`), r.stderr);
    }
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("a config file that is a FIFO, a device, a directory or too large is invalid_input naming it, at once", async () => {
  const home = tempHome();
  try {
    const fifo = join(home, "fifo.json");
    const made = await new Deno.Command("mkfifo", { args: [fifo, join(home, "config.json")] }).output();
    assert.ok(made.success, "mkfifo");
    const link = join(home, "link.json");
    Deno.symlinkSync("/dev/zero", link);
    const big = join(home, "big.json");
    Deno.writeTextFileSync(big, `{"workers": 2${" ".repeat(2 * 1024 * 1024)}}`);
    const cases: [string[], string, RegExp][] = [
      [["--config", fifo, "status"], fifo, /is not a regular file/],
      [["--config", "/dev/zero", "status"], "/dev/zero", /is not a regular file/],
      [["--config", home, "doctor"], home, /is not a regular file/],
      [["--config", link, "status"], link, /is not a regular file/],
      [["--config", big, "status"], big, /is \d+ bytes; config files up to 1048576 bytes are read/],
      [["--config", fifo, "serve-mcp"], fifo, /is not a regular file/],
      [["status"], join(home, "config.json"), /is not a regular file/], // a FIFO at the default path
      [["serve-mcp"], join(home, "config.json"), /is not a regular file/],
    ];
    for (const [args, named, why] of cases) {
      const r = await cruxe(home, args, { timeoutMs: 20_000 });
      assert.equal(r.code, 2, `${args.join(" ")}: exit ${r.code} ${r.stderr}`);
      assert.ok(r.stderr.includes(`error[invalid_input]: Config file ${named} `), r.stderr);
      assert.match(r.stderr, why);
    }
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("a config file that is not JSON is reported by line and column, never by its content", async () => {
  const home = tempHome();
  try {
    const shadow = join(home, "shadow");
    Deno.writeTextFileSync(shadow, "root:$6$s3cretSalt$h4shValue:19000:0:99999:7:::\n");
    const late = join(home, "late.json");
    Deno.writeTextFileSync(late, '{\n  "workers": 2,\n  "llm": {"apiKey": s3cretKey}\n}\n');
    const cases: [string, string, string[]][] = [
      [shadow, "line 1, column 1", []],
      [late, "line 3, column 21", []],
      [late, "line 3, column 21", ["--json"]],
    ];
    for (const [file, where, extra] of cases) {
      const r = await cruxe(home, [...extra, "--config", file, "status"], { timeoutMs: 20_000 });
      assert.equal(r.code, 2, r.stderr);
      const said = r.stdout + r.stderr;
      assert.ok(said.includes(`Config file ${file} is not valid JSON (at ${where})`), said);
      assert.doesNotMatch(said, /s3cret|h4sh|root:/, "no byte of the file is echoed");
    }
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

// deno-lint-ignore no-control-regex
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/;

Deno.test("control characters in names, paths, code and messages are printed escaped, never raw", async () => {
  const home = tempHome();
  const fixture = copyFixture("go_basic");
  const parent = Deno.makeTempDirSync({ prefix: "cruxe-cli-ctl-" });
  const repo = join(parent, "repo\x1b]0;pwned\x07");
  try {
    Deno.renameSync(fixture, repo);
    const evil = "evil\x1b[2J\x1b[31m\u202e.go";
    Deno.writeTextFileSync(join(repo, evil), "package auth\n\n// ZZMARK \x1b[31mred\x9b\u202e\nfunc Broken( {\n");
    const config = join(parent, "config.json");
    Deno.writeTextFileSync(config, JSON.stringify({ "k\x1b[2J": 1 }));
    const runs: [string, string[], string | undefined][] = [
      ["index", ["index", "--path", repo], undefined],
      ["status", ["status"], undefined],
      ["status --errors", ["status", "--errors"], undefined],
      ["search", ["search", "ZZMARK"], repo],
      ["context", ["context", "ZZMARK Broken"], repo],
      ["an error naming a path", ["index", "--path", join(parent, "gone\x1b[2J")], undefined],
      ["a warning naming a config key", ["--config", config, "status"], undefined],
    ];
    for (const [what, args, cwd] of runs) {
      const r = await cruxe(home, args, { cwd });
      const said = r.stdout + r.stderr;
      assert.doesNotMatch(said, RAW_CONTROL, `${what}: ${JSON.stringify(said.slice(0, 600))}`);
      assert.ok(said.includes("\\x1b"), `${what} shows the escaped name: ${JSON.stringify(said.slice(0, 600))}`);
    }
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(parent, { recursive: true });
  }
});

Deno.test("human output goes through printable: no console call elsewhere prints interpolated data raw", () => {
  const sinks = ["src/cli/output.ts", "src/cli/hits.ts", "src/core/log.ts"]; // they apply printable themselves
  const offenders: string[] = [];
  let calls = 0;
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(join(ROOT, dir))) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory) walk(rel);
      else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts") && !sinks.includes(rel)) {
        const text = Deno.readTextFileSync(join(ROOT, rel));
        for (const m of text.matchAll(/console\.(?:log|error|warn)\(/g)) {
          calls++;
          const arg = text.slice(m.index, text.indexOf(";\n", m.index));
          // Data interpolated into a line (anything but an UPPER_CASE constant) must be wrapped in printable.
          if (/\$\{(?![A-Z_]+\})/.test(arg) && !arg.includes("printable(")) {
            offenders.push(`${rel}: ${arg.slice(0, 80)}`);
          }
        }
      }
    }
  };
  walk("src");
  assert.ok(calls > 5, `found ${calls} console calls`);
  assert.deepEqual(offenders, []);
});
