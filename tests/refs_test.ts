/**
 * Git refs: indexing a branch, tag or commit from git objects (never the
 * working tree), every query tool answering from it with `ref`, list_refs,
 * switch_ref, the errors (`ref_not_indexed` with its fix, `overlay_not_ready`,
 * `invalid_input` for names git could read as options), a branch that moves,
 * worktrees, and a ref's tree that is hostile (symlink entries, a submodule,
 * `.gitattributes` naming filter and textconv programs). The working tree,
 * `HEAD` and the git index are asserted untouched throughout.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { commitAll, git } from "./helpers/fixture_repo.ts";
import { bodyOf, type InProcess, inProcess, stdioClient, tempHomeDir, waitFor } from "./mcp_helpers.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { checkRefName, gitListTree } from "../src/io/git.ts";
import { listRefStores, refsDir, refsStorePath, touchRefStore } from "../src/state/ref_stores.ts";
import type { ToolResult } from "../src/service/envelope.ts";

const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "cruxe-refs-" }));
const marks = join(base, "marks");
Deno.mkdirSync(marks);
/** A shell command that records `vector` in the marker directory (must never run). */
const prog = (vector: string) => `sh -c 'echo ${vector} >> ${join(marks, vector)}; cat'`;

const MAX_FILE_BYTES = 4096;

/**
 * The test repository. `main`: `pkg/a.go` (Alpha), `moved/m.go` (Mover),
 * `mod/old.py` (a module). `feat`: Alpha renamed to AlphaRenamed, `moved/m.go`
 * moved to `elsewhere/m.go`, `mod/old.py` deleted, plus a binary `.go` file, a
 * file over the size limit, a symlink entry to `/etc/passwd`, a symlinked
 * directory entry, a submodule gitlink and a `.gitattributes` sending every
 * file through the `evil` filter and textconv. `other`: one more function.
 * The repository's config defines `evil` (and an fsmonitor and hooks) after
 * the commits, so only a conversion or hook at read time could run them.
 */
function makeRepo(dir: string): { main: string; feat: string; other: string } {
  Deno.mkdirSync(join(dir, "pkg"), { recursive: true });
  Deno.mkdirSync(join(dir, "moved"));
  Deno.mkdirSync(join(dir, "mod"));
  Deno.writeTextFileSync(join(dir, "pkg/a.go"), "package pkg\n\nfunc Alpha() int { return 1 }\n");
  Deno.writeTextFileSync(join(dir, "moved/m.go"), "package moved\n\nfunc Mover() int { return 2 }\n");
  Deno.writeTextFileSync(join(dir, "mod/old.py"), "def old_module_fn():\n    return 3\n");
  git(dir, "init", "-q", "-b", "main");
  commitAll(dir, "main");
  git(dir, "tag", "v1");
  const main = git(dir, "rev-parse", "HEAD").trim();
  git(dir, "checkout", "-q", "-b", "feat");
  Deno.writeTextFileSync(join(dir, "pkg/a.go"), "package pkg\n\nfunc AlphaRenamed() int { return 1 }\n");
  Deno.mkdirSync(join(dir, "elsewhere"));
  git(dir, "mv", "moved/m.go", "elsewhere/m.go");
  git(dir, "rm", "-q", "mod/old.py");
  Deno.writeFileSync(join(dir, "pkg/blob.go"), new Uint8Array([0x70, 0x61, 0, 0, 0x01, 0x02]));
  Deno.writeTextFileSync(
    join(dir, "pkg/big.go"),
    "package pkg\n\n// " + "x".repeat(MAX_FILE_BYTES) + "\nfunc Big() {}\n",
  );
  Deno.symlinkSync("/etc/passwd", join(dir, "leak.go"));
  Deno.symlinkSync("/etc", join(dir, "etcdir"));
  Deno.writeTextFileSync(join(dir, ".gitattributes"), "* filter=evil diff=evil\n");
  commitAll(dir, "feat");
  git(dir, "update-index", "--add", "--cacheinfo", `160000,${main},sub`);
  git(dir, "commit", "-q", "-m", "submodule entry");
  const feat = git(dir, "rev-parse", "HEAD").trim();
  git(dir, "checkout", "-q", "main");
  git(dir, "checkout", "-q", "-b", "other");
  Deno.writeTextFileSync(join(dir, "pkg/o.go"), "package pkg\n\nfunc OtherOnly() int { return 4 }\n");
  commitAll(dir, "other");
  const other = git(dir, "rev-parse", "HEAD").trim();
  git(dir, "checkout", "-q", "main");
  for (const key of ["filter.evil.clean", "filter.evil.smudge", "diff.evil.textconv", "core.fsmonitor"]) {
    git(dir, "config", key, prog(key.split(".")[0]));
  }
  git(dir, "config", "filter.evil.required", "true");
  for (const h of ["post-checkout", "reference-transaction", "post-index-change"]) {
    Deno.writeTextFileSync(join(dir, ".git/hooks", h), `#!/bin/sh\necho hook >> ${join(marks, "hook")}\n`);
    Deno.chmodSync(join(dir, ".git/hooks", h), 0o755);
  }
  return { main, feat, other };
}

const repo = join(base, "repo");
Deno.mkdirSync(repo);
const commits = makeRepo(repo);

/** Every file of the working tree with its bytes, plus `.git/HEAD`, `.git/index` and the branch refs. */
function snapshot(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of Deno.readDirSync(join(repo, rel))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (r === ".git") continue;
      if (e.isDirectory) walk(r);
      else if (e.isFile) out.set(r, Deno.readTextFileSync(join(repo, r)));
    }
  };
  walk("");
  for (const f of [".git/HEAD", ".git/index"]) {
    const st = Deno.statSync(join(repo, f));
    out.set(f, `${st.mtime?.getTime()}:${Deno.readFileSync(join(repo, f)).join(",")}`);
  }
  for (const f of [".git/refs/heads/main", ".git/refs/heads/feat"]) out.set(f, Deno.readTextFileSync(join(repo, f)));
  return out;
}

/** The test's own git calls after the evil config is in place, with its programs switched off. */
function tame(dir: string, ...args: string[]): string {
  return git(dir, "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", ...args);
}

function markers(): string[] {
  return [...Deno.readDirSync(marks)].map((e) => e.name).sort();
}

/** A call's error code (null for a success). */
function codeOf(r: ToolResult): string | null {
  return r.isError ? (bodyOf(r).error as { code: string }).code : null;
}

function metaOf(r: ToolResult): Record<string, unknown> {
  return bodyOf(r).metadata as Record<string, unknown>;
}

/** Symbol names an answer mentions (from its JSON). */
function names(r: ToolResult): string[] {
  return [...new Set(JSON.stringify(bodyOf(r)).match(/\b(Alpha\w*|Mover|OtherOnly|Big|old_module_fn)\b/g) ?? [])]
    .sort();
}

/** True when an answer holds a symbol named exactly `name` (a miss may answer near names instead). */
function defines(r: ToolResult, name: string): boolean {
  return !r.isError && JSON.stringify(bodyOf(r)).includes(`"name":"${name}"`);
}

let s: InProcess;
const before = snapshot();

/** Calls a tool as the stdio session does (switch_ref keeps its default per session). */
function stdioCall(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return s.dispatcher.call(name, { workspace: repo, ...args }, {
    sendNotification: () => Promise.resolve(),
    signal: new AbortController().signal,
    session: "stdio",
  });
}

Deno.test({
  name: "setup: the working tree (main) is indexed",
  fn: async () => {
    s = inProcess({}, { env: { CRUXE_MAX_FILE_BYTES: String(MAX_FILE_BYTES) }, readerWorkers: 0 });
    registerProject(s.registry, repo);
    const r = await s.call("index_repo", { workspace: repo, wait: true });
    assert.equal(codeOf(r), null, JSON.stringify(bodyOf(r)));
    assert.deepEqual(names(await s.call("locate_symbol", { workspace: repo, name: "Alpha" })), ["Alpha"]);
  },
});

Deno.test("ref names git could read as options are refused with invalid_input", async () => {
  for (const bad of ["--output=x", "-c", "--upload-pack=evil", "a b", "main\nx", "x;rm"]) {
    assert.throws(() => checkRefName(bad), /not a ref name/, bad);
    for (const tool of ["index_repo", "locate_symbol"]) {
      const r = await s.call(tool, { workspace: repo, ref: bad, name: "Alpha" });
      assert.equal(codeOf(r), "invalid_input", `${tool} ${bad}: ${JSON.stringify(bodyOf(r))}`);
    }
  }
  assert.ok(!Deno.statSync(repo).isFile && !markers().length);
  assert.throws(() => Deno.statSync(join(repo, "x")), Deno.errors.NotFound); // --output=x wrote nothing
});

Deno.test("a ref not indexed answers ref_not_indexed with the index_repo call that fixes it", async () => {
  const r = await s.call("locate_symbol", { workspace: repo, name: "AlphaRenamed", ref: "feat" });
  assert.equal(codeOf(r), "ref_not_indexed");
  const data = (bodyOf(r).error as { data: Record<string, unknown> }).data;
  assert.equal(data.commit, commits.feat);
  assert.deepEqual(data.fix, { tool: "index_repo", arguments: { workspace: repo, ref: "feat", wait: true } });
  const unknown = await s.call("search_code", { workspace: repo, query: "Alpha", ref: "no-such-branch" });
  assert.equal(codeOf(unknown), "ref_not_indexed");
});

Deno.test("index_repo with ref indexes the branch from git objects; the working tree is untouched", async () => {
  const r = await s.call("index_repo", { workspace: repo, ref: "feat", wait: true });
  const b = bodyOf(r);
  assert.equal(codeOf(r), null, JSON.stringify(b));
  assert.equal(b.commit, commits.feat);
  assert.equal(b.kind, "branch");
  assert.equal(b.status, "published");
  // pkg/a.go, elsewhere/m.go and .gitattributes? (no language) → the two Go files only.
  assert.equal(b.file_count, 2, JSON.stringify(b));
  assert.deepEqual(snapshot(), before, "the working tree, HEAD or the git index changed");
  assert.deepEqual(markers(), [], "a filter, textconv, fsmonitor or hook ran");
  const again = bodyOf(await s.call("index_repo", { workspace: repo, ref: "feat", wait: true }));
  assert.equal(again.already_indexed, true, "re-indexing the same commit is a no-op");
  assert.equal(again.commit, commits.feat);
  const forced = bodyOf(await s.call("index_repo", { workspace: repo, ref: "feat", force: true, wait: true }));
  assert.equal(forced.status, "published", "force rebuilds the same commit's store");
  assert.equal(forced.mode, "full");
  assert.equal(forced.file_count, 2);
});

Deno.test("query tools answer from the ref with `ref`, and from the working tree without", async () => {
  const onRef = await s.call("locate_symbol", { workspace: repo, name: "AlphaRenamed", ref: "feat" });
  assert.deepEqual(names(onRef), ["AlphaRenamed"]);
  assert.equal(metaOf(onRef).ref, "feat");
  assert.equal(metaOf(onRef).ref_commit, commits.feat);
  assert.ok(!defines(await s.call("locate_symbol", { workspace: repo, name: "AlphaRenamed" }), "AlphaRenamed"));
  assert.ok(!defines(await s.call("locate_symbol", { workspace: repo, name: "Alpha", ref: "feat" }), "Alpha"));
  // The moved file is at its new path on the ref, at its old one in the working tree.
  const moved = JSON.stringify(bodyOf(await s.call("locate_symbol", { workspace: repo, name: "Mover", ref: "feat" })));
  assert.match(moved, /elsewhere\/m\.go/);
  assert.doesNotMatch(moved, /moved\/m\.go/);
  // The deleted module is gone on the ref; binary, too large, symlink and submodule entries were never indexed.
  for (const path of ["mod/old.py", "pkg/blob.go", "pkg/big.go", "leak.go", "sub", "etcdir/passwd"]) {
    assert.equal(
      codeOf(await s.call("get_file_outline", { workspace: repo, path, ref: "feat" })),
      "file_not_found",
      path,
    );
  }
  assert.deepEqual(names(await s.call("get_file_outline", { workspace: repo, path: "mod/old.py" })), ["old_module_fn"]);
  // Tools without a `ref` of their own take it too (added by the dispatcher).
  const ctx = await s.call("get_code_context", { workspace: repo, query: "AlphaRenamed", ref: "feat" });
  assert.equal(codeOf(ctx), null, JSON.stringify(bodyOf(ctx)));
  assert.match(JSON.stringify(bodyOf(ctx)), /AlphaRenamed/);
  const search = await s.call("search_code", { workspace: repo, query: "AlphaRenamed", ref: "feat" });
  assert.deepEqual(names(search), ["AlphaRenamed"]);
  const scoped = await s.call("search_code", { workspace: repo, query: "Alpha", ref: "feat", repo: "repo" });
  assert.equal(codeOf(scoped), "invalid_input", "a multi-repository search cannot take a ref");
  // A client's vector cannot be used on a ref (vectors follow the working tree): refused, not ignored.
  const vector = await s.call("search_code", { workspace: repo, query: "Alpha", ref: "feat", vector: [1, 0] });
  assert.equal(codeOf(vector), "invalid_input", JSON.stringify(bodyOf(vector)));
  assert.deepEqual(markers(), []);
});

Deno.test("a refs store of an older schema answers index_incompatible with the ref's own rebuild as the fix", async () => {
  const dir = s.registry.projectDir(s.registry.projectByRoot(repo)!.project_id);
  const db = new DatabaseSync(refsStorePath(dir));
  db.exec("UPDATE meta SET value = '4' WHERE key = 'schema_version'");
  db.close();
  s.rt.readers.closeAll(); // as a server started after the upgrade: no connection opened before it
  const r = await s.call("locate_symbol", { workspace: repo, name: "AlphaRenamed", ref: "feat" });
  assert.equal(codeOf(r), "index_incompatible");
  const data = (bodyOf(r).error as { data: Record<string, unknown> }).data;
  assert.deepEqual(data.fix, { tool: "index_repo", arguments: { workspace: repo, ref: "feat", wait: true } });
  assert.equal(data.schema_status, "reindex_required");
  const listed = (bodyOf(await s.call("list_refs", { workspace: repo })).indexed as { ref: string; state: string }[])
    .find((x) => x.ref === "feat");
  assert.equal(listed?.state, "reindex_required");
  // The fix it names works: indexing the ref again rebuilds the old store instead of calling it indexed.
  const again = bodyOf(await s.call("index_repo", { workspace: repo, ref: "feat", wait: true }));
  assert.equal(again.already_indexed, undefined, JSON.stringify(again));
  assert.equal(again.status, "published");
  assert.equal(again.mode, "full");
  assert.deepEqual(names(await s.call("locate_symbol", { workspace: repo, name: "AlphaRenamed", ref: "feat" })), [
    "AlphaRenamed",
  ]);
  assert.deepEqual(markers(), []);
});

Deno.test("tags and commit ids are accepted and resolved; the answer says which", async () => {
  const tag = bodyOf(await s.call("index_repo", { workspace: repo, ref: "v1", wait: true }));
  assert.equal(tag.kind, "tag");
  assert.equal(tag.commit, commits.main);
  const synced = bodyOf(await s.call("sync_repo", { workspace: repo, ref: "v1", wait: true }));
  assert.equal(synced.already_indexed, true, "sync_repo with ref: the same commit is already indexed");
  assert.equal(synced.changed_files, 0);
  const byId = await s.call("locate_symbol", { workspace: repo, name: "Alpha", ref: commits.main });
  assert.deepEqual(names(byId), ["Alpha"]);
  assert.equal(metaOf(byId).ref_commit, commits.main);
});

Deno.test("list_refs lists indexed refs with counts and the branches not yet indexed", async () => {
  const b = bodyOf(await s.call("list_refs", { workspace: repo }));
  const live = b.live as Record<string, unknown>;
  assert.deepEqual([live.ref, live.branch], ["WORKTREE", "main"]);
  assert.equal(live.kind, "working_tree");
  const indexed = b.indexed as Record<string, unknown>[];
  const feat = indexed.find((x) => x.commit === commits.feat)!;
  assert.equal(feat.ref, "feat");
  assert.equal(feat.kind, "branch");
  assert.equal(feat.file_count, 2);
  assert.equal(feat.state, "ready");
  assert.ok(typeof feat.symbol_count === "number" && feat.symbol_count >= 2);
  assert.ok(indexed.some((x) => x.commit === commits.main && x.kind === "tag"));
  assert.deepEqual((b.not_indexed as Record<string, unknown>[]).map((x) => x.ref), ["other"]);
  const ready = bodyOf(await s.call("index_status", { workspace: repo, ref: "feat" }));
  assert.equal(ready.state, "ready");
  assert.equal(ready.commit, commits.feat);
  assert.equal(ready.file_count, 2);
  const missing = bodyOf(await s.call("index_status", { workspace: repo, ref: "other" }));
  assert.equal(missing.state, "not_indexed");
  assert.deepEqual((missing.fix as { arguments: unknown }).arguments, { workspace: repo, ref: "other", wait: true });
  assert.equal(bodyOf(await s.call("index_status", { workspace: repo })).index_status, "ready");
});

Deno.test("index_status with ref: one shape with the working tree's, and the metadata names the asked ref", async () => {
  const live = bodyOf(await s.call("index_status", { workspace: repo }));
  const keys = (b: Record<string, unknown>) => Object.keys(b).filter((k) => k !== "metadata");
  const liveKeys = keys(live).filter((k) => !["watch", "semantic", "interrupted_recovery_report"].includes(k));
  assert.ok(liveKeys.length >= 10, JSON.stringify(liveKeys));
  for (const ref of ["feat", "other"]) {
    const r = await s.call("index_status", { workspace: repo, ref });
    const b = bodyOf(r);
    assert.deepEqual(liveKeys.filter((k) => !(k in b)), [], `index_status {ref: ${ref}} lacks fields`);
    assert.equal(b.project_id, live.project_id);
    assert.equal(b.repo_root, repo);
    assert.ok(Array.isArray(b.recent_jobs));
    assert.equal(metaOf(r).ref, ref);
    assert.equal(metaOf(r).ref_commit, commits[ref as "feat" | "other"]);
  }
  const feat = bodyOf(await s.call("index_status", { workspace: repo, ref: "feat" }));
  assert.deepEqual([feat.index_status, feat.schema_status, feat.active_job], ["ready", "compatible", null]);
  assert.ok((feat.recent_jobs as { ref: string }[]).length > 0, "the ref's own jobs are listed");
  assert.ok((feat.recent_jobs as { ref: string }[]).every((j) => j.ref.endsWith(`@${commits.feat}`)));
  const other = await s.call("index_status", { workspace: repo, ref: "other" });
  assert.deepEqual([bodyOf(other).index_status, bodyOf(other).schema_status], ["not_indexed", "not_indexed"]);
  assert.deepEqual([metaOf(other).indexing_status, metaOf(other).schema_status], ["not_indexed", "not_indexed"]);
  assert.notEqual(metaOf(other).freshness_status, "fresh");
  // The checked-out branch's name is its commit (not indexed here), WORKTREE the working tree.
  const main = await s.call("index_status", { workspace: repo, ref: "main" });
  assert.equal(bodyOf(main).commit, commits.main);
  assert.equal(metaOf(main).ref, "main");
  const worktree = bodyOf(await s.call("index_status", { workspace: repo, ref: "WORKTREE" }));
  assert.equal(worktree.index_status, "ready");
  assert.equal(worktree.commit, undefined);
});

Deno.test("switch_ref changes the session's default ref; HTTP (no session) is told to pass ref", async () => {
  const sw = bodyOf(await stdioCall("switch_ref", { ref: "feat" }));
  assert.equal(sw.previous_ref, "WORKTREE");
  assert.equal(sw.commit, commits.feat);
  assert.equal(sw.indexed, true);
  assert.deepEqual(names(await stdioCall("locate_symbol", { name: "AlphaRenamed" })), ["AlphaRenamed"]);
  // Another session (here: a call without one) still reads the working tree.
  assert.ok(!defines(await s.call("locate_symbol", { workspace: repo, name: "AlphaRenamed" }), "AlphaRenamed"));
  const notYet = bodyOf(await stdioCall("switch_ref", { ref: "other" }));
  assert.equal(notYet.indexed, false);
  assert.deepEqual((notYet.fix as { arguments: unknown }).arguments, { workspace: repo, ref: "other", wait: true });
  assert.equal(codeOf(await stdioCall("locate_symbol", { name: "OtherOnly" })), "ref_not_indexed");
  const back = bodyOf(await stdioCall("switch_ref", { ref: "WORKTREE" }));
  assert.equal(back.previous_ref, "other");
  assert.deepEqual([back.ref, back.branch, back.changed], ["WORKTREE", "main", true]);
  assert.equal(bodyOf(await stdioCall("switch_ref", { ref: "live" })).changed, false, "the older spelling");
  assert.deepEqual(names(await stdioCall("locate_symbol", { name: "Alpha" })), ["Alpha"]);
  assert.equal(codeOf(await s.call("switch_ref", { workspace: repo, ref: "feat" })), "invalid_input");
});

Deno.test("a ref still being indexed answers overlay_not_ready with its job", async () => {
  const started = bodyOf(await s.call("index_repo", { workspace: repo, ref: "other" }));
  assert.equal(started.commit, commits.other);
  const r = await s.call("locate_symbol", { workspace: repo, name: "OtherOnly", ref: "other" });
  if (r.isError) {
    assert.equal(codeOf(r), "overlay_not_ready");
    assert.equal((bodyOf(r).error as { data: Record<string, unknown> }).data.job_id, started.job_id);
  }
  const job = s.rt.runner.activeRef(s.registry.projectByRoot(repo)!.project_id, commits.other);
  assert.ok(job || !r.isError, "a job was building when overlay_not_ready was answered");
  if (job) assert.equal((await job.done).status, "published");
  assert.deepEqual(names(await s.call("locate_symbol", { workspace: repo, name: "OtherOnly", ref: "other" })), [
    "OtherOnly",
  ]);
});

Deno.test("a branch that moves: answers from the old commit marked stale, then indexes the new one incrementally", async () => {
  // Move `feat` without any checkout: a new commit on top of it made with plumbing.
  const tree = tame(repo, "rev-parse", "other^{tree}").trim();
  const next = tame(repo, "commit-tree", tree, "-p", commits.feat, "-m", "moved on").trim();
  tame(repo, "update-ref", "refs/heads/feat", next);
  const stale = await s.call("locate_symbol", { workspace: repo, name: "AlphaRenamed", ref: "feat" });
  assert.deepEqual(names(stale), ["AlphaRenamed"]);
  assert.equal(metaOf(stale).freshness_status, "stale");
  assert.equal(metaOf(stale).ref_commit, commits.feat);
  const b = bodyOf(await s.call("index_repo", { workspace: repo, ref: "feat", wait: true }));
  assert.equal(b.commit, next);
  assert.equal(b.mode, "incremental");
  const fresh = await s.call("locate_symbol", { workspace: repo, name: "OtherOnly", ref: "feat" });
  assert.deepEqual(names(fresh), ["OtherOnly"]);
  assert.equal(metaOf(fresh).freshness_status, "fresh");
  assert.equal(metaOf(fresh).ref_commit, next);
  tame(repo, "update-ref", "refs/heads/feat", commits.feat); // later tests expect feat where it was
  assert.deepEqual(snapshot(), before);
});

Deno.test("the tree listing skips symlink and submodule entries by mode and never yields unsafe paths", async () => {
  const entries = await gitListTree(repo, commits.feat);
  assert.ok(entries);
  const byPath = new Map(entries.map((e) => [e.path, e]));
  assert.equal(byPath.get("leak.go")?.mode, "120000");
  assert.equal(byPath.get("sub")?.mode, "160000");
  assert.equal(byPath.get("sub")?.type, "commit");
  assert.ok(entries.every((e) => !e.path.split("/").includes("..")));
  assert.equal(await gitListTree(repo, "--output=/tmp/x"), null);
  // A crafted tree (git mktree accepts these names; checkout never writes them): `..`, `.git`, a backslash.
  const blob = tame(repo, "rev-parse", `${commits.main}:pkg/a.go`).trim();
  const listing = ["..", ".git", "x\\y.go", "ok.go"].map((n) => `100644 blob ${blob}\t${n}\n`).join("");
  const mk = new Deno.Command("git", { args: ["-C", repo, "mktree"], stdin: "piped", stdout: "piped" }).spawn();
  const w = mk.stdin.getWriter();
  await w.write(new TextEncoder().encode(listing));
  await w.close();
  const tree = new TextDecoder().decode((await mk.output()).stdout).trim();
  const crafted = tame(repo, "commit-tree", tree, "-m", "crafted").trim();
  assert.deepEqual((await gitListTree(repo, crafted))?.map((e) => e.path), ["ok.go"]);
  const r = bodyOf(await s.call("index_repo", { workspace: repo, ref: crafted, wait: true }));
  assert.equal(r.kind, "commit");
  assert.equal(r.file_count, 1, JSON.stringify(r));
});

Deno.test({
  name: "a linked git worktree is its own workspace with its own live ref",
  fn: async () => {
    const wt = join(base, "wt-other");
    tame(repo, "-c", "filter.evil.required=false", "worktree", "add", "-q", wt, "other");
    registerProject(s.registry, wt);
    const r = await s.call("index_repo", { workspace: wt, wait: true });
    assert.equal(codeOf(r), null, JSON.stringify(bodyOf(r)));
    assert.equal((bodyOf(await s.call("list_refs", { workspace: wt })).live as { branch: string }).branch, "other");
    assert.deepEqual(names(await s.call("locate_symbol", { workspace: wt, name: "OtherOnly" })), ["OtherOnly"]);
    // The main checkout's live ref is unchanged.
    assert.ok(!defines(await s.call("locate_symbol", { workspace: repo, name: "OtherOnly" }), "OtherOnly"));
    // The main checkout's ref stores serve the worktree (same objects): feat is indexed there already.
    const feat = bodyOf(await s.call("index_repo", { workspace: wt, ref: "feat", wait: true }));
    assert.equal(feat.commit, commits.feat);
    assert.equal(feat.already_indexed, true);
    assert.deepEqual(names(await s.call("locate_symbol", { workspace: wt, name: "AlphaRenamed", ref: "feat" })), [
      "AlphaRenamed",
    ]);
    const listed = (bodyOf(await s.call("list_refs", { workspace: wt })).indexed as Record<string, unknown>[])
      .find((x) => x.commit === commits.feat);
    assert.equal(listed?.shared, true);
    // A commit new to both, asked for in the worktree, goes into the repository's one refs store (the main
    // checkout's): indexed once, from feat's list (same tree: nothing parsed), and it answers in both.
    const tree = tame(repo, "rev-parse", "feat^{tree}").trim();
    const fresh = tame(repo, "commit-tree", tree, "-p", commits.feat, "-m", "same tree, new commit").trim();
    const built = bodyOf(await s.call("index_repo", { workspace: wt, ref: fresh, wait: true }));
    assert.equal(built.status, "published", JSON.stringify(built));
    assert.equal(built.file_count, 2);
    const wtDir = s.registry.projectDir(s.registry.projectByRoot(wt)!.project_id);
    const mainDir = s.registry.projectDir(s.registry.projectByRoot(repo)!.project_id);
    assert.deepEqual(listRefStores(wtDir), [], "the worktree keeps no refs store of its own");
    assert.ok(listRefStores(mainDir).some((x) => x.commit === fresh));
    for (const workspace of [wt, repo]) {
      assert.deepEqual(names(await s.call("locate_symbol", { workspace, name: "AlphaRenamed", ref: fresh })), [
        "AlphaRenamed",
      ]);
    }
  },
});

Deno.test("indexed commits past the cap go least recently used first; their versions go with them", async () => {
  const dir = s.registry.projectDir(s.registry.projectByRoot(repo)!.project_id);
  const before = listRefStores(dir).map((x) => x.commit);
  assert.ok(before.length >= 2 && before.includes(commits.main) && before.includes(commits.feat), before.join());
  // A use makes feat the most recent (queries record one at most once a minute, so it is recorded here): touched
  // until its mark is later than every other commit's, however coarse the file system's clock.
  const used = join(refsDir(dir), "used");
  const mtime = (name: string) => Deno.statSync(join(used, name)).mtime?.getTime() ?? 0;
  await waitFor(
    () => {
      touchRefStore(refsDir(dir), commits.feat);
      const others = [...Deno.readDirSync(used)].map((e) => e.name).filter((n) => n !== commits.feat);
      return others.every((n) => mtime(n) < mtime(commits.feat));
    },
    10_000,
    "feat recorded as the latest use",
  );
  // The cap is a setting (`CRUXE_MAX_REF_STORES`, read once into the config): this server's config holds 2.
  const cap = s.rt.config.maxRefStores;
  s.rt.config.maxRefStores = 2;
  try {
    const third = tame(repo, "commit-tree", tame(repo, "rev-parse", "other^{tree}").trim(), "-m", "third").trim();
    const b = bodyOf(await s.call("index_repo", { workspace: repo, ref: third, wait: true }));
    assert.equal(b.status, "published", JSON.stringify(b));
    const kept = listRefStores(dir).map((x) => x.commit);
    assert.deepEqual([...kept].sort(), [commits.feat, third].sort());
    assert.equal(
      codeOf(await s.call("locate_symbol", { workspace: repo, name: "Alpha", ref: "v1" })),
      "ref_not_indexed",
    );
    const listed = bodyOf(await s.call("list_refs", { workspace: repo }));
    const ownListed = (listed.indexed as { commit: string; shared?: boolean }[]).filter((x) => !x.shared);
    assert.deepEqual(ownListed.map((x) => x.commit).sort(), [...kept].sort());
    // The store holds exactly the versions the kept commits list: the evicted commit's own are deleted.
    const db = new DatabaseSync(refsStorePath(dir), { readOnly: true });
    try {
      const one = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n);
      assert.equal(one("SELECT count(*) AS n FROM files"), one("SELECT count(DISTINCT file_id) AS n FROM ref_files"));
      assert.equal(one("SELECT count(*) AS n FROM symbol_rows WHERE file_id NOT IN (SELECT id FROM files)"), 0);
      assert.equal(one("SELECT count(*) AS n FROM ref_commits"), 2);
    } finally {
      db.close();
    }
  } finally {
    s.rt.config.maxRefStores = cap;
  }
});

Deno.test({
  name: "stores of the earlier layout (one per commit) unused for a day are removed at start and by a ref build",
  fn: async () => {
    const dir = s.registry.projectDir(s.registry.projectByRoot(repo)!.project_id);
    const dayAgo = new Date(Date.now() - 25 * 3600_000);
    const recent = join(refsDir(dir), "c".repeat(40));
    const plant = () => {
      const dirs = [join(refsDir(dir), "a".repeat(40)), join(refsDir(dir), `${"b".repeat(40)}.building`)];
      for (const d of [...dirs, recent]) {
        Deno.mkdirSync(d, { recursive: true });
        Deno.writeTextFileSync(join(d, "index.db"), "x");
      }
      // An older Cruxe recorded each use in the directory's mtime: these were last used a day ago.
      for (const d of dirs) Deno.utimeSync(d, dayAgo, dayAgo);
      return dirs;
    };
    const gone = (dirs: string[]) => {
      for (const d of dirs) assert.throws(() => Deno.statSync(d), Deno.errors.NotFound, d);
    };
    const planted = plant();
    const b = bodyOf(await s.call("index_repo", { workspace: repo, ref: "v1", wait: true }));
    assert.equal(b.status, "published", JSON.stringify(b));
    gone(planted);
    const again = plant();
    inProcess({}, { home: s.home, readerWorkers: 0 }).close(); // a server starting on the same home
    gone(again);
    assert.ok(Deno.statSync(recent).isDirectory, "a store used within the day is left to the Cruxe using it");
    assert.ok(listRefStores(dir).length > 0, "the refs store itself stays");
  },
});

Deno.test({
  name: "over stdio (the sandboxed server): index a ref, switch_ref for the session, query without ref",
  fn: async () => {
    const c = await stdioClient(tempHomeDir(), ["--workspace", repo, "--no-prewarm", "--no-watch", "--tools", "all"]);
    try {
      const call = async (name: string, args: Record<string, unknown>) =>
        await c.client.callTool({ name, arguments: args }) as unknown as ToolResult;
      const idx = bodyOf(await call("index_repo", { ref: "feat", wait: true }));
      assert.equal(idx.commit, commits.feat, JSON.stringify(idx) + c.stderr());
      assert.equal(bodyOf(await call("switch_ref", { ref: "feat" })).indexed, true);
      const r = await call("locate_symbol", { name: "AlphaRenamed" });
      assert.deepEqual(names(r), ["AlphaRenamed"]);
      assert.equal(metaOf(r).ref, "feat");
      const refs = bodyOf(await call("list_refs", {}));
      assert.equal(refs.default_ref, "feat");
    } finally {
      await c.client.close();
    }
    assert.deepEqual(snapshot(), before);
  },
});

Deno.test({
  name: "teardown",
  fn: () => {
    s.close();
    assert.deepEqual(markers(), []);
  },
});
