/**
 * Hostile repositories: a repository's git config (directly, through
 * `include.path`/`includeIf`, or in a git directory its `.git` file or
 * `commondir` points at), its hooks, aliases, filters and drivers must never
 * run a program when Cruxe indexes it (`cruxe index`, `cruxe sync`), checks
 * its freshness, or bootstraps it as an auto-discovered workspace. Every evil
 * program appends to a marker file; each step asserts that none appeared. A
 * control step first runs plain git on each repository, proving every
 * fixture's program does fire when git is run without Cruxe's overrides.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { git } from "./helpers/fixture_repo.ts";
import { bodyOf, CRUXE_FLAGS, inProcess, REPO_ROOT, stdioClient, tempHomeDir, waitFor } from "./mcp_helpers.ts";
import { Registry } from "../src/state/registry.ts";
import { currentRef, gitArgs, gitDirOf, gitEnv, gitListFiles, hasGit } from "../src/io/git.ts";

const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "cruxe-hostile-git-" }));
/** Where the evil programs write; must stay empty. */
const marks = join(base, "marks");
/** The `--allowed-root` holding the evil repositories. */
const allowed = join(base, "allowed");
/** Outside every root: git directories that `.git` files and `commondir` point at. */
const outside = join(base, "outside");
for (const d of [marks, allowed, outside]) Deno.mkdirSync(d);

/** A shell command that records `vector` in the marker directory. */
const prog = (vector: string) => `echo ${vector} >> ${join(marks, vector)}; true`;
const hookScript = (vector: string) => `#!/bin/sh\n${prog(vector)}\n`;

const HOOKS = [
  "applypatch-msg",
  "pre-applypatch",
  "post-applypatch",
  "pre-commit",
  "pre-merge-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "pre-rebase",
  "post-checkout",
  "post-merge",
  "pre-push",
  "pre-auto-gc",
  "post-rewrite",
  "post-index-change",
  "reference-transaction",
  "fsmonitor-watchman",
  "sendemail-validate",
];

function writeHooks(dir: string, vector: string): void {
  Deno.mkdirSync(dir, { recursive: true });
  for (const h of HOOKS) {
    Deno.writeTextFileSync(join(dir, h), hookScript(vector));
    Deno.chmodSync(join(dir, h), 0o755);
  }
}

/** A small repository: `alpha.py` committed, `beta.py` untracked, `gamma.py` ignored. */
function plainRepo(dir: string, gitInit = true): string {
  Deno.mkdirSync(dir, { recursive: true });
  Deno.writeTextFileSync(join(dir, "alpha.py"), "def alpha_fn():\n    return 1\n");
  Deno.writeTextFileSync(join(dir, ".gitignore"), "gamma.py\n");
  if (gitInit) {
    git(dir, "init", "-q");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "--no-verify", "-m", "init");
  }
  Deno.writeTextFileSync(join(dir, "beta.py"), "def beta_fn():\n    return 2\n");
  Deno.writeTextFileSync(join(dir, "gamma.py"), "def gamma_fn():\n    return 3\n");
  return dir;
}

interface Vector {
  name: string;
  dir: string;
  /** Whether Cruxe keeps git mode for it (false: the `.git` leads elsewhere, so it is scanned as a plain directory). */
  gitMode: boolean;
  /** Plain git commands (in the repository) that fire the vector's program without Cruxe's overrides. */
  control: string[][];
}

function makeVectors(): Vector[] {
  const v: Vector[] = [];
  const repo = (name: string) => plainRepo(join(allowed, name));
  const lsOthers = [["ls-files", "--others"]];

  let d = repo("fsmonitor");
  git(d, "config", "core.fsmonitor", prog("fsmonitor"));
  v.push({ name: "fsmonitor", dir: d, gitMode: true, control: lsOthers });

  d = repo("include");
  Deno.writeTextFileSync(join(d, "evil.inc"), `[core]\n\tfsmonitor = "${prog("include")}"\n`);
  git(d, "config", "include.path", join(d, "evil.inc"));
  v.push({ name: "include", dir: d, gitMode: true, control: lsOthers });

  d = repo("includeif");
  Deno.writeTextFileSync(join(outside, "includeif.inc"), `[core]\n\tfsmonitor = "${prog("includeif")}"\n`);
  git(d, "config", `includeIf.gitdir:${d}/.git.path`, join(outside, "includeif.inc"));
  v.push({ name: "includeif", dir: d, gitMode: true, control: lsOthers });

  // Hooks (a configured directory and `.git/hooks`), aliases shadowing built-ins, and every other key that
  // names a program, with attributes selecting the filter/diff/merge drivers for every file.
  d = repo("programs");
  writeHooks(join(d, "evil-hooks"), "hookspath");
  writeHooks(join(d, ".git", "hooks"), "dothooks");
  git(d, "config", "core.hooksPath", join(d, "evil-hooks"));
  for (const sub of ["ls-files", "rev-parse", "version", "status"]) {
    git(d, "config", `alias.${sub}`, `!sh -c '${prog("alias")}'`);
  }
  Deno.writeTextFileSync(join(d, ".gitattributes"), "* filter=evil diff=evil merge=evil\n");
  for (
    const key of [
      "filter.evil.clean",
      "filter.evil.smudge",
      "diff.evil.textconv",
      "diff.evil.command",
      "merge.evil.driver",
      "diff.external",
      "core.pager",
      "pager.ls-files",
      "pager.rev-parse",
      "core.editor",
      "sequence.editor",
      "core.sshCommand",
      "core.askPass",
      "credential.helper",
      "gpg.program",
      "core.alternateRefsCommand",
      "core.gitProxy",
      "remote.origin.uploadpack",
    ]
  ) git(d, "config", key, prog("programs"));
  git(d, "config", "remote.origin.url", `ext::sh -c ${prog("programs").replaceAll(" ", "% ")}`);
  git(d, "config", "protocol.ext.allow", "always");
  git(d, "config", "protocol.allow", "always");
  Deno.writeTextFileSync(join(d, "alpha.py"), "def alpha_fn():\n    return 10\n");
  v.push({
    name: "programs",
    dir: d,
    gitMode: true,
    control: [["status"], ["diff"], ["commit", "-q", "--allow-empty", "-m", "x"]],
  });

  // A `.git` file naming a git directory outside the root (here: made by `git init --separate-git-dir`).
  d = plainRepo(join(allowed, "gitfile"), false);
  git(d, "init", "-q", `--separate-git-dir=${join(outside, "gitfile.git")}`);
  git(d, "config", "core.fsmonitor", prog("gitfile"));
  v.push({ name: "gitfile", dir: d, gitMode: false, control: lsOthers });

  // A `.git` directory whose `commondir` moves config (and refs, objects) to a repository outside the root.
  const other = plainRepo(join(outside, "common"));
  git(other, "config", "core.fsmonitor", prog("commondir"));
  d = plainRepo(join(allowed, "commondir"), false);
  Deno.mkdirSync(join(d, ".git"));
  Deno.copyFileSync(join(other, ".git", "HEAD"), join(d, ".git", "HEAD"));
  Deno.copyFileSync(join(other, ".git", "index"), join(d, ".git", "index"));
  Deno.writeTextFileSync(join(d, ".git", "commondir"), join(other, ".git") + "\n");
  v.push({ name: "commondir", dir: d, gitMode: false, control: lsOthers });
  return v;
}

function markers(): string[] {
  return [...Deno.readDirSync(marks)].map((e) => `${e.name}: ${Deno.readTextFileSync(join(marks, e.name)).trim()}`)
    .sort();
}

function assertNoMarkers(step: string): void {
  assert.deepEqual(markers(), [], `${step} ran a program the repository chose`);
}

function clearMarkers(): void {
  for (const e of Deno.readDirSync(marks)) Deno.removeSync(join(marks, e.name));
}

/** Runs git the way a user would: inherited environment, no overrides. */
function plainGit(dir: string, args: string[]): void {
  new Deno.Command("git", { args: ["-C", dir, ...args], stdin: "null", stdout: "null", stderr: "null" }).outputSync();
}

/** Runs the CLI (`main.ts` with the task's permission flags) on its own home; resolves to its stderr. */
async function cruxe(home: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), ...args],
    env: { CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(out.stderr);
  assert.ok(out.success, `cruxe ${args.join(" ")}: ${err}`);
  return err;
}

/** Runs `fn` over `items`, at most `n` at a time. */
async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: n }, async () => {
    for (let t = queue.shift(); t; t = queue.shift()) await fn(t);
  }));
}

const vectors = makeVectors();
/** One Cruxe home per repository for the CLI steps (so they can run side by side). */
const homes = new Map(vectors.map((v) => [v.name, tempHomeDir()]));

/** The symbol names in each file's outline (null: not indexed), from an in-process server over `v`'s CLI home. */
async function outlines(v: Vector, paths: string[], ref?: string): Promise<(string[] | null)[]> {
  const s = inProcess({}, { home: homes.get(v.name)! });
  try {
    const out: (string[] | null)[] = [];
    for (const path of paths) {
      const r = await s.call("get_file_outline", { workspace: v.dir, path, ...(ref ? { ref } : {}) });
      out.push(r.isError ? null : [...new Set(JSON.stringify(bodyOf(r)).match(/\w+_fn/g) ?? [])]);
    }
    return out;
  } finally {
    s.close();
  }
}

Deno.test("control: every fixture's program runs under plain git (the fixtures are live)", () => {
  for (const v of vectors) for (const args of v.control) plainGit(v.dir, args);
  const seen = markers().map((m) => m.split(":")[0]);
  for (const name of ["fsmonitor", "include", "includeif", "hookspath", "programs", "gitfile", "commondir"]) {
    assert.ok(seen.includes(name), `plain git did not fire ${name} (seen: ${seen.join(", ")})`);
  }
  clearMarkers();
  // Git does not run an alias named after a built-in even without Cruxe (checked here, as git documents it).
  for (const sub of ["ls-files", "rev-parse"]) plainGit(vectors.find((v) => v.name === "programs")!.dir, [sub]);
  assert.ok(!markers().some((m) => m.startsWith("alias")), "plain git ran an alias shadowing a built-in");
});

Deno.test("git directories: only ones that belong to the root are used", () => {
  for (const v of vectors) {
    const dir = gitDirOf(v.dir);
    if (v.gitMode) assert.equal(dir, join(v.dir, ".git"), v.name);
    else assert.equal(dir, null, `${v.name} leads outside the root`);
  }
  // A linked worktree (its git directory points back at it) and a submodule-style directory are accepted.
  const main = plainRepo(join(base, "legit", "main"));
  git(main, "worktree", "add", "-q", join(base, "legit", "wt"));
  assert.equal(gitDirOf(join(base, "legit", "wt")), join(main, ".git", "worktrees", "wt"));
  const sub = join(main, "sub");
  Deno.mkdirSync(join(main, ".git", "modules"));
  git(main, "init", "-q", `--separate-git-dir=${join(main, ".git", "modules", "sub")}`, sub);
  assert.equal(gitDirOf(sub), join(main, ".git", "modules", "sub"));
  // A `.git` file naming another repository's worktree directory is not enough: the back-pointer must match.
  const thief = join(base, "legit", "thief");
  Deno.mkdirSync(thief);
  Deno.writeTextFileSync(join(thief, ".git"), `gitdir: ${join(main, ".git", "worktrees", "wt")}\n`);
  assert.equal(gitDirOf(thief), null);
  // A symlinked `.git` to a directory outside the root is not used either.
  const linked = join(base, "legit", "linked");
  Deno.mkdirSync(linked);
  Deno.symlinkSync(join(main, ".git"), join(linked, ".git"));
  assert.equal(gitDirOf(linked), null);
});

Deno.test("branch labels are read without running git: branch, unborn branch, detached, packed, worktree", () => {
  const dir = plainRepo(join(base, "refs", "main"));
  const branch = git(dir, "symbolic-ref", "--short", "HEAD").trim();
  assert.equal(currentRef(dir), branch);
  git(dir, "checkout", "-q", "-b", "feature/x");
  assert.equal(currentRef(dir), "feature/x");
  git(dir, "pack-refs", "--all");
  assert.equal(currentRef(dir), "feature/x", "a packed ref");
  const sha = git(dir, "rev-parse", "HEAD").trim();
  git(dir, "checkout", "-q", "--detach");
  assert.equal(currentRef(dir), sha.slice(0, 7));
  git(dir, "checkout", "-q", "--orphan", "empty");
  assert.equal(currentRef(dir), null, "a branch without commits has no label");
  git(dir, "checkout", "-q", "feature/x");
  const wt = join(base, "refs", "wt");
  git(dir, "worktree", "add", "-q", "-b", "side", wt);
  assert.equal(currentRef(wt), "side");
  assert.equal(currentRef(join(base, "refs")), null);
});

Deno.test("a FIFO the repository names cannot hang git: the listing is stopped and reported as unavailable", async () => {
  if (Deno.build.os === "windows") return;
  const dir = plainRepo(join(base, "fifo"));
  const made = new Deno.Command("mkfifo", { args: [join(dir, ".git", "evil.inc"), join(dir, ".git", "HEAD.fifo")] })
    .outputSync();
  assert.ok(made.success);
  git(dir, "config", "include.path", join(dir, ".git", "evil.inc"));
  // Registering reads HEAD and refs itself (no git), so it is not held up by the include.
  const t0 = performance.now();
  assert.equal(hasGit(dir), true);
  assert.ok(currentRef(dir));
  assert.ok(performance.now() - t0 < 1000, "no git run while registering");
  const t1 = performance.now();
  assert.equal(await gitListFiles(dir, 300), null);
  assert.ok(performance.now() - t1 < 10_000, "git was stopped");
  // A FIFO where HEAD should be is not read either.
  Deno.removeSync(join(dir, ".git", "HEAD"));
  Deno.renameSync(join(dir, ".git", "HEAD.fifo"), join(dir, ".git", "HEAD"));
  assert.equal(hasGit(dir), false);
  assert.equal(currentRef(dir), null);
});

Deno.test("included config is read, and the command-line overrides still win over it", () => {
  for (const name of ["include", "includeif"]) {
    const v = vectors.find((x) => x.name === name)!;
    const args = gitArgs({ root: v.dir, gitDir: join(v.dir, ".git") }, "ls-files", []);
    const globals = args.slice(0, args.indexOf("ls-files"));
    const get = (pre: string[]) =>
      new TextDecoder().decode(
        new Deno.Command("git", {
          args: [...pre, "config", "--get", "core.fsmonitor"],
          env: gitEnv(),
          clearEnv: true,
          stdin: "null",
          stdout: "piped",
        }).outputSync().stdout,
      ).trim();
    assert.equal(get(["-C", v.dir]), prog(name), `${name}: git follows the include`);
    assert.equal(get(globals), "false", `${name}: Cruxe's override wins`);
  }
  assertNoMarkers("git config --get");
});

Deno.test("transports are refused even when the repository's config allows them", () => {
  const v = vectors.find((x) => x.name === "programs")!;
  const args = gitArgs({ root: v.dir, gitDir: join(v.dir, ".git") }, "ls-files", []);
  const globals = args.slice(0, args.indexOf("ls-files"));
  const out = new Deno.Command("git", {
    args: [...globals, "ls-remote", "origin"],
    env: gitEnv(),
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).outputSync();
  assert.equal(out.success, false);
  assert.match(new TextDecoder().decode(out.stderr), /not allowed/);
  assertNoMarkers("ls-remote with the module's options");
  plainGit(v.dir, ["ls-remote", "origin"]);
  assert.ok(markers().some((m) => m.startsWith("programs")), "control: plain git runs the ext:: transport");
  clearMarkers();
});

Deno.test("cruxe index (CLI) runs none of them, and finds the files", async () => {
  clearMarkers();
  await pool(vectors, 4, async (v) => {
    await cruxe(homes.get(v.name)!, "index", "--path", v.dir);
  });
  assertNoMarkers("cruxe index");
  for (const v of vectors) {
    const reg = Registry.open(homes.get(v.name)!);
    try {
      assert.equal(reg.listProjects()[0]?.vcs_mode, v.gitMode ? "git" : "plain", v.name);
    } finally {
      reg.close();
    }
    // alpha.py is committed, beta.py untracked, gamma.py ignored.
    const found = await outlines(v, ["alpha.py", "beta.py", "gamma.py"]);
    assert.deepEqual(found, [["alpha_fn"], ["beta_fn"], null], v.name);
  }
  assertNoMarkers("queries after cruxe index");
});

Deno.test("cruxe sync (CLI) runs none of them, and picks up the change", async () => {
  clearMarkers();
  for (const v of vectors) {
    Deno.writeTextFileSync(join(v.dir, "beta.py"), "def beta_fn():\n    return 2\n\ndef delta_fn():\n    return 4\n");
  }
  await pool(vectors, 4, async (v) => {
    await cruxe(homes.get(v.name)!, "sync", "--workspace", v.dir);
  });
  assertNoMarkers("cruxe sync");
  for (const v of vectors) assert.deepEqual(await outlines(v, ["beta.py"]), [["beta_fn", "delta_fn"]], v.name);
});

Deno.test("cruxe index --ref (a commit read from git objects) runs none of them, and finds the committed files", async () => {
  clearMarkers();
  const gitVectors = vectors.filter((v) => v.gitMode);
  await pool(gitVectors, 4, async (v) => {
    await cruxe(homes.get(v.name)!, "index", "--path", v.dir, "--ref", "HEAD");
  });
  assertNoMarkers("cruxe index --ref");
  for (const v of gitVectors) {
    // alpha.py is committed; beta.py is untracked and gamma.py ignored: neither is in the commit.
    assert.deepEqual(
      await outlines(v, ["alpha.py", "beta.py", "gamma.py"], "HEAD"),
      [["alpha_fn"], null, null],
      v.name,
    );
  }
  // A root whose git directory is not its own is not a git repository to Cruxe: no ref can be asked of it.
  for (const v of vectors.filter((x) => !x.gitMode)) {
    const s = inProcess({}, { home: homes.get(v.name)! });
    try {
      const r = await s.call("locate_symbol", { workspace: v.dir, name: "alpha_fn", ref: "HEAD" });
      assert.equal((bodyOf(r).error as { code: string }).code, "ref_not_indexed", v.name);
    } finally {
      s.close();
    }
  }
  assertNoMarkers("queries on a ref");
});

Deno.test("freshness scans run none of them", async () => {
  clearMarkers();
  for (const v of vectors) {
    const s = inProcess({}, { home: homes.get(v.name)! });
    try {
      const project = s.registry.listProjects()[0];
      const view = s.rt.readers.view(project);
      assert.equal(await s.rt.freshness.refresh(project, view), "fresh", v.name);
      Deno.writeTextFileSync(join(v.dir, "beta.py"), "def beta_fn():\n    return 5\n");
      const later = new Date(Date.now() + 5000);
      Deno.utimeSync(join(v.dir, "beta.py"), later, later);
      assert.equal(await s.rt.freshness.refresh(project, view), "stale", `${v.name}: the scan saw the change`);
    } finally {
      s.close();
    }
  }
  assertNoMarkers("freshness scans");
});

Deno.test({
  name: "auto-workspace bootstrap (sandboxed serve-mcp) runs none of them, and indexes each",
  async fn() {
    clearMarkers();
    const home = tempHomeDir();
    const s = await stdioClient(home, ["--auto-workspace", "--allowed-root", allowed, "--no-prewarm"]);
    try {
      for (const v of vectors) {
        const r = await s.client.callTool({ name: "search_code", arguments: { workspace: v.dir, query: "alpha_fn" } });
        assert.notEqual(r.isError, true, `${v.name}: ${JSON.stringify(r)}`);
      }
      for (const v of vectors) {
        let st: Record<string, unknown> = {};
        await waitFor(
          async () => {
            st = bodyOf(await s.client.callTool({ name: "index_status", arguments: { workspace: v.dir } }));
            return st.index_status === "ready" || st.index_status === "failed";
          },
          60_000,
          `${v.name} bootstrap`,
        );
        assert.equal(st.index_status, "ready", `${v.name}: ${JSON.stringify(st)}`);
        assert.equal(st.vcs_mode, v.gitMode ? "git" : "plain", v.name);
        const hit = bodyOf(
          await s.client.callTool({ name: "search_code", arguments: { workspace: v.dir, query: "alpha_fn" } }),
        );
        assert.match(JSON.stringify(hit), /alpha\.py/, `${v.name}: search finds the file`);
      }
      assertNoMarkers("auto-workspace bootstrap");
    } finally {
      await s.client.close();
    }
    assertNoMarkers("auto-workspace server shutdown");
  },
});

Deno.test({
  name: "hostile git: teardown",
  fn() {
    Deno.removeSync(base, { recursive: true });
    for (const h of homes.values()) Deno.removeSync(h, { recursive: true });
  },
});
