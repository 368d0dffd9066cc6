/**
 * The workspace router as middleware: routing between
 * registered projects, several workspaces in one session, relative paths,
 * auto-discovery (indexing/partial, then full results; concurrent first
 * requests share one job), allowed roots, LRU eviction of the 11th,
 * workspace_limit_exceeded, startup flag errors and warmset membership.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { copyFixture } from "./helpers/fixture_repo.ts";
import { bodyOf, CRUXE_FLAGS, inProcess, REPO_ROOT, syntheticGoRepo, waitFor, within } from "./mcp_helpers.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { checkServeOptions, type ServeOptions } from "../src/mcp/serve_options.ts";
import { buildHealth } from "../src/service/health.ts";
import { Warmset } from "../src/service/warmset.ts";
import { CruxeError } from "../src/core/errors.ts";

async function indexed(s: ReturnType<typeof inProcess>, dir: string) {
  const p = registerProject(s.registry, dir);
  const job = await s.rt.runner.start(p, { mode: "full", force: false }).active.done;
  assert.equal(job.status, "published");
  return p;
}

function meta(b: Record<string, unknown>) {
  return b.metadata as Record<string, string>;
}

function paths(b: Record<string, unknown>): string[] {
  return (b.results as { path: string }[]).map((r) => r.path);
}

Deno.test("router: projects A and B, a third workspace, default and relative paths in one session", async () => {
  const a = copyFixture("go_basic");
  const b = copyFixture("py_basic");
  const c = syntheticGoRepo(3);
  const s = inProcess({ startupWorkspaces: [a], cwd: join(b, "..") });
  try {
    await indexed(s, a);
    await indexed(s, b);
    await indexed(s, c);
    const inB = bodyOf(await s.call("locate_symbol", { name: "ValidateToken", workspace: b }));
    // B has no ValidateToken: either no results or symbol_not_found, never A's auth/jwt.go.
    assert.ok(
      (inB.error as { code: string } | undefined)?.code === "symbol_not_found" ||
        (Array.isArray(inB.results) && inB.results.length === 0),
      `B must not answer from A's index: ${JSON.stringify(inB).slice(0, 300)}`,
    );
    const pyInB = bodyOf(await s.call("search_code", { query: "models", workspace: b }));
    assert.ok(paths(pyInB).length > 0, "B answers from its own index");
    assert.ok(paths(pyInB).every((p) => p.endsWith(".py")), JSON.stringify(paths(pyInB)));
    const inA = bodyOf(await s.call("locate_symbol", { name: "ValidateToken", workspace: a }));
    assert.deepEqual(paths(inA), ["auth/jwt.go"]);
    const omitted = bodyOf(await s.call("locate_symbol", { name: "ValidateToken" }));
    assert.deepEqual(paths(omitted), ["auth/jwt.go"], "omitted workspace goes to the startup workspace");
    const pyOutline = bodyOf(await s.call("get_file_outline", { path: "pkg/models.py", workspace: b }));
    assert.equal(pyOutline.language, "python");
    const inC = bodyOf(await s.call("locate_symbol", { name: "Compute2x1", workspace: c }));
    assert.deepEqual(paths(inC), ["pkg2/file2.go"]);
    // Relative path (resolved against the server's cwd, the parent of b) and a path inside a project.
    const rel = bodyOf(
      await s.call("get_file_outline", { path: "pkg/models.py", workspace: `./${b.split("/").pop()}` }),
    );
    assert.equal(rel.language, "python");
    const inside = bodyOf(await s.call("locate_symbol", { name: "ValidateToken", workspace: join(a, "auth") }));
    assert.deepEqual(paths(inside), ["auth/jwt.go"], "a directory inside a project routes to the project");
    for (const ws of [a, b, c]) {
      const st = bodyOf(await s.call("index_status", { workspace: ws }));
      assert.equal(st.repo_root, Deno.realPathSync(ws));
    }
  } finally {
    s.close();
  }
});

Deno.test("router: unknown workspace without --auto-workspace is workspace_not_registered with guidance", async () => {
  const a = copyFixture("go_basic");
  const s = inProcess({ cwd: a });
  try {
    const r = await s.call("search_code", { query: "x", workspace: syntheticGoRepo(1) });
    const e = bodyOf(r).error as { code: string; message: string };
    assert.equal(e.code, "workspace_not_registered");
    assert.match(e.message, /--auto-workspace/);
    assert.match(e.message, /cruxe init/);
  } finally {
    s.close();
  }
});

Deno.test("router: auto-discovery answers indexing/partial at once, shares one job, then full results", async () => {
  const root = Deno.makeTempDirSync({ prefix: "cruxe-roots-" });
  const repo = join(root, "proj");
  Deno.mkdirSync(repo);
  // Large enough that the bootstrap job cannot finish before the first answers are built.
  Deno.renameSync(syntheticGoRepo(200), join(root, "proj2"));
  for (const e of Deno.readDirSync(join(root, "proj2"))) {
    Deno.renameSync(join(root, "proj2", e.name), join(repo, e.name));
  }
  const s = inProcess({ autoWorkspace: true, allowedRoots: [Deno.realPathSync(root)], cwd: root });
  try {
    const [r1, r2] = await Promise.all([
      s.call("search_code", { query: "Compute3x1", workspace: repo }),
      s.call("locate_symbol", { name: "Compute3x1", workspace: join(repo, ".") }),
    ]);
    const b1 = bodyOf(r1);
    const b2 = bodyOf(r2);
    assert.ok(!r1.isError, JSON.stringify(b1));
    assert.equal(meta(b1).indexing_status, "indexing");
    assert.equal(meta(b1).result_completeness, "partial");
    assert.equal(meta(b2).indexing_status, "indexing");
    const job1 = (b1.indexing as { job_id: string }).job_id;
    const job2 = (b2.indexing as { job_id: string }).job_id;
    assert.equal(job1, job2, "concurrent first requests share one job");
    const ws = s.registry.getWorkspace(Deno.realPathSync(repo))!;
    assert.equal(ws.auto_discovered, 1);
    await waitFor(() => s.rt.runner.all().length === 0, 60_000, "bootstrap job");
    const full = bodyOf(await s.call("locate_symbol", { name: "Compute3x1", workspace: repo }));
    assert.equal(meta(full).indexing_status, "ready");
    assert.equal(meta(full).result_completeness, "complete");
    assert.deepEqual(paths(full), ["pkg3/file3.go"]);

    // Outside every allowed root: absolute, traversal, sibling with the same prefix, symlink escaping.
    const sibling = `${Deno.realPathSync(root)}2`;
    Deno.mkdirSync(sibling, { recursive: true });
    const link = join(root, "escape");
    Deno.symlinkSync(Deno.makeTempDirSync({ prefix: "cruxe-outside-" }), link);
    for (const ws of ["/etc", `${repo}/../../../etc`, sibling, link, "/definitely/missing"]) {
      const body = bodyOf(await s.call("search_code", { query: "x", workspace: ws }));
      const e = body.error as { code: string } | undefined;
      assert.ok(e, `${ws} was accepted: ${JSON.stringify(body).slice(0, 200)}`);
      assert.equal(e.code, "workspace_not_allowed", ws);
    }
  } finally {
    s.close();
  }
});

Deno.test("router: the 11th auto-discovered workspace evicts the least recently used one", async () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "cruxe-evict-" }));
  const repos: string[] = [];
  for (let i = 0; i < 11; i++) {
    const d = join(root, `r${i}`);
    Deno.mkdirSync(d);
    Deno.writeTextFileSync(join(d, "main.go"), `package main\n\nfunc Only${i}() {}\n`);
    repos.push(d);
  }
  const s = inProcess({ autoWorkspace: true, allowedRoots: [root], maxAutoWorkspaces: 10, cwd: root });
  try {
    // Ten auto-discovered workspaces, r0 the least recently used (by stored last_used_at).
    for (let i = 0; i < 10; i++) {
      const p = registerProject(s.registry, repos[i], { autoDiscovered: true });
      Deno.mkdirSync(s.registry.projectDir(p.project_id), { recursive: true });
      s.registry.db.prepare("UPDATE known_workspaces SET last_used_at = ? WHERE path = ?").run(
        `2026-01-01T00:00:${String(10 + i).padStart(2, "0")}Z`,
        repos[i],
      );
    }
    // r0 is used now (it bootstraps), so r1 becomes the least recently used; it has a running job to cancel.
    const r0 = await s.call("locate_symbol", { name: "Only0", workspace: repos[0] });
    assert.equal(meta(bodyOf(r0)).indexing_status, "indexing");
    await waitFor(() => s.rt.runner.all().length === 0, 60_000, "r0 bootstrap");
    const r1 = s.registry.projectByRoot(repos[1])!;
    const r1Store = s.registry.projectDir(r1.project_id);
    // r1 gets enough files that its job is still parsing when the eviction comes.
    for (let f = 0; f < 400; f++) {
      Deno.writeTextFileSync(join(repos[1], `extra${f}.go`), `package main\n\nfunc Extra${f}() int { return ${f} }\n`);
    }
    const parsing = new Promise<void>((resolve) => {
      const off = s.rt.runner.subscribe((e) => {
        if (e.type === "progress" && e.project.project_id === r1.project_id && e.event.filesIndexed > 0) {
          off();
          resolve();
        }
      });
    });
    const r1Job = s.rt.runner.start(r1, { mode: "full", force: false }).active;
    await within(parsing, 120_000, "r1's job parsing");
    const r = await s.call("locate_symbol", { name: "Only10", workspace: repos[10] });
    assert.ok(!r.isError, JSON.stringify(bodyOf(r)));
    assert.equal(s.rt.runner.activeFor(r1.project_id), undefined, "the evicted workspace's job is gone");
    const ended = await within(r1Job.done, 120_000, "r1's job to end");
    assert.equal(ended.status, "failed", "the evicted workspace's job was cancelled, not run to the end");
    assert.match(ended.error_message ?? "", /cancelled/);
    assert.ok(ended.files_indexed < 401, `cancelled mid-way: ${ended.files_indexed} files indexed`);
    const autos = s.registry.listWorkspaces().filter((w) => w.auto_discovered === 1).map((w) => w.path);
    assert.equal(autos.length, 10);
    assert.ok(!autos.includes(repos[1]), "r1 (least recently used) was evicted");
    assert.ok(autos.includes(repos[0]) && autos.includes(repos[10]));
    assert.equal(s.registry.projectByRoot(repos[1]), null, "registry rows deleted");
    assert.throws(() => Deno.statSync(r1Store), Deno.errors.NotFound, "store deleted");
    await waitFor(() => s.rt.runner.all().length === 0, 60_000, "r10 bootstrap");
    const full = bodyOf(await s.call("locate_symbol", { name: "Only10", workspace: repos[10] }));
    assert.deepEqual(paths(full), ["main.go"]);

    // Nothing evictable (every auto workspace is serving a call) -> workspace_limit_exceeded.
    const leaves = s.registry.listWorkspaces().map((w) => s.rt.router.enter(w.project_id));
    const e = bodyOf(await s.call("search_code", { query: "x", workspace: repos[1] })).error as { code: string };
    assert.equal(e.code, "workspace_limit_exceeded");
    leaves.forEach((l) => l());
  } finally {
    s.close();
  }
});

Deno.test("startup flags: --auto-workspace needs --allowed-root, roots must exist, --workspace repeatable", async () => {
  const base: ServeOptions = {
    transport: "stdio",
    port: 9100,
    bind: "127.0.0.1",
    workspaces: [],
    autoWorkspace: true,
    allowedRoots: [],
    prewarm: true,
    verbose: 0,
  };
  assert.throws(
    () => checkServeOptions(base),
    (e: unknown) =>
      e instanceof CruxeError && e.message === "--allowed-root is required when --auto-workspace is enabled",
  );
  assert.throws(
    () => checkServeOptions({ ...base, allowedRoots: ["/no/such/root/anywhere"] }),
    (e: unknown) => e instanceof CruxeError && e.code === "invalid_input" && /does not exist/.test(e.message),
  );
  const a = copyFixture("go_basic");
  const b = copyFixture("py_basic");
  const ok = checkServeOptions({ ...base, allowedRoots: [a], workspaces: [a, b] });
  assert.deepEqual(ok.workspaces, [Deno.realPathSync(a), Deno.realPathSync(b)]);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), "serve-mcp", "--auto-workspace"],
    env: { CRUXE_HOME: Deno.makeTempDirSync(), NO_COLOR: "1" },
    stdin: "null",
  }).output();
  assert.equal(out.code, 2);
  assert.equal(new TextDecoder().decode(out.stdout), "", "nothing on stdout");
  assert.match(new TextDecoder().decode(out.stderr), /--allowed-root is required when --auto-workspace is enabled/);
});

Deno.test("warmset: the most recently used workspaces (capacity 3) are prewarmed; health shows warming", async () => {
  const s = inProcess({}, { warmsetCapacity: 3, prewarm: true });
  try {
    const dirs = [0, 1, 2, 3, 4].map(() => syntheticGoRepo(2));
    // Only the three members need an index to warm; the others are registered only.
    for (const [i, d] of dirs.entries()) [3, 0, 4].includes(i) ? await indexed(s, d) : registerProject(s.registry, d);
    // last_used_at: d3 newest, then d0, d4, d1, d2.
    const order = [dirs[3], dirs[0], dirs[4], dirs[1], dirs[2]];
    order.forEach((d, i) =>
      s.registry.db.prepare("UPDATE known_workspaces SET last_used_at = ? WHERE path = ?").run(
        `2026-01-01T00:00:${String(59 - i).padStart(2, "0")}Z`,
        Deno.realPathSync(d),
      )
    );
    const w = new Warmset(s.registry, s.rt.readers, 3, true);
    assert.deepEqual(w.status().members, order.slice(0, 3).map((d) => Deno.realPathSync(d)));
    const running = w.run();
    assert.equal(w.status().state, "warming");
    await running;
    assert.equal(w.status().state, "ready");
    assert.equal(typeof w.status().prewarm_ms, "number");
    // The runtime's own warmset drives /health's status.
    assert.equal(buildHealth(s.rt).status, "warming", "prewarm not run yet: warming");
    await s.rt.warmset.run();
    assert.equal(buildHealth(s.rt).status, "ready");
    const off = new Warmset(s.registry, s.rt.readers, 3, false);
    assert.deepEqual(off.status(), { enabled: false, capacity: 3, members: [], state: "disabled", prewarm_ms: null });
  } finally {
    s.close();
  }
});
