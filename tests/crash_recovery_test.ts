import assert from "node:assert/strict";
import { join } from "node:path";
import { tempHome } from "./helpers/fixture_repo.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { interruptedReport } from "../src/query/index_status.ts";
import { processAlive } from "../src/io/process_lock.ts";
import { CRUXE_FLAGS, waitFor } from "./mcp_helpers.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

function writeFiles(dir: string, n: number, tag: string): void {
  for (let i = 0; i < n; i++) {
    const body = Array.from({ length: 30 }, (_, j) => `def ${tag}_fn_${i}_${j}(x):\n    return x + ${j}\n`).join("\n");
    Deno.writeTextFileSync(join(dir, `m${i}.py`), body);
  }
}

function symbolCount(h: ReturnType<typeof tempHome>, projectId: string, like: string): number {
  const readers = new IndexReaders(h.registry);
  const db = requireIndex(readers.view(h.registry.getProject(projectId)!));
  const ok = db.prepare("PRAGMA integrity_check").get() as Record<string, string>;
  assert.equal(Object.values(ok)[0], "ok");
  const n = Number((db.prepare("SELECT count(*) AS n FROM symbols WHERE name LIKE ?").get(like) as { n: number }).n);
  readers.closeAll();
  return n;
}

/** Starts a CLI indexing command in another process on the test home. */
function spawnCruxe(h: ReturnType<typeof tempHome>, ...args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...CRUXE_FLAGS, MAIN, ...args],
    env: { CRUXE_HOME: h.home, CRUXE_WORKERS: "1" },
    stdout: "null",
    stderr: "null",
  }).spawn();
}

/** Waits (generously: the machine may be loaded) until `pid`'s job on the project runs with at least `minIndexed` files written. */
async function childJobRunning(
  h: ReturnType<typeof tempHome>,
  projectId: string,
  pid: number,
  minIndexed: number,
): Promise<void> {
  await waitFor(
    () => {
      const job = h.registry.recentJobs(projectId, 1)[0];
      return job?.status === "running" && job.owner_pid === pid && job.files_indexed >= minIndexed;
    },
    120_000,
    `the child's job running with ${minIndexed}+ files written`,
  );
}

Deno.test("kill -9 during a sync leaves the previous index intact and reports the job interrupted", async () => {
  const h = tempHome();
  try {
    const dir = Deno.makeTempDirSync({ prefix: "cruxe-crash-" });
    writeFiles(dir, 400, "old");
    const project = registerProject(h.registry, dir);
    const first = await h.runner.start(project, { mode: "full", force: false }).active.done;
    assert.equal(first.status, "published");
    const before = symbolCount(h, project.project_id, "old_%");
    assert.equal(before, 400 * 30);

    writeFiles(dir, 400, "new");
    const child = spawnCruxe(h, "sync", "--workspace", dir);
    // Wait until the child's job has written some files, then kill it hard.
    await childJobRunning(h, project.project_id, child.pid, 1);
    assert.equal(processAlive(h.home, child.pid), true, "a live job owner is recognised");
    child.kill("SIGKILL");
    await child.status;

    // The killed process's job is still `running` in the registry until a new process reconciles it.
    const alive = (pid: number) => processAlive(h.home, pid);
    assert.equal(alive(child.pid), false);
    assert.equal(h.registry.reconcileInterrupted(alive), 1);
    const report = interruptedReport(h.registry, project.project_id);
    assert.ok(report?.detected);
    assert.equal(report?.interrupted_jobs, 1);

    // Previous generation fully queryable, nothing of the half-written one visible.
    assert.equal(symbolCount(h, project.project_id, "old_%"), before);
    assert.equal(symbolCount(h, project.project_id, "new_%"), 0);

    // A successful follow-up clears the report.
    const again = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
    assert.equal(again.status, "published");
    assert.equal(interruptedReport(h.registry, project.project_id), undefined);
    assert.equal(symbolCount(h, project.project_id, "new_%"), 400 * 30);
    assert.equal(symbolCount(h, project.project_id, "old_%"), 0);
  } finally {
    h.close();
  }
});

Deno.test("a job running in another live process makes a second one index_in_progress", async () => {
  const h = tempHome();
  try {
    const dir = Deno.makeTempDirSync({ prefix: "cruxe-two-" });
    writeFiles(dir, 400, "two");
    const project = registerProject(h.registry, dir);
    const child = spawnCruxe(h, "index", "--path", dir);
    await childJobRunning(h, project.project_id, child.pid, 0);
    assert.throws(() => h.runner.start(project, { mode: "full", force: false }), { code: "index_in_progress" });
    assert.equal((await child.status).success, true);
    const after = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
    assert.equal(after.status, "published");
  } finally {
    h.close();
  }
});
