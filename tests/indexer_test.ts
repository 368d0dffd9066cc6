import assert from "node:assert/strict";
import { join } from "node:path";
import { copyFixture, indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { locateSymbol } from "../src/query/locate_symbol.ts";

function symbolNames(h: ReturnType<typeof tempHome>, projectId: string): string[] {
  const readers = new IndexReaders(h.registry);
  const db = requireIndex(readers.view(h.registry.getProject(projectId)!));
  const rows = db.prepare("SELECT qualified_name FROM symbols ORDER BY qualified_name").all() as {
    qualified_name: string;
  }[];
  readers.closeAll();
  return rows.map((r) => r.qualified_name);
}

Deno.test("full index of a Go fixture extracts definitions with qualified names", async () => {
  const h = tempHome();
  try {
    const dir = copyFixture("go_basic");
    const { project, status } = await indexDir(h, dir);
    assertEqualsStatus(status);
    const names = symbolNames(h, project.project_id);
    for (const q of ["auth.ValidateToken", "auth.Claims", "auth.Claims.Expired", "auth.RateLimiter.CheckRateLimit"]) {
      assert.ok(names.includes(q), `missing ${q} in ${names.join(", ")}`);
    }
    const readers = new IndexReaders(h.registry);
    const r = locateSymbol(requireIndex(readers.view(project)), { name: "ValidateToken" });
    assert.equal(r.results[0].path, "auth/jwt.go");
    assert.equal(r.results[0].line_start, 23);
    assert.equal(r.results[0].kind, "function");
    readers.closeAll();
  } finally {
    h.close();
  }
});

function assertEqualsStatus(status: string) {
  assert.equal(status, "published");
}

Deno.test("incremental sync re-processes only added, changed, deleted and renamed files", async () => {
  const h = tempHome();
  try {
    const dir = copyFixture("py_basic");
    const { project } = await indexDir(h, dir);
    Deno.writeTextFileSync(join(dir, "pkg", "extra.py"), "def brand_new():\n    return 1\n");
    Deno.writeTextFileSync(join(dir, "pkg", "models.py"), "def replaced():\n    pass\n");
    const { active } = h.runner.start(project, { mode: "incremental", force: false });
    const job = await active.done;
    assert.equal(job.status, "published");
    assert.equal(job.changed_files, 2);
    let names = symbolNames(h, project.project_id);
    assert.ok(names.includes("pkg.extra.brand_new"));
    assert.ok(names.includes("pkg.models.replaced"));
    assert.ok(!names.includes("pkg.models.Order"));

    Deno.renameSync(join(dir, "pkg", "extra.py"), join(dir, "pkg", "moved.py"));
    Deno.removeSync(join(dir, "pkg", "models.py"));
    const second = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
    assert.equal(second.status, "published");
    names = symbolNames(h, project.project_id);
    assert.ok(names.includes("pkg.moved.brand_new"));
    assert.ok(!names.some((n) => n.startsWith("pkg.models.")));
    assert.ok(!names.some((n) => n.startsWith("pkg.extra.")));
  } finally {
    h.close();
  }
});

Deno.test("a no-op sync changes nothing", async () => {
  const h = tempHome();
  try {
    const dir = copyFixture("go_basic");
    const { project } = await indexDir(h, dir);
    const before = symbolNames(h, project.project_id);
    const job = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
    assert.equal(job.changed_files, 0);
    assert.deepEqual(symbolNames(h, project.project_id), before);
  } finally {
    h.close();
  }
});

Deno.test("a second job for the same project is refused or joined", async () => {
  const h = tempHome();
  try {
    const dir = copyFixture("go_basic");
    const { project } = await indexDir(h, dir);
    const first = h.runner.start(project, { mode: "full", force: true });
    assert.throws(() => h.runner.start(project, { mode: "full", force: false }), { code: "index_in_progress" });
    const joined = h.runner.start(project, { mode: "full", force: false, joinExisting: true });
    assert.equal(joined.joined, true);
    assert.equal(joined.active.job.job_id, first.active.job.job_id);
    await first.active.done;
  } finally {
    h.close();
  }
});

Deno.test("parse workers are recycled every N files without losing any file", async () => {
  const h = tempHome({ workerRecycleFiles: 2, workers: 2 });
  try {
    const dir = Deno.makeTempDirSync();
    for (let i = 0; i < 11; i++) Deno.writeTextFileSync(join(dir, `f${i}.py`), `def fn_${i}():\n    return ${i}\n`);
    const { project, status } = await indexDir(h, dir);
    assert.equal(status, "published");
    const names = symbolNames(h, project.project_id);
    for (let i = 0; i < 11; i++) assert.ok(names.includes(`f${i}.fn_${i}`), `fn_${i} indexed`);
  } finally {
    h.close();
  }
});
