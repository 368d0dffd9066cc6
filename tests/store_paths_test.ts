/**
 * The store's paths holding the wrong thing, and a really full disk: a
 * `CRUXE_HOME` that is a file, a `registry.db` that is a directory or a FIFO,
 * an `index.db` that is a FIFO (each `storage_unavailable` naming the path and
 * what it should be, moved aside by `doctor --repair` / `index --force`), and
 * a home on a full file system (a small tmpfs, mounted when this runs as root;
 * without root, registry writes refused the way SQLite refuses them on a full
 * disk): `serve-mcp` serves the existing index read-only with syncing off, and
 * the full disk is never reported as an I/O error.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { bodyOf, CRUXE_FLAGS, inProcess, REPO_ROOT, stdioClient, tempHomeDir } from "./mcp_helpers.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { rebuildRegistry, Registry, registryPath } from "../src/state/registry.ts";
import { indexPath, IndexWriter, openIndexForRead } from "../src/state/project_index.ts";
import { CruxeError } from "../src/core/errors.ts";

const MAIN = join(REPO_ROOT, "main.ts");
const TEXT = new TextDecoder();

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cruxe <args>` on `home` in its own process (stdin closed, so a FIFO read would hang it: bounded). */
async function cli(home: string, args: string[]): Promise<CliResult> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CRUXE_FLAGS, MAIN, ...args],
    env: { CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    cwd: REPO_ROOT,
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  try {
    const out = await child.output();
    return { code: out.code, stdout: TEXT.decode(out.stdout), stderr: TEXT.decode(out.stderr) };
  } finally {
    clearTimeout(timer);
  }
}

function goRepo(): string {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-store-paths-" });
  Deno.writeTextFileSync(join(dir, "go.mod"), "module example.com/s\n\ngo 1.21\n");
  for (let i = 0; i < 4; i++) {
    Deno.writeTextFileSync(
      join(dir, `f${i}.go`),
      `package s\n\n// Stored${i} is kept.\nfunc Stored${i}() int {\n\treturn ${i}\n}\n`,
    );
  }
  return dir;
}

function storageError(what: string, path: string, reason: string): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof CruxeError, `${what}: a registry error, got ${e}`);
    assert.equal(e.code, "storage_unavailable", `${what}: ${e.message}`);
    assert.equal(e.data.path, path, what);
    assert.equal(e.data.reason, reason, what);
    return true;
  };
}

Deno.test("a CRUXE_HOME that is a file, or below one: storage_unavailable naming it, never internal_error", async () => {
  const home = join(tempHomeDir(), "home-file");
  Deno.writeTextFileSync(home, "not a directory\n");
  assert.throws(() => Registry.open(home), storageError("home is a file", home, "not_a_directory"));
  assert.throws(() => Registry.open(join(home, "sub")), storageError("home below a file", home, "not_a_directory"));
  const r = await cli(home, ["status"]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error\[storage_unavailable\]/);
  assert.ok(r.stderr.includes(home) && /should be a directory/.test(r.stderr), r.stderr);
  assert.ok(!r.stderr.includes("internal_error"), r.stderr);
  assert.equal(Deno.readTextFileSync(home), "not a directory\n", "the file is left alone");
});

Deno.test("a registry.db that is a directory or a FIFO: storage_unavailable saying so; doctor --repair moves it aside", async () => {
  const dir = goRepo();
  const base = tempHomeDir();
  assert.equal((await cli(base, ["index", "--path", dir])).code, 0);
  const mkfifo = (p: string) => new Deno.Command("mkfifo", { args: [p] }).outputSync();
  const kinds: [string, string, (p: string) => void, RegExp][] = [
    ["a directory", "", (p) => Deno.mkdirSync(p), /found a directory/],
    ["a FIFO", "", mkfifo, /found a FIFO/],
    ["a FIFO as its -shm", "-shm", mkfifo, /found a FIFO/],
  ];
  for (const [i, [what, suffix, make, says]] of kinds.entries()) {
    const home = tempHomeDir();
    await new Deno.Command("cp", { args: ["-a", `${base}/projects`, home] }).output();
    if (suffix) await new Deno.Command("cp", { args: [join(base, "registry.db"), home] }).output();
    const path = registryPath(home);
    make(path + suffix);
    assert.throws(() => Registry.open(home), (e: unknown) => {
      storageError(what, path + suffix, "not_a_file")(e);
      assert.match((e as Error).message, says);
      assert.match((e as Error).message, /not a regular file/);
      assert.match((e as Error).message, /cruxe doctor --repair/);
      assert.doesNotMatch((e as Error).message, /fsck|I\/O error/);
      return true;
    });
    if (i === 0) {
      const status = await cli(home, ["status"]);
      assert.equal(status.code, 2);
      assert.ok(status.stderr.includes(path) && status.stderr.includes("cruxe doctor --repair"), status.stderr);
      assert.ok(!status.stderr.includes("internal_error"), status.stderr);
      const repair = await cli(home, ["doctor", "--repair", "--json"]);
      const reg = (JSON.parse(repair.stdout).checks as { check: string; status: string; detail: string }[])
        .find((c) => c.check === "registry");
      assert.equal(reg?.status, "ok", repair.stdout);
      assert.match(reg!.detail, /1 project\(s\) restored.*registry\.db\.corrupt-/);
    } else {
      const r = rebuildRegistry(home);
      assert.equal(r.restored.length, 1, what);
      assert.ok(r.movedTo && Deno.lstatSync(r.movedTo + suffix).isFifo, `${what}: kept aside`);
    }
    const after = await cli(home, ["locate", "Stored2", "--workspace", dir, "--json"]);
    assert.equal(after.code, 0, `${what}: ${after.stderr}`);
    assert.ok(JSON.parse(after.stdout).results.length > 0);
  }
});

Deno.test("an index.db (or its -shm) that is a FIFO: corrupt_manifest saying not a regular file, index --force moves it aside", () => {
  for (const suffix of ["", "-shm"]) {
    const projectDir = join(tempHomeDir(), "projects", "p1");
    Deno.mkdirSync(projectDir, { recursive: true });
    const store = indexPath(projectDir);
    if (suffix) IndexWriter.open(projectDir, false).close();
    try {
      Deno.removeSync(store + suffix);
    } catch { /* not there */ }
    new Deno.Command("mkfifo", { args: [store + suffix] }).outputSync();
    const read = openIndexForRead(projectDir);
    assert.equal(read.status, "corrupt_manifest", suffix);
    assert.match(read.problem ?? "", /not a regular file \(found a FIFO/);
    assert.doesNotMatch(read.problem ?? "", /I\/O error|fsck/);
    assert.throws(() => IndexWriter.open(projectDir, false), storageError("index FIFO", store + suffix, "not_a_file"));
    IndexWriter.open(projectDir, true).close();
    assert.ok(Deno.statSync(store).isFile, "a fresh index replaced it");
    const aside = [...Deno.readDirSync(projectDir)].filter((e) => e.name.startsWith("index.db.corrupt-"));
    assert.ok(aside.some((e) => e.name.endsWith(suffix) && e.isFile === false), `${suffix}: the FIFO was kept aside`);
  }
});

Deno.test("registry writes refused as disk full at start: the registry turns read-only, queries answer, syncing is off", async () => {
  const dir = goRepo();
  const home = tempHomeDir();
  assert.equal((await cli(home, ["index", "--path", dir])).code, 0);
  const s = inProcess({}, { home });
  try {
    // Every registry write now fails as SQLite does on a full disk.
    s.registry.db.exec(
      `CREATE TRIGGER full_p BEFORE UPDATE ON projects BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;
       CREATE TRIGGER full_w BEFORE UPDATE ON known_workspaces BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;`,
    );
    assert.throws(() => registerProject(s.registry, dir), storageError("a plain write", s.registry.path, "disk_full"));
    const project = s.registry.writeOrReadOnly(() => registerProject(s.registry, dir));
    assert.equal(project.repo_root, Deno.realPathSync(dir));
    assert.equal(s.registry.readOnly, "disk_full");
    const r = await s.call("locate_symbol", { name: "Stored1", workspace: dir });
    assert.notEqual(r.isError, true, JSON.stringify(bodyOf(r)));
    const warnings = (bodyOf(r).metadata as { warnings?: string[] }).warnings ?? [];
    assert.ok(warnings.some((w) => w.includes("syncing is off") && w.includes("free space")), String(warnings));
    const sync = bodyOf(await s.call("sync_repo", { workspace: dir })).error as {
      code: string;
      data: { reason: string };
    };
    assert.equal(sync.code, "storage_unavailable");
    assert.equal(sync.data.reason, "disk_full");
    // Any other fault is not turned into read-only serving.
    const other = inProcess({}, { home: tempHomeDir() });
    try {
      assert.throws(() =>
        other.registry.writeOrReadOnly(() => {
          throw new Error("boom");
        }), /boom/);
      assert.equal(other.registry.readOnly, null);
    } finally {
      other.close();
    }
  } finally {
    s.close();
  }
});

/** Why a full disk cannot be made here (a tmpfs needs root and mount), or null when it can. */
function tmpfsUnavailable(): string | null {
  if (Deno.build.os !== "linux") return "tmpfs is Linux-only";
  if (Deno.uid() !== 0) return "mounting a tmpfs needs root";
  const probe = Deno.makeTempDirSync({ prefix: "cruxe-tmpfs-probe-" });
  try {
    const ok = new Deno.Command("mount", { args: ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe], stderr: "null" })
      .outputSync().success;
    if (ok) new Deno.Command("umount", { args: [probe] }).outputSync();
    return ok ? null : "mount -t tmpfs is not permitted here";
  } catch {
    return "mount is not installed";
  } finally {
    Deno.removeSync(probe);
  }
}

/** Fills the file system holding `dir` until a write says it is full. */
function fill(dir: string): void {
  const f = Deno.openSync(join(dir, "filler"), { write: true, create: true });
  const block = new Uint8Array(64 * 1024);
  try {
    for (;;) f.writeSync(block);
  } catch (e) {
    assert.match(String(e), /No space left|os error 28/, "the filler stopped on a full disk");
  } finally {
    f.close();
  }
}

const TMPFS_SKIP = tmpfsUnavailable();

/** Folds a store's WAL into it and lets SQLite remove its -wal/-shm (the last connection closing). */
function foldWal(path: string): void {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
}

for (const registryWal of ["kept", "folded"] as const) {
  Deno.test({
    name:
      `a full disk (registry WAL ${registryWal}): serve-mcp serves the existing index read-only with syncing off; ` +
      `never an I/O error${TMPFS_SKIP ? ` (skipped: ${TMPFS_SKIP})` : ""}`,
    ignore: TMPFS_SKIP !== null,
    fn: () => fullDisk(registryWal),
  });
}

/** Serves from a home on a full tmpfs (see the test's name). */
async function fullDisk(registryWal: "kept" | "folded"): Promise<void> {
  const dir = goRepo();
  const mount = Deno.makeTempDirSync({ prefix: "cruxe-full-disk-" });
  assert.ok(
    new Deno.Command("mount", { args: ["-t", "tmpfs", "-o", "size=6m", "tmpfs", mount] }).outputSync().success,
  );
  try {
    const home = join(mount, "home");
    assert.equal((await cli(home, ["index", "--path", dir])).code, 0);
    // Without its -wal/-shm, opening the index must create them: what SQLite reports as a disk I/O error.
    const store = indexPath(join(home, "projects", [...Deno.readDirSync(join(home, "projects"))][0].name));
    foldWal(store);
    if (registryWal === "folded") foldWal(registryPath(home));
    fill(mount);

    const status = await cli(home, ["status"]);
    assert.equal(status.code, 0, status.stderr);
    assert.doesNotMatch(status.stdout + status.stderr, /corrupt_manifest|I\/O error|fsck/);
    const index = await cli(home, ["index", "--force", "--path", dir]);
    assert.equal(index.code, 2);
    assert.match(index.stderr, /error\[storage_unavailable\].*disk is full/s);
    assert.doesNotMatch(index.stderr, /I\/O error|fsck|internal_error/);

    const { client, stderr } = await stdioClient(home, ["--workspace", dir, "--no-watch"]);
    try {
      const r = await client.callTool({ name: "locate_symbol", arguments: { name: "Stored2" } });
      assert.notEqual(r.isError, true, JSON.stringify(bodyOf(r)));
      assert.ok((bodyOf(r).results as unknown[]).length > 0);
      const warnings = (bodyOf(r).metadata as { warnings?: string[] }).warnings ?? [];
      assert.ok(warnings.some((w) => w.includes("syncing is off") && w.includes("free space")), String(warnings));
      const st = bodyOf(await client.callTool({ name: "index_status", arguments: {} }));
      assert.equal(st.read_only, true);
      assert.equal(st.syncing, "off");
      assert.equal(st.schema_status, "compatible");
      const sync = await client.callTool({ name: "sync_repo", arguments: {} });
      const err = bodyOf(sync).error as { code: string; data: { reason: string } };
      assert.equal(err.code, "storage_unavailable");
      assert.equal(err.data.reason, "disk_full");
      assert.match(stderr(), /full: serving the existing indexes read-only; syncing is off/);
    } finally {
      await client.close();
    }
  } finally {
    new Deno.Command("umount", { args: ["-l", mount] }).outputSync();
    Deno.removeSync(mount, { recursive: true });
  }
}
