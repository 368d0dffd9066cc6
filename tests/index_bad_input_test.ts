import assert from "node:assert/strict";
import { join } from "node:path";
import { copyFixture, indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { CruxeError } from "../src/core/errors.ts";
import { setMeta } from "../src/state/db.ts";
import { openIndexForRead } from "../src/state/project_index.ts";
import { Registry } from "../src/state/registry.ts";
import { CRUXE_FLAGS } from "./mcp_helpers.ts";
import { fileModesUnavailable, withFileModes } from "./helpers/no_dac.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

function count(h: ReturnType<typeof tempHome>, projectId: string, sql: string): number {
  const readers = new IndexReaders(h.registry);
  const db = requireIndex(readers.view(h.registry.getProject(projectId)!));
  const n = Number((db.prepare(sql).get() as { n: number }).n);
  readers.closeAll();
  return n;
}

Deno.test("a workspace that does not exist, or is a file, is project_not_found", () => {
  const h = tempHome();
  try {
    assert.throws(() => registerProject(h.registry, "/nonexistent/cruxe/path"), { code: "project_not_found" });
    const f = Deno.makeTempFileSync();
    assert.throws(() => registerProject(h.registry, f), (e: unknown) => {
      return e instanceof CruxeError && e.code === "project_not_found" && /is a file/.test(e.message);
    });
    assert.throws(() => registerProject(h.registry, ""), { code: "invalid_input" });
  } finally {
    h.close();
  }
});

Deno.test("an empty repository indexes to an empty, ready index", async () => {
  const h = tempHome();
  try {
    const dir = Deno.makeTempDirSync();
    const { project, status } = await indexDir(h, dir);
    assert.equal(status, "published");
    assert.equal(count(h, project.project_id, "SELECT count(*) AS n FROM files"), 0);
  } finally {
    h.close();
  }
});

Deno.test("unreadable, binary, huge, invalid UTF-8 files and symlink loops never fail the job", async () => {
  const h = tempHome({ maxFileBytes: 1024 * 1024 });
  try {
    const dir = copyFixture("py_basic");
    Deno.writeTextFileSync(join(dir, "ok.py"), "def fine():\n    return 1\n");
    Deno.writeFileSync(
      join(dir, "latin1.py"),
      new Uint8Array([...new TextEncoder().encode("def caf"), 0xe9, ...new TextEncoder().encode("():\n    pass\n")]),
    );
    Deno.writeFileSync(join(dir, "blob.py"), new Uint8Array([0x64, 0x65, 0x66, 0x00, 0x01, 0x02]));
    // A 50 MB minified one-line file: skipped by the size limit.
    const big = "var a=1;".repeat(50 * 1024 * 1024 / 8);
    Deno.writeTextFileSync(join(dir, "bundle.js"), big);
    Deno.mkdirSync(join(dir, "loop"));
    Deno.symlinkSync(dir, join(dir, "loop", "again"));
    const { project, status } = await indexDir(h, dir);
    assert.equal(status, "published");
    const paths = (() => {
      const readers = new IndexReaders(h.registry);
      const db = requireIndex(readers.view(project));
      const rows = db.prepare("SELECT path, parse_error FROM files ORDER BY path").all() as {
        path: string;
        parse_error: string | null;
      }[];
      readers.closeAll();
      return rows;
    })();
    const names = paths.map((p) => p.path);
    assert.ok(names.includes("ok.py"));
    assert.ok(!names.includes("blob.py"), "binary files are skipped");
    assert.ok(!names.includes("bundle.js"), "files over the size limit are skipped");
    assert.ok(!names.some((n) => n.startsWith("loop/")), "symlinks are not followed");
    const latin = paths.find((p) => p.path === "latin1.py");
    assert.ok(latin && /invalid UTF-8/.test(latin.parse_error ?? ""), "invalid UTF-8 is indexed and reported");
  } finally {
    h.close();
  }
});

Deno.test({
  name: "an unreadable file is skipped, and the job still publishes (as root: without the right to ignore file modes)",
  ignore: fileModesUnavailable() !== null,
  async fn() {
    const dir = copyFixture("py_basic");
    const home = Deno.makeTempDirSync({ prefix: "cruxe-unreadable-" });
    try {
      Deno.writeTextFileSync(join(dir, "ok.py"), "def fine():\n    return 1\n");
      const secret = join(dir, "secret.py");
      Deno.writeTextFileSync(secret, "def hidden():\n    pass\n");
      Deno.chmodSync(secret, 0o000);
      const [cmd, ...args] = withFileModes([Deno.execPath(), "run", ...CRUXE_FLAGS, MAIN, "index", "--path", dir]);
      const out = await new Deno.Command(cmd, {
        args,
        env: { CRUXE_HOME: home, CRUXE_WORKERS: "1" },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const said = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, said);
      const registry = Registry.open(home);
      const readers = new IndexReaders(registry);
      try {
        const project = registry.listProjects().find((p) => p.repo_root === Deno.realPathSync(dir))!;
        const db = requireIndex(readers.view(project));
        const names = (db.prepare("SELECT path FROM files").all() as { path: string }[]).map((r) => r.path);
        assert.ok(names.includes("ok.py"), names.join(", "));
        assert.ok(!names.includes("secret.py"), "the unreadable file is skipped");
      } finally {
        readers.closeAll();
        registry.close();
      }
    } finally {
      Deno.removeSync(home, { recursive: true });
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test("a newer-schema or corrupt index is index_incompatible and `--force` rebuilds it", async () => {
  const h = tempHome();
  try {
    const dir = copyFixture("go_basic");
    const { project } = await indexDir(h, dir);
    const projectDir = h.registry.projectDir(project.project_id);
    const { db } = openIndexForRead(projectDir);
    setMeta(db!, "schema_version", "99");
    db!.close();
    const readers = new IndexReaders(h.registry);
    const view = readers.view(project);
    assert.equal(view.schemaStatus, "reindex_required");
    assert.throws(() => requireIndex(view), (e: unknown) => {
      return e instanceof CruxeError && e.code === "index_incompatible" && e.message.includes("cruxe index --force");
    });
    readers.closeAll();
    const refused = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
    assert.equal(refused.status, "failed");
    assert.match(refused.error_message ?? "", /cruxe index --force/);
    const rebuilt = await h.runner.start(project, { mode: "full", force: true }).active.done;
    assert.equal(rebuilt.status, "published");
    assert.ok(count(h, project.project_id, "SELECT count(*) AS n FROM symbols") > 0);

    Deno.writeTextFileSync(join(projectDir, "index.db"), "this is not a database at all, just text".repeat(100));
    for (const s of ["-wal", "-shm"]) {
      try {
        Deno.removeSync(join(projectDir, "index.db" + s));
      } catch { /* not there */ }
    }
    const corrupt = new IndexReaders(h.registry).view(project);
    assert.equal(corrupt.schemaStatus, "corrupt_manifest");
    const again = await h.runner.start(project, { mode: "full", force: true }).active.done;
    assert.equal(again.status, "published");
  } finally {
    h.close();
  }
});

Deno.test("a workspace outside this process's read permission is workspace_not_allowed with the fix", async () => {
  const outside = Deno.makeTempDirSync();
  const probe = Deno.makeTempFileSync({ suffix: ".ts" });
  const setup = new URL("../src/io/workspace_dir.ts", import.meta.url).href;
  Deno.writeTextFileSync(
    probe,
    `import { canonicalDir } from ${JSON.stringify(setup)};
try { canonicalDir(${JSON.stringify(outside)}); console.log("read"); }
catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }`,
  );
  const src = new URL("../", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-check", `--allow-read=${src},${probe}`, probe],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(r.code, "workspace_not_allowed");
  assert.match(r.message, /Restart the server with --workspace/);
});
