/**
 * Hostile ignore rules: globs that make a backtracking matcher run for hours,
 * and rules that do not compile. `cruxe index` must finish and index the
 * rest; a server watching the tree must keep answering while such rules and
 * the paths that trigger them appear, and must exit at once on end of input
 * and on SIGTERM.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CRUXE_FLAGS, REPO_ROOT, tempHomeDir, waitFor, within } from "./mcp_helpers.ts";

/** Each line names a different blow-up: stars in one component, and `**` runs across many. */
const BACKTRACKING_RULES = [
  "a*a*a*a*a*a*a*a*a*a*a*a*a*a*b",
  "**/".repeat(24) + "x*".repeat(24) + "y",
  "*c*c*c*c*c*c*c*c*c*c*c*c*c*c*c*c*d*",
].join("\n") + "\n";

/** Paths that make those rules backtrack (none of them matches). */
function writeTriggers(repo: string): void {
  Deno.writeTextFileSync(join(repo, "a".repeat(60) + ".go"), "package p\n\nfunc LongA() {}\n");
  const deep = join(repo, ...Array.from({ length: 8 }, () => "x".repeat(20)));
  Deno.mkdirSync(deep, { recursive: true });
  Deno.writeTextFileSync(join(deep, "x".repeat(60) + ".go"), "package p\n\nfunc DeepX() {}\n");
  Deno.writeTextFileSync(join(repo, "c".repeat(70) + ".go"), "package p\n\nfunc LongC() {}\n");
}

async function cruxe(home: string, args: string[], ms: number): Promise<{ code: number; out: string; err: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), ...args],
    env: { CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
    cwd: REPO_ROOT,
    signal: AbortSignal.timeout(ms),
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, out: dec.decode(out.stdout), err: dec.decode(out.stderr) };
}

function gitInit(repo: string): void {
  const ok = new Deno.Command("git", { args: ["init", "-q", repo], stdout: "null", stderr: "null" }).outputSync();
  assert.ok(ok.success, "git init");
}

for (const vcs of ["plain", "git"] as const) {
  Deno.test(`cruxe index finishes on backtracking ignore rules and indexes the rest (${vcs})`, async () => {
    const home = tempHomeDir();
    const repo = Deno.makeTempDirSync({ prefix: "cruxe-hostile-glob-" });
    // With git, `.gitignore` is git's to match (bounded by the git module's timeout); `.cruxeignore` is Cruxe's.
    if (vcs === "git") gitInit(repo);
    Deno.writeTextFileSync(join(repo, vcs === "git" ? ".cruxeignore" : ".gitignore"), BACKTRACKING_RULES);
    Deno.writeTextFileSync(join(repo, ".gitignore"), (vcs === "git" ? "" : BACKTRACKING_RULES) + "*_gen.go\n");
    writeTriggers(repo);
    Deno.writeTextFileSync(join(repo, "x_gen.go"), "package p\n\nfunc Gen() {}\n");
    // A backtracking matcher does not finish in hours; killed by the bound, the run fails below.
    const r = await cruxe(home, ["index", "--path", repo, "--json"], 120_000);
    assert.equal(r.code, 0, r.err);
    const s = JSON.parse(r.out);
    assert.equal(s.files_indexed, 3, "the three Go files the rules do not match (*_gen.go still applies)");
    assert.equal(s.symbols, 3);
  });
}

Deno.test("an ignore rule that does not compile is warned about by file and line; the index goes on", async () => {
  const home = tempHomeDir();
  const repo = Deno.makeTempDirSync({ prefix: "cruxe-bad-rule-" });
  Deno.writeTextFileSync(join(repo, ".gitignore"), "*.tmp\n[z-a]\n");
  Deno.mkdirSync(join(repo, "sub"));
  Deno.writeTextFileSync(join(repo, "sub", ".gitignore"), "# rules\n[[:nope:]]*\ngen_*.go\n");
  Deno.writeTextFileSync(join(repo, "main.go"), "package p\n\nfunc Main() {}\n");
  Deno.writeTextFileSync(join(repo, "sub", "keep.go"), "package sub\n\nfunc Keep() {}\n");
  Deno.writeTextFileSync(join(repo, "sub", "gen_x.go"), "package sub\n\nfunc Gen() {}\n");
  Deno.writeTextFileSync(join(repo, "z"), "#!/bin/sh\nz() { :; }\n");
  const r = await cruxe(home, ["index", "--path", repo, "--json"], 120_000);
  assert.equal(r.code, 0, r.err);
  const s = JSON.parse(r.out);
  assert.equal(s.files_indexed, 2, "main.go and sub/keep.go (gen_x.go ignored, z matched by [z-a] as in git)");
  assert.match(r.err, new RegExp(`${join(repo, ".gitignore")} line 2: ignore rule "\\[z-a\\]"`));
  assert.match(r.err, new RegExp(`${join(repo, "sub", ".gitignore")} line 2: .*\\[:nope:\\]`));
  assert.doesNotMatch(r.err, /internal_error/);
});

/** A raw stdio session with a spawned server: send requests, read answers by id. */
function rawSession(home: string, repo: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), "serve-mcp", "--workspace", repo, "--no-prewarm"],
    env: { CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    cwd: REPO_ROOT,
  }).spawn();
  const w = child.stdin.getWriter();
  const answers = new Map<number, Record<string, unknown>>();
  const reading = (async () => {
    let buf = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const m = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (typeof m.id === "number") answers.set(m.id, m);
      }
    }
  })();
  let next = 1;
  const enc = new TextEncoder();
  const request = async (method: string, params: unknown, ms = 60_000) => {
    const id = next++;
    await w.write(enc.encode(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n"));
    await waitFor(() => answers.has(id), ms, `the answer to ${method}`);
    return answers.get(id)!;
  };
  const tool = async (name: string, args: Record<string, unknown>) => {
    const r = await request("tools/call", { name, arguments: args });
    return JSON.parse((r.result as { content: { text: string }[] }).content[0].text);
  };
  return { child, w, reading, request, tool };
}

Deno.test("a watched tree gaining backtracking rules keeps the server answering; EOF and SIGTERM end it at once", async () => {
  for (const stop of ["eof", "sigterm"] as const) {
    const home = tempHomeDir();
    const repo = Deno.makeTempDirSync({ prefix: "cruxe-hostile-watch-" });
    Deno.writeTextFileSync(join(repo, "main.go"), "package p\n\nfunc Main() {}\n");
    assert.equal((await cruxe(home, ["index", "--path", repo], 120_000)).code, 0);
    const s = rawSession(home, repo);
    try {
      await s.request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      });
      await waitFor(async () => (await s.tool("index_status", {})).watch?.mode === "events", 60_000, "the watch");
      Deno.writeTextFileSync(join(repo, ".gitignore"), BACKTRACKING_RULES);
      writeTriggers(repo);
      // Each event on those paths is matched against the rules on the serving thread: it must stay free.
      await waitFor(
        async () => {
          const hit = await s.tool("locate_symbol", { name: "DeepX" });
          return JSON.stringify(hit).includes(`${"x".repeat(60)}.go`);
        },
        60_000,
        "the new files to be indexed",
      );
      const t0 = performance.now();
      if (stop === "eof") await s.w.close();
      else s.child.kill("SIGTERM");
      const status = await within(s.child.status, 10_000, `exit after ${stop}`);
      const ms = performance.now() - t0;
      assert.equal(status.code, 0);
      assert.ok(ms < 2000, `exited ${Math.round(ms)} ms after ${stop}`);
    } finally {
      await s.w.close().catch(() => {});
      try {
        s.child.kill("SIGKILL");
      } catch { /* exited */ }
      await s.child.status;
      await s.reading;
    }
  }
});
