/**
 * Hostile paths against every check that keeps requests inside their
 * roots — open_file, isWithinRoot / isWithinAnyRoot, relativePathProblem,
 * canonicalDir and the workspace router with --auto-workspace. Zero false
 * negatives (nothing outside a root is read or registered) and zero false
 * positives (legitimate paths work). Each input is its own test.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CruxeError } from "../src/core/errors.ts";
import { isWithinAnyRoot, isWithinRoot, relativePathProblem } from "../src/core/path_policy.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { canonicalDir } from "../src/io/workspace_dir.ts";
import { requireIndex } from "../src/query/index_reader.ts";
import { openFile } from "../src/query/open_file.ts";
import { checkServeOptions, type ServeOptions } from "../src/mcp/serve_options.ts";
import { bodyOf, inProcess } from "./mcp_helpers.ts";

const SECRET = "OUTSIDE-SECRET-7f3a";
const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "cruxe-sec-" }));
const dev = join(base, "dev"); // the allowed root
const repo = join(dev, "repo"); // a workspace in it
const dev2 = join(base, "dev2"); // sibling with the same prefix
const outside = join(base, "outside");
for (const d of [join(repo, "src"), join(repo, "dir with space"), dev2, outside, join(dev, "other")]) {
  Deno.mkdirSync(d, { recursive: true });
}
const write = (p: string, s: string) => Deno.writeTextFileSync(p, s);
write(join(outside, "secret.txt"), SECRET + "\n");
write(join(dev2, "secret.txt"), SECRET + "\n");
write(join(repo, "src/a.ts"), "export const a = 1;\n");
write(join(repo, "src/a..b.ts"), "export const ab = 1;\n");
write(join(repo, "src/ünïcödé.ts"), "export const u = 1;\n");
write(join(repo, "src/~backup.ts"), "export const b = 1;\n");
write(join(repo, "%41.ts"), "export const pct = 1;\n");
write(join(repo, "..."), "three dots\n");
write(join(repo, ".env"), "LOCAL=1\n");
write(join(repo, "dir with space/file name.ts"), "export const s = 1;\n");
write(join(dev, "file_ws"), "not a directory\n");
write(join(dev, "other/main.go"), "package main\n");
Deno.symlinkSync(join(outside, "secret.txt"), join(repo, "link_out"));
Deno.symlinkSync(join(repo, "chain2"), join(repo, "chain1"));
Deno.symlinkSync(join(repo, "chain3"), join(repo, "chain2"));
Deno.symlinkSync(join(outside, "secret.txt"), join(repo, "chain3"));
Deno.symlinkSync(outside, join(repo, "dir_out"));
Deno.symlinkSync(join(repo, "src/a.ts"), join(repo, "ok_link"));
Deno.symlinkSync(outside, join(dev, "ws_link")); // a workspace path inside the root that leaves it
Deno.symlinkSync(dev, join(base, "rootlink")); // a root that is itself a symlink

const REFUSED = new Set(["forbidden", "file_not_found", "invalid_input", "unsupported_media"]);

/** open_file must refuse (with `expect` when given) and never return outside content. */
function refusedByOpenFile(path: string, expect: string | null = "forbidden"): void {
  let code = "returned";
  let content = "";
  try {
    content = openFile(repo, { path }).content;
  } catch (e) {
    assert.ok(e instanceof CruxeError, `non-Cruxe error for ${JSON.stringify(path)}: ${e}`);
    code = e.code;
  }
  assert.ok(!content.includes(SECRET), `read outside content through ${JSON.stringify(path)}`);
  if (expect) assert.equal(code, expect, `${JSON.stringify(path)} gave ${code}`);
  else assert.ok(REFUSED.has(code), `${JSON.stringify(path)} gave ${code}`);
}

// ---- hostile request paths against open_file (and relativePathProblem where the text itself is the problem)

const HOSTILE_OPEN: [string, string, string | null][] = [
  ["plain ..", "../outside/secret.txt", "forbidden"],
  ["repeated ..", "../../../../../../../../../../etc/passwd", "forbidden"],
  [".. at the end", "src/..", "forbidden"],
  [".. after a real dir, climbing out", "src/../../../outside/secret.txt", "forbidden"],
  ["URL-encoded ..", "%2e%2e/%2e%2e/outside/secret.txt", "forbidden"],
  ["URL-encoded .. and slashes", "%2E%2E%2F%2E%2E%2Foutside%2Fsecret.txt", "forbidden"],
  ["double URL-encoded ..", "%252e%252e/%252e%252e/outside/secret.txt", "forbidden"],
  ["encoded slash between ..", "..%2f..%2foutside/secret.txt", "forbidden"],
  ["backslash separators", "..\\..\\outside\\secret.txt", "forbidden"],
  ["mixed separators", "src/..\\../outside/secret.txt", "forbidden"],
  ["absolute /etc", "/etc/passwd", "forbidden"],
  ["absolute /proc/self", "/proc/self/environ", "forbidden"],
  ["absolute /", "/", "forbidden"],
  ["absolute path to the secret", join(outside, "secret.txt"), "forbidden"],
  ["UNC path", "\\\\server\\share\\secret.txt", "forbidden"],
  ["drive letter", "C:\\Windows\\win.ini", "forbidden"],
  ["symlink inside the root pointing outside", "link_out", "forbidden"],
  ["symlink chain ending outside", "chain1", "forbidden"],
  ["directory symlink leaving the root", "dir_out/secret.txt", "forbidden"],
  ["NUL byte at the end", "src/a.ts\0", "forbidden"],
  ["NUL byte before ..", "\0../outside/secret.txt", "forbidden"],
  ["URL-encoded NUL", "src/a.ts%00.png", "forbidden"],
  ["very long path", "a/".repeat(3000) + "x", "forbidden"],
  ["very long .. chain", "../".repeat(2000) + "etc/passwd", "forbidden"],
  ["~ home", "~/.ssh/id_rsa", "forbidden"],
  ["~user home", "~root/.bashrc", "forbidden"],
  ["empty string", "", "forbidden"],
  ["whitespace only", " \t ", "forbidden"],
  ["fullwidth dots (NFKC ..)", "．．/outside/secret.txt", "forbidden"],
  ["two-dot leader (NFKC ..)", "‥/outside/secret.txt", "forbidden"],
  ["fullwidth solidus after ..", "..／outside／secret.txt", "forbidden"],
  ["zero-width space inside ..", ".\u200b./outside/secret.txt", null],
  ["NFD-composed name that does not exist", "src/u\u0308nicode.ts", null],
  ["tab after ..", "..\t/outside/secret.txt", "forbidden"],
  ["newline smuggling", "src/a.ts\n../../outside/secret.txt", "forbidden"],
  ["padded ..", " .. /outside/secret.txt", "forbidden"],
];

for (const [what, path, expect] of HOSTILE_OPEN) {
  Deno.test(`hostile open_file: ${what}`, () => refusedByOpenFile(path, expect));
}

// ---- containment checks (pure): candidates come from realpath, the checks must not be fooled

const HOSTILE_WITHIN: [string, () => boolean][] = [
  ["sibling with the same prefix", () => isWithinRoot(dev, dev2)],
  ["file in the sibling", () => isWithinRoot(dev, join(dev2, "secret.txt"))],
  ["root with a trailing slash vs sibling", () => isWithinRoot(dev + "/", dev2 + "/secret.txt")],
  ["non-canonical candidate with ..", () => isWithinRoot(dev, join(dev, "repo") + "/../../outside")],
  ["relative candidate", () => isWithinRoot(dev, "repo/src/a.ts")],
  ["empty root", () => isWithinRoot("", "/etc/passwd")],
  ["NUL in candidate", () => isWithinRoot(dev, dev + "/repo\0/../../etc")],
  ["no roots at all", () => isWithinAnyRoot([], "/etc/passwd")],
  ["different case (case-sensitive filesystem)", () => isWithinRoot(dev, dev.toUpperCase() + "/x")],
  ["different Unicode form is a different directory", () => isWithinRoot("/srv/café", "/srv/cafe\u0301/x")],
  ["parent of the root", () => isWithinRoot(dev, base)],
  ["any root among several", () => isWithinAnyRoot([dev2 + "/sub", join(dev, "repo")], dev)],
];
for (const [what, check] of HOSTILE_WITHIN) {
  Deno.test(`hostile containment: ${what}`, () => assert.equal(check(), false));
}

// ---- canonicalDir: what a workspace path may be

const HOSTILE_CANONICAL: [string, string, string][] = [
  ["a workspace that is a file", join(dev, "file_ws"), "project_not_found"],
  ["NUL byte", dev + "\0/repo", "invalid_input"],
  ["empty string", "", "invalid_input"],
  ["missing directory", join(dev, "nope"), "project_not_found"],
];
for (const [what, path, code] of HOSTILE_CANONICAL) {
  Deno.test(`hostile canonicalDir: ${what}`, () => {
    assert.throws(() => canonicalDir(path), (e: CruxeError) => e.code === code);
  });
}
Deno.test("hostile canonicalDir: a symlinked workspace resolves to where it really is (outside)", () => {
  assert.equal(canonicalDir(join(dev, "ws_link")), outside);
  assert.equal(isWithinRoot(dev, canonicalDir(join(dev, "ws_link"))), false);
});

// ---- the workspace router with --auto-workspace --allowed-root dev

const HOSTILE_WORKSPACES: [string, string, string][] = [
  ["/etc", "/etc", "workspace_not_allowed"],
  ["/proc/self", "/proc/self", "workspace_not_allowed"],
  ["/", "/", "workspace_not_allowed"],
  ["the root's sibling with the same prefix", dev2, "workspace_not_allowed"],
  ["traversal out of the root", join(repo, "../../outside"), "workspace_not_allowed"],
  ["spec example: ../../../etc/passwd", join(repo, "../../../etc/passwd"), "workspace_not_allowed"],
  ["symlink inside the root pointing outside", join(dev, "ws_link"), "workspace_not_allowed"],
  ["relative path climbing out (cwd = root)", "../outside", "workspace_not_allowed"],
  ["a workspace that is a file", join(dev, "file_ws"), "invalid_input"],
  ["NUL byte", dev + "/repo\0", "invalid_input"],
  ["empty string", "", "invalid_input"],
  ["~ (not expanded; missing under cwd)", "~", "workspace_not_allowed"],
];

const router = inProcess({ autoWorkspace: true, allowedRoots: [dev], cwd: dev });
for (const [what, ws, code] of HOSTILE_WORKSPACES) {
  Deno.test(`hostile workspace (auto-workspace): ${what}`, async () => {
    const r = await router.call("index_status", { workspace: ws });
    assert.equal(r.isError, true, JSON.stringify(bodyOf(r)));
    assert.equal((bodyOf(r).error as { code: string }).code, code);
    assert.ok(!JSON.stringify(r).includes(SECRET));
  });
}
Deno.test("hostile workspaces: nothing outside the root was registered or indexed", () => {
  for (const w of router.registry.listWorkspaces()) assert.ok(isWithinRoot(dev, w.path), w.path);
  for (const p of router.registry.listProjects()) assert.ok(isWithinRoot(dev, p.repo_root), p.repo_root);
});

Deno.test("hostile repository content: symlinks leaving the workspace are never indexed", async () => {
  const project = registerProject(router.registry, repo);
  const job = await router.rt.runner.start(project, { mode: "full", force: false }).active.done;
  assert.equal(job.status, "published");
  router.rt.readers.invalidate(project.project_id);
  const db = requireIndex(router.rt.readers.view(project));
  const paths = (db.prepare("SELECT path FROM files").all() as { path: string }[]).map((r) => r.path);
  assert.ok(paths.includes("src/a.ts"));
  for (const p of ["link_out", "chain1", "chain2", "chain3", "dir_out/secret.txt"]) assert.ok(!paths.includes(p), p);
  // The working tree's chunks keep no text: the full-text index is where a leaked file's words would be.
  const leaked = db.prepare("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?").get(`"${SECRET}"`) as {
    n: number;
  };
  assert.equal(leaked.n, 0);
  const own = db.prepare("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?").get('"src"') as { n: number };
  assert.ok(own.n > 0, "the full-text index holds the repository's own files");
});

Deno.test("hostile repository root: a registered root replaced by a symlink is refused, not followed", async () => {
  const victim = join(dev, "victim");
  Deno.mkdirSync(victim);
  write(join(victim, "ok.txt"), "fine\n");
  const project = registerProject(router.registry, victim);
  router.registry.upsertProject({ ...project, name: "victim" });
  const before = await router.call("open_file", { repo: "victim", path: "ok.txt" });
  assert.equal(bodyOf(before).content, "fine\n");
  Deno.renameSync(victim, victim + ".old");
  Deno.symlinkSync(outside, victim);
  const after = await router.call("open_file", { repo: "victim", path: "secret.txt" });
  assert.equal((bodyOf(after).error as { code: string }).code, "forbidden");
  assert.ok(!JSON.stringify(after).includes(SECRET));
});

// ---- legitimate paths: zero false positives

const LEGIT_OPEN: [string, string, string][] = [
  ["plain relative path", "src/a.ts", "export const a = 1;\n"],
  ["leading ./", "./src/a.ts", "export const a = 1;\n"],
  ["doubled slash", "src//a.ts", "export const a = 1;\n"],
  ["backslash separator", "src\\a.ts", "export const a = 1;\n"],
  ["dots inside a name", "src/a..b.ts", "export const ab = 1;\n"],
  ["a file named ...", "...", "three dots\n"],
  ["dotfile", ".env", "LOCAL=1\n"],
  ["spaces in names", "dir with space/file name.ts", "export const s = 1;\n"],
  ["non-ASCII name", "src/ünïcödé.ts", "export const u = 1;\n"],
  ["~ inside a name", "src/~backup.ts", "export const b = 1;\n"],
  ["a literal % in a name", "%41.ts", "export const pct = 1;\n"],
  ["symlink staying inside the root", "ok_link", "export const a = 1;\n"],
];
for (const [what, path, content] of LEGIT_OPEN) {
  Deno.test(`legit open_file: ${what}`, () => assert.equal(openFile(repo, { path }).content, content));
}

Deno.test("legit containment: the root itself, below it, and / as a root", () => {
  assert.equal(isWithinRoot(dev, dev), true);
  assert.equal(isWithinRoot(dev, join(repo, "src/a.ts")), true);
  assert.equal(isWithinRoot(dev + "/", repo), true);
  assert.equal(isWithinRoot("/", "/etc"), true);
  assert.equal(isWithinAnyRoot([dev2, dev], repo), true);
  assert.equal(relativePathProblem("a/".repeat(2000) + "x.ts"), null);
});

Deno.test("legit workspace: inside the allowed root, also reached through a symlinked root", async () => {
  const opts = checkServeOptions({
    transport: "stdio",
    port: 9100,
    bind: "127.0.0.1",
    workspaces: [],
    autoWorkspace: true,
    allowedRoots: [join(base, "rootlink")],
    prewarm: false,
    verbose: 0,
  } as ServeOptions);
  assert.deepEqual(opts.allowedRoots, [dev], "a symlinked --allowed-root is canonicalized");
  const r = await router.call("index_status", { workspace: join(base, "rootlink", "other") });
  assert.notEqual(r.isError, true, JSON.stringify(bodyOf(r)));
  assert.ok(router.registry.listWorkspaces().some((w) => w.path === join(dev, "other") && w.auto_discovered === 1));
});

Deno.test("paths from requests never reach a shell: the only subprocesses are git (from src/io/git.ts) and Cruxe itself", () => {
  const src = new URL("../src/", import.meta.url).pathname;
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of Deno.readDirSync(d)) {
      if (e.isDirectory) walk(join(d, e.name));
      else if (e.name.endsWith(".ts")) files.push(join(d, e.name));
    }
  };
  walk(src);
  let spawns = 0;
  for (const f of files) {
    const text = Deno.readTextFileSync(f);
    assert.ok(!/node:child_process|Deno\.run\(|shell:\s*true/.test(text), `${f} uses a shell-capable API`);
    for (const m of text.matchAll(/new Deno\.Command\(([^,]+),/g)) {
      spawns++;
      assert.ok(['"git"', "Deno.execPath()", "denoExecutable()"].includes(m[1].trim()), `${f} spawns ${m[1]}`);
    }
    if (/new Deno\.Command\("git"/.test(text)) {
      assert.ok(
        f.endsWith("/src/io/git.ts"),
        `${f} spawns git itself; every git call goes through src/io/git.ts`,
      );
    }
  }
  assert.ok(spawns > 0);
});

Deno.test({
  name: "security: teardown",
  fn() {
    router.close();
    Deno.removeSync(base, { recursive: true });
  },
});
