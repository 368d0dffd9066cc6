/**
 * Contract tests of diff_context and compare_symbol_between_commits over
 * MCP: their schemas, bad input, refs that are not indexed (with the call
 * that fixes it), merge-base failures, and answers with Protocol v1
 * metadata. The repository has branch `main` (v1) and the checked-out
 * branch `feature` (v2), whose working tree is the indexed one.
 */
import assert from "node:assert/strict";
import { commitAll, git } from "./helpers/fixture_repo.ts";
import { removeFiles, V1, V2, writeFiles } from "./helpers/two_versions.ts";
import { bodyOf, inProcess } from "./mcp_helpers.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { isErrorCode } from "../src/core/errors.ts";
import { gitMergeBase, isSafeRevision } from "../src/io/git.ts";
import { join } from "node:path";
import { AUTO_INDEX_MAX_FILES } from "../src/service/tools/ref_source.ts";

/** A git repository: v1 committed on main, v2 committed on feature (checked out). */
function branchedRepo(): { dir: string; mainCommit: string; feature: string } {
  const dir = writeFiles(Deno.makeTempDirSync({ prefix: "cruxe-branches-" }), V1);
  git(dir, "init", "-q", "-b", "main");
  commitAll(dir, "v1");
  const mainCommit = git(dir, "rev-parse", "HEAD").trim();
  git(dir, "checkout", "-q", "-b", "feature");
  removeFiles(dir, V1);
  writeFiles(dir, V2);
  commitAll(dir, "v2");
  return { dir, mainCommit, feature: git(dir, "rev-parse", "HEAD").trim() };
}

function errorOf(r: { isError?: boolean }): { code: string; message: string; data: Record<string, unknown> } {
  assert.equal(r.isError, true, "expected an error result");
  const b = bodyOf(r);
  assert.ok(b.metadata, "errors carry metadata");
  const e = b.error as { code: string; message: string; data: Record<string, unknown> };
  assert.ok(isErrorCode(e.code), `${e.code} is not in the registry`);
  return e;
}

Deno.test("diff_context and compare_symbol_between_commits over MCP", async (t) => {
  const { dir, mainCommit, feature } = branchedRepo();
  const s = inProcess({ cwd: dir });
  try {
    const p = registerProject(s.registry, dir);
    const job = await s.rt.runner.start(p, { mode: "full", force: false }).active.done;
    assert.equal(job.status, "published");
    const call = (name: string, args: Record<string, unknown>) => s.call(name, { workspace: dir, ...args });

    await t.step("tools/list: both tools, strict schemas, base_ref required", () => {
      const listed = s.dispatcher.listTools();
      for (const name of ["diff_context", "compare_symbol_between_commits"]) {
        const tool = listed.find((x) => x.name === name);
        assert.ok(tool, `${name} is listed`);
        assert.deepEqual(tool.inputSchema.required, ["base_ref"]);
        assert.equal(tool.inputSchema.additionalProperties, false);
        const props = tool.inputSchema.properties as Record<string, unknown>;
        for (const k of ["workspace", "base_ref", "head_ref"]) assert.ok(k in props, `${name} lacks ${k}`);
      }
      const diff = listed.find((x) => x.name === "diff_context")!.inputSchema.properties as Record<string, unknown>;
      for (const k of ["path_prefix", "max_tokens", "merge_base"]) assert.ok(k in diff, `diff_context lacks ${k}`);
    });

    await t.step("bad input: missing base_ref, an option-like ref, negative max_tokens, unknown keys", async () => {
      assert.equal(errorOf(await call("diff_context", {})).code, "invalid_input");
      assert.equal(
        errorOf(await call("compare_symbol_between_commits", { symbol_name: "scale" })).code,
        "invalid_input",
      );
      const opt = errorOf(await call("diff_context", { base_ref: "--output=/tmp/x" }));
      assert.equal(opt.code, "invalid_input");
      assert.equal(opt.data.field, "base_ref");
      assert.equal(errorOf(await call("diff_context", { base_ref: "main..feature" })).code, "invalid_input");
      assert.equal(errorOf(await call("diff_context", { base_ref: "feature", head_ref: "-x" })).code, "invalid_input");
      assert.equal(
        errorOf(await call("diff_context", { base_ref: "feature", max_tokens: -5 })).code,
        "invalid_max_tokens",
      );
      assert.equal(errorOf(await call("diff_context", { base_ref: "feature", bogus: 1 })).code, "invalid_input");
      const both = await call("compare_symbol_between_commits", {
        base_ref: "feature",
        symbol_name: "a",
        symbol_id: "b",
      });
      assert.equal(errorOf(both).code, "invalid_input");
    });

    await t.step("an unknown ref answers ref_not_indexed saying so", async () => {
      const c = errorOf(await call("compare_symbol_between_commits", { symbol_name: "scale", base_ref: "v0.9" }));
      assert.equal(c.code, "ref_not_indexed");
      assert.equal(c.data.reason, "unknown_ref");
    });

    await t.step("merge_base: the merge base is computed by git; failures answer merge_base_failed", async () => {
      const bad = errorOf(await call("diff_context", { base_ref: "no-such-branch", merge_base: true }));
      assert.equal(bad.code, "merge_base_failed");
      assert.equal(bad.data.base_ref, "no-such-branch");
      // The merge base of main and the working tree's HEAD is main's commit, indexed by the call itself.
      const mb = bodyOf(await call("diff_context", { base_ref: "main", merge_base: true }));
      assert.deepEqual(mb.base, { ref: mainCommit, commit_id: mainCommit });
      assert.deepEqual(mb.merge_base, { commit_id: mainCommit, base_ref: "main", head_ref: "WORKTREE" });
    });

    await t.step("the working tree against itself: no changes, with metadata", async () => {
      const r = await call("diff_context", { base_ref: "WORKTREE" });
      assert.notEqual(r.isError, true);
      const b = bodyOf(r);
      assert.deepEqual([b.changes, b.files, b.truncated], [[], [], false]);
      const worktree = {
        ref: "WORKTREE",
        commit_id: null,
        working_tree: { branch: "feature", head_commit_id: feature },
      };
      assert.deepEqual([b.base, b.head], [worktree, worktree]);
      const m = b.metadata as Record<string, unknown>;
      assert.equal(m.cruxe_protocol_version, "1.0");
      assert.equal(m.result_completeness, "complete");
      const c = bodyOf(await call("compare_symbol_between_commits", { symbol_name: "scale", base_ref: "WORKTREE" }));
      assert.equal(c.status, "unchanged");
      assert.match(c.signature_after as string, /factor/);
    });

    await t.step("an indexed git ref is compared with the working tree through the same ref routing", async () => {
      const indexed = bodyOf(await call("index_repo", { ref: "main", wait: true }));
      assert.equal(indexed.status, "published", JSON.stringify(indexed));
      const r = bodyOf(await call("diff_context", { base_ref: "main" }));
      assert.deepEqual(r.base, { ref: "main", commit_id: mainCommit });
      assert.equal((r.head as { ref: string }).ref, "WORKTREE");
      const changes = r.changes as { status: string; qualified_name: string; signature_changed?: boolean }[];
      const scale = changes.find((c) => c.qualified_name === "math.scale");
      assert.equal(scale?.status, "modified", JSON.stringify(changes));
      assert.equal(scale?.signature_changed, true);
      const c = bodyOf(await call("compare_symbol_between_commits", { symbol_name: "scale", base_ref: "main" }));
      assert.equal(c.status, "modified");
      assert.doesNotMatch(c.signature_before as string, /factor/);
      assert.match(c.signature_after as string, /factor/);
    });

    await t.step("compare_symbol_between_commits: unknown symbol, ambiguous symbol", async () => {
      const nf = errorOf(await call("compare_symbol_between_commits", { symbol_name: "noSuch", base_ref: "feature" }));
      assert.equal(nf.code, "symbol_not_found");
      const amb = errorOf(await call("compare_symbol_between_commits", { symbol_name: "norm", base_ref: "feature" }));
      assert.equal(amb.code, "ambiguous_symbol");
      assert.ok(Array.isArray(amb.data.candidates));
    });
  } finally {
    s.close();
  }
});

Deno.test("a branch name means its commit even when checked out; the working tree is WORKTREE", async (t) => {
  // v1 committed on main (checked out), v2 written over it and not committed.
  const dir = writeFiles(Deno.makeTempDirSync({ prefix: "cruxe-edits-" }), V1);
  git(dir, "init", "-q", "-b", "main");
  commitAll(dir, "v1");
  const mainCommit = git(dir, "rev-parse", "HEAD").trim();
  removeFiles(dir, V1);
  writeFiles(dir, V2);
  const s = inProcess({ cwd: dir });
  try {
    const p = registerProject(s.registry, dir);
    assert.equal((await s.rt.runner.start(p, { mode: "full", force: false }).active.done).status, "published");
    const sent: { method: string; params: Record<string, unknown> }[] = [];
    const call = (name: string, args: Record<string, unknown>, progressToken?: string) =>
      s.dispatcher.call(name, { workspace: dir, ...args }, {
        progressToken,
        sendNotification: (n) => (sent.push(n as (typeof sent)[number]), Promise.resolve()),
        signal: new AbortController().signal,
      });
    const worktree = { ref: "WORKTREE", commit_id: null, working_tree: { branch: "main", head_commit_id: mainCommit } };

    await t.step(
      "the first diff against the checked-out branch indexes it (with progress) and shows the edits",
      async () => {
        const r = await call("diff_context", { base_ref: "main" }, "first-diff");
        assert.notEqual(r.isError, true, JSON.stringify(bodyOf(r)));
        const b = bodyOf(r);
        assert.deepEqual(b.base, { ref: "main", commit_id: mainCommit });
        assert.deepEqual(b.head, worktree);
        const scale = (b.changes as { qualified_name: string; status: string; signature_changed?: boolean }[])
          .find((c) => c.qualified_name === "math.scale");
        assert.deepEqual([scale?.status, scale?.signature_changed], ["modified", true], JSON.stringify(b.changes));
        const progress = sent.filter((n) =>
          n.method === "notifications/progress" && n.params.progressToken === "first-diff"
        );
        assert.ok(progress.length > 0, "the ref's indexing reported progress to the call's token");
      },
    );

    await t.step("WORKTREE spelled out is the omitted head; main against main is empty", async () => {
      const spelled = bodyOf(await call("diff_context", { base_ref: "main", head_ref: "WORKTREE" }));
      const omitted = bodyOf(await call("diff_context", { base_ref: "main" }));
      assert.deepEqual(spelled.head, worktree);
      assert.deepEqual(spelled.changes, omitted.changes);
      assert.ok((spelled.changes as unknown[]).length > 0);
      const same = bodyOf(await call("diff_context", { base_ref: "main", head_ref: "main" }));
      assert.deepEqual([same.base, same.head], [{ ref: "main", commit_id: mainCommit }, {
        ref: "main",
        commit_id: mainCommit,
      }]);
      assert.deepEqual([same.changes, same.files], [[], []]);
    });

    await t.step("compare_symbol_between_commits: signature_before is the committed one", async () => {
      const c = bodyOf(await call("compare_symbol_between_commits", { symbol_name: "scale", base_ref: "main" }));
      assert.equal(c.status, "modified");
      assert.doesNotMatch(c.signature_before as string, /factor/);
      assert.match(c.signature_after as string, /factor/);
      assert.deepEqual([c.base, c.head], [{ ref: "main", commit_id: mainCommit }, worktree]);
    });

    await t.step("after a commit moves the branch, the next diff indexes its new commit, not the old one", async () => {
      commitAll(dir, "v2");
      const moved = git(dir, "rev-parse", "HEAD").trim();
      const r = bodyOf(await call("diff_context", { base_ref: "main" }));
      assert.deepEqual(r.base, { ref: "main", commit_id: moved });
      assert.deepEqual(r.head, { ...worktree, working_tree: { branch: "main", head_commit_id: moved } });
      assert.deepEqual([r.changes, r.files], [[], []], "the working tree is that commit");
    });
  } finally {
    s.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a base ref far from every indexed state is not indexed on the fly: ref_not_indexed with the estimate", async () => {
  const dir = writeFiles(Deno.makeTempDirSync({ prefix: "cruxe-far-" }), V1);
  git(dir, "init", "-q", "-b", "main");
  commitAll(dir, "v1");
  git(dir, "checkout", "-q", "-b", "big");
  // One file past the limit, generated here.
  Deno.mkdirSync(join(dir, "gen"));
  for (let i = 0; i <= AUTO_INDEX_MAX_FILES; i++) {
    Deno.writeTextFileSync(join(dir, "gen", `g${i}.ts`), `export const g${i} = ${i};\n`);
  }
  commitAll(dir, "big");
  git(dir, "checkout", "-q", "main");
  const s = inProcess({ cwd: dir });
  try {
    const p = registerProject(s.registry, dir);
    assert.equal((await s.rt.runner.start(p, { mode: "full", force: false }).active.done).status, "published");
    const e = errorOf(await s.call("diff_context", { workspace: dir, base_ref: "big" }));
    assert.equal(e.code, "ref_not_indexed");
    assert.equal(e.data.estimated_files_to_index, AUTO_INDEX_MAX_FILES + 1);
    assert.equal(e.data.auto_index_max_files, AUTO_INDEX_MAX_FILES);
    assert.deepEqual(e.data.fix, { tool: "index_repo", arguments: { workspace: p.repo_root, ref: "big", wait: true } });
    assert.equal(s.rt.runner.activeRef(p.project_id, e.data.commit as string), undefined, "no build was started");
    // Indexed as the answer says, the same call then works.
    assert.equal(bodyOf(await s.call("index_repo", { workspace: dir, ref: "big", wait: true })).status, "published");
    const r = bodyOf(await s.call("diff_context", { workspace: dir, base_ref: "big" }));
    assert.equal((r.summary as { files_removed: number }).files_removed, AUTO_INDEX_MAX_FILES + 1);
  } finally {
    s.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("cruxe diff and cruxe compare: JSON and human output, errors with their codes", async () => {
  const { dir } = branchedRepo();
  const home = Deno.makeTempDirSync({ prefix: "cruxe-cli-home-" });
  const main = new URL("../main.ts", import.meta.url).pathname;
  const cruxe = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", main, ...args],
      cwd: dir,
      env: { CRUXE_HOME: home, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  };
  try {
    assert.equal((await cruxe("index", "--path", dir)).code, 0);
    const same = await cruxe("diff", "WORKTREE", "--json");
    assert.equal(same.code, 0, same.stderr);
    const body = JSON.parse(same.stdout);
    assert.deepEqual([body.changes, body.base.ref, body.head.ref], [[], "WORKTREE", "WORKTREE"]);
    // The checked-out branch's name means its commit; near an indexed state, the call indexes it on its own, as
    // the tool does over MCP (the CLI makes the same call).
    for (const ref of ["main", "feature"]) {
      const byRef = await cruxe("diff", ref, "--json");
      assert.equal(byRef.code, 0, byRef.stderr);
      const b = JSON.parse(byRef.stdout);
      assert.equal(b.base.ref, ref);
      assert.match(b.base.commit_id, /^[0-9a-f]{40}$/);
    }
    const unknown = await cruxe("diff", "no-such-branch");
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /error\[invalid_input\]|error\[ref_not_indexed\]/);
    const mb = await cruxe("diff", "no-such-branch", "--merge-base");
    assert.match(mb.stderr, /error\[merge_base_failed\]/);
    const cmp = await cruxe("compare", "scale", "WORKTREE");
    assert.equal(cmp.code, 0, cmp.stderr);
    assert.match(
      cmp.stdout,
      /WORKTREE \(working tree on feature at [0-9a-f]{12}\): unchanged\n= math\.scale {2}src\/math\.ts:10/,
    );
    const usage = await cruxe("compare", "scale");
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /error\[invalid_input\]: cruxe compare takes SYMBOL BASE \[HEAD\]/);
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("git merge-base through the hardened module: refs that read as options never reach git", async () => {
  assert.deepEqual(
    ["main", "origin/feature-x", "v1.0", "HEAD~2", "main^", "abc123"].filter((r) => !isSafeRevision(r)),
    [],
  );
  assert.deepEqual(
    ["--output=x", "-x", "a..b", "a:b", "a b", "", "a*", "x\\y", "a\nb", "x".repeat(257)].filter(isSafeRevision),
    [],
  );
  const { dir, mainCommit } = branchedRepo();
  const plain = Deno.makeTempDirSync({ prefix: "cruxe-plain-" });
  try {
    assert.deepEqual(await gitMergeBase(dir, "main", "feature"), { commit: mainCommit });
    const opt = await gitMergeBase(dir, "--output=" + join(plain, "out"), "main");
    assert.ok("problem" in opt && /refused revision/.test(opt.problem));
    assert.ok("problem" in await gitMergeBase(dir, "main", "no-such-ref"));
    assert.ok("problem" in await gitMergeBase(plain, "main", "HEAD"), "not a git work tree");
    assert.deepEqual([...Deno.readDirSync(plain)], [], "nothing was written");
  } finally {
    Deno.removeSync(dir, { recursive: true });
    Deno.removeSync(plain, { recursive: true });
  }
});
