/**
 * Answers that must agree with each other and with the index: `index_status`,
 * every answer's metadata and `health_check` give one verdict on a damaged
 * index; `suggest_followup_queries` suggests outlines of indexed files only;
 * a server started with `--allowed-root` lists in its health only the
 * projects inside its roots.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { bodyOf, inProcess, syntheticGoRepo, tempHomeDir } from "./mcp_helpers.ts";
import { registerProject } from "../src/index/project_setup.ts";

/** Writes 64 KiB of garbage from the root page of `table` on (after folding the WAL in). */
function damageTable(store: string, table: string): void {
  const db = new DatabaseSync(store);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const { rootpage } = db.prepare("SELECT rootpage FROM sqlite_master WHERE name = ?").get(table) as {
    rootpage: number;
  };
  const { page_size } = db.prepare("PRAGMA page_size").get() as { page_size: number };
  db.close();
  const f = Deno.openSync(store, { write: true });
  f.seekSync((Number(rootpage) - 1) * Number(page_size), Deno.SeekMode.Start);
  f.writeSync(new Uint8Array(64 * 1024).fill(0x5a));
  f.close();
}

type Verdicts = { status: unknown; metadata: unknown; health: unknown; schema: unknown };

Deno.test("one verdict: a damaged index is failed in index_status and metadata, error in health_check", async () => {
  for (const readerWorkers of [0, 1]) {
    const s = inProcess({}, { home: tempHomeDir(), readerWorkers });
    try {
      const dir = syntheticGoRepo(30);
      const project = registerProject(s.registry, dir);
      assert.equal((await s.rt.runner.start(project, { mode: "full", force: false }).active.done).status, "published");
      const verdicts = async (): Promise<Verdicts> => {
        const st = bodyOf(await s.call("index_status", { workspace: dir }));
        const health = bodyOf(await s.call("health_check", { workspace: dir }));
        const mine = (health.projects as { project_id: string; index_status: string }[])
          .find((p) => p.project_id === project.project_id);
        return {
          status: st.index_status,
          metadata: (st.metadata as { indexing_status: string }).indexing_status,
          health: mine?.index_status,
          schema: st.schema_status,
        };
      };
      assert.deepEqual(await verdicts(), { status: "ready", metadata: "ready", health: "ready", schema: "compatible" });
      s.rt.readers.closeAll();
      damageTable(join(s.registry.projectDir(project.project_id), "index.db"), "symbol_rows");
      // A query reads the damaged pages (in a reader worker when there is one) and finds the damage.
      const q = await s.call("locate_symbol", { name: "Compute3x2", workspace: dir });
      assert.equal(q.isError, true, `workers ${readerWorkers}: ${JSON.stringify(bodyOf(q))}`);
      assert.deepEqual(await verdicts(), {
        status: "failed",
        metadata: "failed",
        health: "error",
        schema: "corrupt_manifest",
      }, `workers ${readerWorkers}`);
    } finally {
      s.close();
    }
  }
});

Deno.test("a dropped table: index_status says failed like health_check, not not_indexed", async () => {
  const s = inProcess({}, { home: tempHomeDir() });
  try {
    const dir = syntheticGoRepo(5);
    const project = registerProject(s.registry, dir);
    await s.rt.runner.start(project, { mode: "full", force: false }).active.done;
    s.rt.readers.closeAll();
    const db = new DatabaseSync(join(s.registry.projectDir(project.project_id), "index.db"));
    db.exec("DROP TABLE symbols_fts");
    db.close();
    const st = bodyOf(await s.call("index_status", { workspace: dir }));
    assert.equal(st.schema_status, "corrupt_manifest");
    assert.equal(st.index_status, "failed");
    const health = bodyOf(await s.call("health_check", { workspace: dir }));
    assert.equal((health.projects as { index_status: string }[])[0].index_status, "error");
  } finally {
    s.close();
  }
});

Deno.test("suggest_followup_queries suggests outlines of indexed files only", async () => {
  const s = inProcess({}, { home: tempHomeDir() });
  try {
    const dir = syntheticGoRepo(4);
    const project = registerProject(s.registry, dir);
    await s.rt.runner.start(project, { mode: "full", force: false }).active.done;
    const ghosts = [
      { path: "no/such/file.go" },
      { path: "../../../etc/passwd" },
      { path: "/etc/shadow" },
      { path: "pkg1/file1.go.bak" },
      { name: "NoSuchSymbol", path: "ghost.go" },
    ];
    for (const ghost of ghosts) {
      const r = await s.call("suggest_followup_queries", {
        workspace: dir,
        query: "compute",
        previous_results: [ghost, { path: "pkg1/file1.go" }],
        limit: 20,
      });
      assert.notEqual(r.isError, true, JSON.stringify(bodyOf(r)));
      const outlines = (bodyOf(r).suggestions as { tool: string; arguments: { path?: string } }[])
        .filter((x) => x.tool === "get_file_outline").map((x) => x.arguments.path);
      assert.deepEqual(outlines, ["pkg1/file1.go"], `${JSON.stringify(ghost)}: only the indexed file is suggested`);
    }
  } finally {
    s.close();
  }
});

Deno.test("health with --allowed-root lists only the projects inside the allowed roots and workspaces", async () => {
  const home = tempHomeDir();
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "cruxe-health-root-" }));
  const inside = join(root, "inside");
  Deno.mkdirSync(inside);
  Deno.writeTextFileSync(join(inside, "a.py"), "def inside_fn():\n    return 1\n");
  const pinned = Deno.realPathSync(syntheticGoRepo(1));
  const outside = Deno.realPathSync(syntheticGoRepo(1));
  const seed = inProcess({}, { home });
  try {
    for (const d of [inside, pinned, outside]) registerProject(seed.registry, d);
    const all = bodyOf(await seed.call("health_check", {}));
    assert.equal((all.projects as unknown[]).length, 3, "without --allowed-root every project is listed");
  } finally {
    seed.close();
  }
  const s = inProcess({ allowedRoots: [root], autoWorkspace: true, startupWorkspaces: [pinned] }, { home });
  try {
    const health = bodyOf(await s.call("health_check", {}));
    const roots = (health.projects as { repo_root: string }[]).map((p) => p.repo_root).sort();
    assert.deepEqual(roots, [inside, pinned].sort());
    assert.ok(!JSON.stringify(health).includes(outside), "the outside project's path is not shown");
  } finally {
    s.close();
  }
});
