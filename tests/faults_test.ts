/**
 * Fault injection: a full disk, a damaged index, a damaged registry, a
 * read-only home, registry writes failing under a running job, and a job run
 * by another process. For each: the server stays up or the CLI exits with the
 * right code, the previous index answers where it existed, the message names
 * the file and the fix, one command restores service, and nothing surfaces as
 * `internal_error`.
 *
 * A full disk is SQLite's `PRAGMA max_page_count` (the test-only
 * `CRUXE_TEST_MAX_PAGE_COUNT`); damage is bytes written at fixed offsets or a
 * dropped table; a read-only home is file modes (as root, which ignores modes,
 * the commands run with the DAC override capabilities dropped).
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { bodyOf, CRUXE_FLAGS, inProcess, REPO_ROOT, stdioClient, tempHomeDir, waitFor } from "./mcp_helpers.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { rebuildRegistry, Registry } from "../src/state/registry.ts";
import { CruxeError } from "../src/core/errors.ts";
import { processAlive } from "../src/io/process_lock.ts";
import { fileModesUnavailable, NO_DAC, withFileModes } from "./helpers/no_dac.ts";

const MAIN = join(REPO_ROOT, "main.ts");
const TEXT = new TextDecoder();

/** Writes Go files `from`..`to`-1 (8 functions each) into `dir`. */
function writeGo(dir: string, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const pkg = `pkg${i % 10}`;
    Deno.mkdirSync(join(dir, pkg), { recursive: true });
    let src = `package ${pkg}\n\n// Widget${i} holds state.\ntype Widget${i} struct {\n\tID int\n}\n\n`;
    for (let f = 0; f < 8; f++) {
      src +=
        `// Compute${i}x${f} computes.\nfunc (w *Widget${i}) Compute${i}x${f}(n int) int {\n\treturn w.ID + n*${f}\n}\n\n`;
    }
    Deno.writeTextFileSync(join(dir, pkg, `file${i}.go`), src);
  }
}

function repo(files: number): string {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-faults-" });
  Deno.writeTextFileSync(join(dir, "go.mod"), "module example.com/f\n\ngo 1.21\n");
  writeGo(dir, 0, files);
  return dir;
}

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cruxe <args>` on `home` in its own process. */
async function cli(
  home: string,
  args: string[],
  opts: { env?: Record<string, string>; readOnlyUser?: boolean } = {},
): Promise<CliResult> {
  const deno = [Deno.execPath(), "run", ...CRUXE_FLAGS, MAIN, ...args];
  const [cmd, ...rest] = opts.readOnlyUser ? withFileModes(deno) : deno;
  const out = await new Deno.Command(cmd, {
    args: rest,
    env: { CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1", ...opts.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    cwd: REPO_ROOT,
  }).output();
  return { code: out.code, stdout: TEXT.decode(out.stdout), stderr: TEXT.decode(out.stderr) };
}

function assertNoInternal(r: CliResult | string, where: string): void {
  const text = typeof r === "string" ? r : r.stdout + r.stderr;
  assert.ok(!text.includes("internal_error"), `${where}: no internal_error, got:\n${text}`);
}

/** Folds the WAL into the main file so bytes written at offsets hit the live pages. */
function checkpoint(path: string): void {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
}

/** Deterministic filler bytes (no randomness: the same damage every run). */
function garbage(n: number, seed = 7): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

function writeAt(path: string, offset: number, bytes: Uint8Array): void {
  const f = Deno.openSync(path, { write: true });
  try {
    f.seekSync(offset, Deno.SeekMode.Start);
    let done = 0;
    while (done < bytes.length) done += f.writeSync(bytes.subarray(done));
  } finally {
    f.close();
  }
}

function storeOf(home: string): string {
  const [dir] = [...Deno.readDirSync(join(home, "projects"))].filter((e) => e.isDirectory).map((e) => e.name);
  return join(home, "projects", dir, "index.db");
}

/** Writes 64 KiB of garbage from the root page of the symbols table on (after folding the WAL in). */
function damageSymbols(store: string): void {
  checkpoint(store);
  const meta = new DatabaseSync(store, { readOnly: true });
  const row = meta.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'symbol_rows'").get() as {
    rootpage: number;
  };
  const pageSize = Number((meta.prepare("PRAGMA page_size").get() as { page_size: number }).page_size);
  meta.close();
  writeAt(store, (Number(row.rootpage) - 1) * pageSize, garbage(64 * 1024));
}

type Result = { isError?: boolean; content: unknown };

function errorOf(r: Result): { code: string; message: string; data: Record<string, unknown> } {
  assert.equal(r.isError, true, `expected an error, got ${JSON.stringify(bodyOf(r))}`);
  return bodyOf(r).error as { code: string; message: string; data: Record<string, unknown> };
}

Deno.test("full disk: the job fails storage_unavailable, the server stays up on the previous index, freeing space recovers", async () => {
  const dir = repo(10);
  const home = tempHomeDir();
  assert.equal((await cli(home, ["index", "--path", dir])).code, 0);
  writeGo(dir, 10, 160); // a rebuild now needs many more pages than the store has
  const store = storeOf(home);
  const probe = new DatabaseSync(store, { readOnly: true });
  const pages = Number((probe.prepare("PRAGMA page_count").get() as { page_count: number }).page_count);
  probe.close();
  const full = { CRUXE_TEST_MAX_PAGE_COUNT: String(pages + 8) };

  const cliRun = await cli(home, ["index", "--force", "--path", dir], { env: full });
  assert.equal(cliRun.code, 2, cliRun.stderr);
  assert.match(cliRun.stderr, /error\[storage_unavailable\]/);
  assert.ok(cliRun.stderr.includes(store), "the message names the store");
  assert.match(cliRun.stderr, /free space/);
  assertNoInternal(cliRun, "cli on a full disk");

  Deno.env.set("CRUXE_TEST_MAX_PAGE_COUNT", full.CRUXE_TEST_MAX_PAGE_COUNT);
  // --no-watch: the files changed since the index, and a watching server would start syncing them at once.
  const { client, stderr } = await stdioClient(home, ["--workspace", dir, "--no-watch"]).finally(() =>
    Deno.env.delete("CRUXE_TEST_MAX_PAGE_COUNT")
  );
  try {
    const r = await client.callTool({ name: "index_repo", arguments: { force: true, wait: true } }) as Result;
    const err = errorOf(r);
    assert.equal(err.code, "storage_unavailable");
    assert.equal(err.data.path, store);
    assert.equal(err.data.reason, "disk_full");
    // The server answers the next call, from the previous index.
    const found = await client.callTool({ name: "locate_symbol", arguments: { name: "Compute3x2" } }) as Result;
    assert.notEqual(found.isError, true, JSON.stringify(bodyOf(found)));
    assert.ok((bodyOf(found).results as unknown[]).length > 0);
    const st = bodyOf(await client.callTool({ name: "index_status", arguments: {} }));
    assert.equal((st.recent_jobs as { status: string }[])[0].status, "failed");
    assert.equal(st.schema_status, "compatible");
    assertNoInternal(stderr(), "server log");
  } finally {
    await client.close();
  }

  const recovered = await cli(home, ["index", "--force", "--path", dir]);
  assert.equal(recovered.code, 0, recovered.stderr);
  const search = await cli(home, ["locate", "Compute150x1", "--workspace", dir, "--json"]);
  assert.equal(search.code, 0, search.stderr);
  assert.ok(JSON.parse(search.stdout).results.length > 0);
});

Deno.test("registry writes failing under a running job never throw out of its event handlers", async () => {
  const s = inProcess({}, { home: tempHomeDir() });
  try {
    const dir = repo(20);
    const project = registerProject(s.registry, dir);
    // Every later registry write reports a full disk (the worker's and the runner's).
    s.registry.db.exec(
      `CREATE TRIGGER full_jobs BEFORE UPDATE ON index_jobs BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;
       CREATE TRIGGER full_ws BEFORE UPDATE ON known_workspaces BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;`,
    );
    const ends: string[] = [];
    const off = s.rt.runner.subscribe((e) => e.type === "end" && ends.push(e.job.status));
    const job = await s.rt.runner.start(project, { mode: "full", force: false }).active.done;
    off();
    assert.equal(job.status, "published", "the index itself was published");
    assert.deepEqual(ends, ["published"]);
    const r = await s.call("locate_symbol", { name: "Compute3x2", workspace: dir });
    assert.notEqual(r.isError, true, JSON.stringify(bodyOf(r)));
    // The registry still says `queued`; index_status shows the end this process knows.
    const job0 = s.registry.recentJobs(project.project_id, 1)[0];
    assert.equal(job0.status, "queued");
    const st = bodyOf(await s.call("index_status", { workspace: dir }));
    assert.equal((st.recent_jobs as { status: string }[])[0].status, "published");
    // A write the registry refuses is an answer, not a crash.
    s.registry.db.exec(
      "CREATE TRIGGER full_new BEFORE INSERT ON index_jobs BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;",
    );
    const refused = errorOf(await s.call("index_repo", { workspace: dir, force: true }));
    assert.equal(refused.code, "storage_unavailable");
    assert.equal(refused.data.path, s.registry.path);
    // Space is back: the end that could not be written is recorded by the next job.
    s.registry.db.exec("DROP TRIGGER full_jobs; DROP TRIGGER full_ws; DROP TRIGGER full_new;");
    const next = await s.rt.runner.start(project, { mode: "incremental", force: false }).active.done;
    assert.equal(next.status, "published");
    assert.equal(s.registry.getJob(job0.job_id)?.status, "published");
  } finally {
    s.close();
  }
});

Deno.test("a damaged index.db: doctor finds it, queries answer index_incompatible, index_status and health show it, --force rebuilds it", async () => {
  const dir = repo(40);
  const home = tempHomeDir();
  assert.equal((await cli(home, ["index", "--path", dir])).code, 0);
  const store = storeOf(home);
  damageSymbols(store);

  const doctor = await cli(home, ["doctor", "--json"]);
  assert.equal(doctor.code, 1);
  const checks = JSON.parse(doctor.stdout).checks as { check: string; status: string; detail: string; fix?: string }[];
  const storeCheck = checks.find((c) => c.check.startsWith("store ") && c.status === "fail");
  assert.ok(storeCheck, `doctor reports the store: ${doctor.stdout}`);
  assert.ok(
    storeCheck.detail.includes(store) && /quick_check/.test(storeCheck.detail) && /\d+ ms/.test(storeCheck.detail),
  );
  assert.match(storeCheck.fix ?? "", /cruxe index --force --path/);

  const s = inProcess({}, { home });
  try {
    const first = errorOf(await s.call("locate_symbol", { name: "Compute3x2", workspace: dir }));
    assert.equal(first.code, "index_incompatible");
    assert.equal(first.data.schema_status, "corrupt_manifest");
    assert.equal(first.data.path, store);
    assert.match(first.message, /cruxe index --force/);
    // Every query now says so, whichever pages it reads.
    for (
      const [tool, args] of [["search_code", { query: "widget" }], ["get_file_outline", { path: "pkg1/file1.go" }]]
    ) {
      const e = errorOf(await s.call(tool as string, { ...args as object, workspace: dir }));
      assert.equal(e.code, "index_incompatible", tool as string);
    }
    const st = bodyOf(await s.call("index_status", { workspace: dir }));
    assert.equal(st.schema_status, "corrupt_manifest");
    assert.match(String(st.fix), /cruxe index --force/);
    const health = bodyOf(await s.call("health_check", { workspace: dir }));
    assert.equal(health.status, "error");
    assert.equal((health.projects as { index_status: string }[])[0].index_status, "error");
    // Another process sees the same (the finding is recorded beside the store).
    const cliQuery = await cli(home, ["search", "widget", "--workspace", dir]);
    assert.equal(cliQuery.code, 2);
    assert.match(cliQuery.stderr, /error\[index_incompatible\].*cruxe index --force/s);

    // The one recovery command, from another process while this server runs.
    const rebuilt = await cli(home, ["index", "--force", "--path", dir]);
    assert.equal(rebuilt.code, 0, rebuilt.stderr);
    const aside = [...Deno.readDirSync(join(store, ".."))].map((e) => e.name).filter((n) =>
      /^index\.db\.corrupt-/.test(n)
    );
    assert.ok(aside.length >= 1, "the damaged file was kept aside");
    const after = await s.call("locate_symbol", { name: "Compute3x2", workspace: dir });
    assert.notEqual(after.isError, true, JSON.stringify(bodyOf(after)));
    assert.equal(bodyOf(await s.call("index_status", { workspace: dir })).schema_status, "compatible");
  } finally {
    s.close();
  }
});

Deno.test("a damaged store of one repository in a multi-repo search: a partial answer naming it, the others answer", async () => {
  const s = inProcess({}, { home: tempHomeDir() });
  try {
    const a = registerProject(s.registry, repo(5), { name: "alpha" });
    const b = registerProject(s.registry, repo(40), { name: "beta" });
    for (const p of [a, b]) {
      assert.equal((await s.rt.runner.start(p, { mode: "full", force: false }).active.done).status, "published");
    }
    s.rt.readers.closeAll();
    const store = join(s.registry.projectDir(b.project_id), "index.db");
    damageSymbols(store);
    const r = await s.call("search_code", {
      query: "Compute3x2",
      workspace: a.repo_root,
      scope: { type: "repos", repos: ["alpha", "beta"] },
    });
    assert.notEqual(r.isError, true, JSON.stringify(bodyOf(r)));
    const meta = bodyOf(r).meta as {
      result_completeness: string;
      repos: { repo: string; indexing_status: string; results: number; note?: string }[];
    };
    assert.equal(meta.result_completeness, "partial");
    const beta = meta.repos.find((x) => x.repo === "beta")!;
    assert.equal(beta.indexing_status, "failed");
    assert.ok(beta.note?.includes(store) && beta.note.includes("cruxe index --force"), beta.note);
    // The others answer: alpha's own definition is found, and only alpha's hits come back.
    const results = bodyOf(r).results as { repo: string; path: string; name?: string }[];
    assert.ok(results.some((x) => x.repo === "alpha" && x.name === "Compute3x2"), JSON.stringify(results));
    assert.ok(results.every((x) => x.repo === "alpha"));
    const alpha = meta.repos.find((x) => x.repo === "alpha")!;
    assert.equal(alpha.indexing_status, "ready");
    assert.equal(alpha.results, results.length);
    // The damaged repository, not the routed one, is marked.
    assert.equal(bodyOf(await s.call("index_status", { workspace: b.repo_root })).schema_status, "corrupt_manifest");
    assert.equal(bodyOf(await s.call("index_status", { workspace: a.repo_root })).schema_status, "compatible");
  } finally {
    s.close();
  }
});

Deno.test("a dropped table: corrupt_manifest at open, index_incompatible for queries over stdio, index --force recovers", async () => {
  const dir = repo(5);
  const home = tempHomeDir();
  assert.equal((await cli(home, ["index", "--path", dir])).code, 0);
  const store = storeOf(home);
  const db = new DatabaseSync(store);
  db.exec("DROP TABLE symbol_rows");
  db.close();
  const { client } = await stdioClient(home, ["--workspace", dir]);
  try {
    const st = bodyOf(await client.callTool({ name: "index_status", arguments: {} }));
    assert.equal(st.schema_status, "corrupt_manifest");
    assert.match(String(st.problem), /missing table symbol_rows/);
    const e = errorOf(await client.callTool({ name: "locate_symbol", arguments: { name: "Compute1x1" } }) as Result);
    assert.equal(e.code, "index_incompatible");
    assert.match(e.message, /cruxe index --force/);
    const fixed = await client.callTool({ name: "index_repo", arguments: { force: true, wait: true } }) as Result;
    assert.notEqual(fixed.isError, true, JSON.stringify(bodyOf(fixed)));
    assert.equal(bodyOf(fixed).status, "published");
    const ok = await client.callTool({ name: "locate_symbol", arguments: { name: "Compute1x1" } }) as Result;
    assert.notEqual(ok.isError, true, JSON.stringify(bodyOf(ok)));
  } finally {
    await client.close();
  }
});

/** The four ways the registry was found damaged. */
const REGISTRY_DAMAGE: [string, (path: string) => void][] = [
  ["garbage at 12 KiB", (p) => writeAt(p, 12 * 1024, garbage(4096))],
  ["an overwritten header", (p) => writeAt(p, 0, garbage(100))],
  ["a text file", (p) => Deno.writeTextFileSync(p, "this is not a database\n".repeat(400))],
  ["a dropped projects table", (p) => {
    const db = new DatabaseSync(p);
    db.exec("DROP TABLE projects");
    db.close();
  }],
];

Deno.test("a damaged registry: every command names the file and `cruxe doctor --repair`, which restores service", async () => {
  const dir = repo(5);
  const base = tempHomeDir();
  assert.equal((await cli(base, ["index", "--path", dir])).code, 0);
  checkpoint(join(base, "registry.db"));
  for (const [i, [what, damage]] of REGISTRY_DAMAGE.entries()) {
    const home = tempHomeDir();
    await new Deno.Command("cp", { args: ["-a", `${base}/.`, home] }).output();
    const registry = join(home, "registry.db");
    assert.ok(Deno.statSync(registry).size > 16 * 1024, "the registry is bigger than the damage offset");
    damage(registry);
    assert.throws(() => Registry.open(home), (e: unknown) => {
      return e instanceof CruxeError && e.code === "storage_unavailable" && e.data.reason === "corrupt" &&
        e.data.path === registry;
    }, what);

    const status = await cli(home, ["status"]);
    assert.equal(status.code, 2, what);
    assert.match(status.stderr, /error\[storage_unavailable\]/, what);
    assert.ok(status.stderr.includes(registry), `${what}: names the file`);
    assert.match(status.stderr, /cruxe doctor --repair/, what);
    assertNoInternal(status, what);
    if (i === 0) {
      // Every entry point says the same, and doctor still runs.
      for (const args of [["serve-mcp"], ["index", "--force", "--path", dir]]) {
        const r = await cli(home, args);
        assert.equal(r.code, 2, `${what}: ${args[0]}`);
        assert.ok(r.stderr.includes(registry) && r.stderr.includes("cruxe doctor --repair"), r.stderr);
        assertNoInternal(r, `${what}: ${args[0]}`);
      }
      const doctor = await cli(home, ["doctor"]);
      assert.equal(doctor.code, 1);
      assert.match(doctor.stdout, /registry\s+fail/);
      assertNoInternal(doctor, "doctor");
      const repair = await cli(home, ["doctor", "--repair", "--json"]);
      const reg = (JSON.parse(repair.stdout).checks as { check: string; status: string; detail: string }[])
        .find((c) => c.check === "registry");
      assert.equal(reg?.status, "ok", repair.stdout);
      assert.match(reg!.detail, /1 project\(s\) restored.*registry\.db\.corrupt-/);
    } else {
      const r = rebuildRegistry(home);
      assert.equal(r.restored.length, 1, what);
      assert.ok(r.movedTo && Deno.statSync(r.movedTo).isFile, `${what}: the damaged file is kept`);
    }
    const after = await cli(home, ["locate", "Compute1x1", "--workspace", dir, "--json"]);
    assert.equal(after.code, 0, `${what}: ${after.stderr}`);
    assert.ok(JSON.parse(after.stdout).results.length > 0);
  }
});

const READ_ONLY_SKIP = fileModesUnavailable();

Deno.test({
  name: `a read-only home: queries answer read-only with syncing off, index is storage_unavailable, doctor says why${
    READ_ONLY_SKIP ? ` (skipped: ${READ_ONLY_SKIP})` : ""
  }`,
  ignore: READ_ONLY_SKIP !== null,
  fn: async () => {
    const dir = repo(5);
    const home = tempHomeDir();
    assert.equal((await cli(home, ["index", "--path", dir])).code, 0);
    // Both ways SQLite meets a read-only store: the registry with its -wal/-shm left by the indexing process
    // (SQLite opens it read-only), the index without them (SQLite cannot open it; Cruxe reads a copy).
    assert.ok(existsSync(join(home, "registry.db-shm")));
    checkpoint(storeOf(home));
    assert.ok(!existsSync(storeOf(home) + "-shm"));
    const chmodAll = (mode: "a-w" | "u+w") => new Deno.Command("chmod", { args: ["-R", mode, home] }).outputSync();
    chmodAll("a-w");
    try {
      const ro = { readOnlyUser: true };
      const status = await cli(home, ["status"], ro);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, /cannot be written.*indexing and syncing are off/s);
      const found = await cli(home, ["locate", "Compute1x1", "--workspace", dir, "--json"], ro);
      assert.equal(found.code, 0, found.stderr);
      assert.ok(JSON.parse(found.stdout).results.length > 0);
      const index = await cli(home, ["index", "--path", dir], ro);
      assert.equal(index.code, 2);
      assert.match(index.stderr, /error\[storage_unavailable\]/);
      assert.ok(index.stderr.includes(home) && /writable/.test(index.stderr), index.stderr);
      assertNoInternal(index, "index on a read-only home");
      const doctor = await cli(home, ["doctor", "--json"], ro);
      assert.equal(doctor.code, 1);
      const w = (JSON.parse(doctor.stdout).checks as { check: string; status: string; detail: string }[])
        .find((c) => c.check === "store writable");
      assert.equal(w?.status, "fail");
      assert.ok(w!.detail.includes(home) && w!.detail.includes("missing permission: write"), w!.detail);

      // A server on the read-only home answers from the index and says syncing is off.
      const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
      const { Client } = await import("@modelcontextprotocol/sdk/client");
      const transport = new StdioClientTransport({
        command: Deno.uid() === 0 ? "setpriv" : Deno.execPath(),
        args: [
          ...(Deno.uid() === 0 ? [...NO_DAC, Deno.execPath()] : []),
          "run",
          ...CRUXE_FLAGS,
          MAIN,
          "serve-mcp",
          "--workspace",
          dir,
        ],
        env: { ...Deno.env.toObject(), CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1" },
        stderr: "pipe",
        cwd: REPO_ROOT,
      });
      const client = new Client({ name: "cruxe-test", version: "1.0.0" });
      await client.connect(transport);
      try {
        const r = await client.callTool({ name: "locate_symbol", arguments: { name: "Compute1x1" } }) as Result;
        assert.notEqual(r.isError, true, JSON.stringify(bodyOf(r)));
        const warnings = (bodyOf(r).metadata as { warnings?: string[] }).warnings ?? [];
        assert.ok(warnings.some((x) => x.includes("syncing is off") && x.includes(home)), JSON.stringify(warnings));
        const st = bodyOf(await client.callTool({ name: "index_status", arguments: {} }));
        assert.equal(st.read_only, true);
        assert.equal(st.syncing, "off");
        const health = bodyOf(await client.callTool({ name: "health_check", arguments: {} }));
        assert.equal((health.checks as { store: { status: string } }).store.status, "read_only");
        const sync = errorOf(await client.callTool({ name: "sync_repo", arguments: {} }) as Result);
        assert.equal(sync.code, "storage_unavailable");
        assert.equal(sync.data.path, home);
      } finally {
        await client.close();
      }
    } finally {
      chmodAll("u+w");
    }
    const recovered = await cli(home, ["index", "--path", dir]);
    assert.equal(recovered.code, 0, recovered.stderr);
  },
});

Deno.test("index_status shows a job another live Cruxe process runs on the project (owner pid, stage, progress)", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-faults-remote-" });
  for (let i = 0; i < 400; i++) {
    const body = Array.from({ length: 30 }, (_, j) => `def r_fn_${i}_${j}(x):\n    return x + ${j}\n`).join("\n");
    Deno.writeTextFileSync(join(dir, `m${i}.py`), body);
  }
  const s = inProcess({}, { home: tempHomeDir() });
  try {
    const project = registerProject(s.registry, dir);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...CRUXE_FLAGS, MAIN, "index", "--path", dir],
      env: { CRUXE_HOME: s.home, CRUXE_WORKERS: "1" },
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      let st: Record<string, unknown> = {};
      await waitFor(
        async () => {
          st = bodyOf(await s.call("index_status", { workspace: dir }));
          const job = st.active_job as { files_indexed?: number } | null;
          return !!job && (job.files_indexed ?? 0) > 0;
        },
        30_000,
        "the other process's job in index_status",
      );
      const job = st.active_job as Record<string, unknown>;
      assert.equal(st.index_status, "indexing");
      assert.equal((st.metadata as { indexing_status: string }).indexing_status, "indexing");
      assert.equal(job.owner_pid, child.pid);
      assert.ok(["parsing", "indexing", "finalizing"].includes(job.stage as string), String(job.stage));
      assert.ok((job.estimated_completion_pct as number) > 0);
      assert.ok(processAlive(s.home, child.pid));
      const refused = errorOf(await s.call("index_repo", { workspace: dir }));
      assert.equal(refused.code, "index_in_progress");
      assert.equal(refused.data.owner_pid, child.pid);
    } finally {
      assert.equal((await child.status).success, true);
    }
    // The other process has exited: its published index is what this server reads next (bounded wait: a
    // loaded machine may still be flushing the other process's last writes when it is first asked).
    let done: Record<string, unknown> = {};
    await waitFor(
      async () => {
        done = bodyOf(await s.call("index_status", { workspace: dir }));
        return done.index_status === "ready";
      },
      30_000,
      "index_status ready after the other process published",
    ).catch((e) => {
      throw new Error(`${(e as Error).message}; last answer: ${JSON.stringify(done).slice(0, 1500)}`);
    });
    assert.equal(done.active_job, null);
    assert.equal(done.index_status, "ready");
    assert.equal(project.repo_root, done.repo_root);
  } finally {
    s.close();
  }
});
