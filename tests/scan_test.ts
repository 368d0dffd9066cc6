import assert from "node:assert/strict";
import { join } from "node:path";
import { commitAll, copyFixture, git, indexDir, tempHome, withIndex } from "./helpers/fixture_repo.ts";
import { scanRepository } from "../src/index/scan.ts";
import { IgnoreFile } from "../src/index/ignore_rules.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { WatchFilter } from "../src/index/watch_filter.ts";
import { allIndexedPaths } from "../src/state/read/files.ts";
import { indexGapCheck } from "../src/cli/commands/doctor_gap.ts";

function makeTree(dir: string, files: Record<string, string>): void {
  for (const [p, body] of Object.entries(files)) {
    Deno.mkdirSync(join(dir, p, ".."), { recursive: true });
    Deno.writeTextFileSync(join(dir, p), body);
  }
}

const TREE = {
  ".gitignore": "*.log\n/generated/\nsecret*.py\n!secret_ok.py\n",
  "src/.gitignore": "local_only.py\n",
  ".cruxeignore": "docs/\n",
  "src/app.py": "def app(): pass\n",
  "src/local_only.py": "def local(): pass\n",
  "src/secret_key.py": "KEY = 1\n",
  "src/secret_ok.py": "OK = 1\n",
  "debug.log": "x\n",
  "generated/out.py": "def gen(): pass\n",
  "src/generated/keep.py": "def keep(): pass\n",
  "docs/conf.py": "x = 1\n",
  "node_modules/lib/index.js": "function lib() {}\n",
  "vendor/dep/dep.go": "package dep\n",
  "dist/bundle.js": "function b() {}\n",
  "web/app.min.js": "function m() {}\n",
};
const EXPECTED = [
  "src/app.py",
  "src/generated/keep.py",
  "src/secret_ok.py",
  ".gitignore",
  "src/.gitignore",
  ".cruxeignore",
];

for (const mode of ["plain", "git"] as const) {
  Deno.test(`${mode} scan honours .gitignore (nested, anchored, negated), .cruxeignore and built-in skips`, async () => {
    const dir = Deno.makeTempDirSync();
    makeTree(dir, TREE);
    if (mode === "git") {
      git(dir, "init", "-q");
      Deno.writeTextFileSync(join(dir, ".git", "info", "exclude"), "");
    }
    const r = await scanRepository(dir, { maxFileBytes: 1 << 20 });
    assert.equal(r.vcs, mode);
    assert.deepEqual(r.files.map((f) => f.path).sort(), [...EXPECTED].sort());
  });
}

Deno.test("plain scan honours .git/info/exclude when git cannot list files", async () => {
  const dir = Deno.makeTempDirSync();
  makeTree(dir, { "a.py": "x = 1\n", "b.py": "y = 2\n", ".git/info/exclude": "b.py\n" });
  const r = await scanRepository(dir, { maxFileBytes: 1 << 20 });
  assert.equal(r.vcs, "plain");
  assert.deepEqual(r.files.map((f) => f.path), ["a.py"]);
});

Deno.test("ignore files are read through the safe open: a FIFO does not hang the scan, a link out is not read", async () => {
  const dir = Deno.makeTempDirSync();
  const outside = Deno.makeTempDirSync();
  makeTree(dir, { "a.py": "x = 1\n", "sub/b.py": "y = 2\n" });
  Deno.writeTextFileSync(join(outside, "rules"), "*.py\n");
  Deno.symlinkSync(join(outside, "rules"), join(dir, ".gitignore"));
  if (!new Deno.Command("mkfifo", { args: [join(dir, ".cruxeignore")] }).outputSync().success) return;
  // In a child process with a deadline: reading the FIFO the old way would block forever.
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { scanRepository } from ${JSON.stringify(new URL("../src/index/scan.ts", import.meta.url).href)};
       console.log(JSON.stringify(await scanRepository(${JSON.stringify(dir)}, { maxFileBytes: 1 << 20 })));`,
    ],
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.deepEqual(r.files.map((f: { path: string }) => f.path).sort(), ["a.py", "sub/b.py"]);
});

Deno.test("ignore patterns: directory-only rules and ** globs", () => {
  const f = new IgnoreFile("", "build/\n**/tmp/*.py\n");
  assert.equal(f.match("build", true), true);
  assert.equal(f.match("build", false), undefined, "a file named like a dir-only pattern is kept");
  assert.equal(f.match("build/x.py", false), true);
  assert.equal(f.match("a/b/tmp/x.py", false), true);
  assert.equal(f.match("a/b/tmpx/x.py", false), undefined);
});

function symbols(h: ReturnType<typeof tempHome>, projectId: string): string[] {
  const readers = new IndexReaders(h.registry);
  const db = requireIndex(readers.view(h.registry.getProject(projectId)!));
  const rows = db.prepare("SELECT name FROM symbols ORDER BY name").all() as { name: string }[];
  const ref = db.prepare("SELECT value FROM meta WHERE key = 'ref'").get() as { value: string };
  readers.closeAll();
  return [ref.value, ...rows.map((r) => r.name)];
}

Deno.test("a branch switch that rewrites files is picked up by sync and relabels the ref", async () => {
  const h = tempHome();
  try {
    const dir = copyFixture("py_basic", { git: true });
    const { project } = await indexDir(h, dir);
    assert.equal(symbols(h, project.project_id)[0], "main");
    git(dir, "checkout", "-q", "-b", "feature");
    Deno.writeTextFileSync(join(dir, "pkg", "models.py"), "def feature_only():\n    pass\n");
    commitAll(dir, "feature");
    let job = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
    assert.equal(job.ref, "feature");
    let s = symbols(h, project.project_id);
    assert.equal(s[0], "feature");
    assert.ok(s.includes("feature_only") && !s.includes("Order"));
    git(dir, "checkout", "-q", "main");
    job = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
    s = symbols(h, project.project_id);
    assert.equal(s[0], "main");
    assert.ok(s.includes("Order") && !s.includes("feature_only"));
    assert.throws(() => h.runner.start(project, { mode: "incremental", force: false, ref: "nope" }), {
      code: "ref_not_indexed",
    });
  } finally {
    h.close();
  }
});

Deno.test("a root bin/ keeps its scripts: scan, index, watch filter and doctor agree; build output there is skipped", async () => {
  const h = tempHome();
  try {
    const dir = Deno.makeTempDirSync();
    makeTree(dir, {
      "bin/django-admin.py": "def main():\n    pass\n",
      "bin/rails": "#!/usr/bin/env ruby\nputs 1\n",
      "bin/Debug/app.dll": "MZ\n",
      "bin/app.pdb": "x\n",
      "src/app.py": "def app(): pass\n",
    });
    git(dir, "init", "-q");
    commitAll(dir, "init");
    const scan = await scanRepository(dir, { maxFileBytes: 1 << 20 });
    assert.deepEqual(scan.files.map((f) => f.path).sort(), ["bin/django-admin.py", "bin/rails", "src/app.py"]);
    assert.equal(scan.skipped.ignored, 2);
    const plain = await scanRepository(dir, { maxFileBytes: 1 << 20, useGit: false });
    assert.deepEqual(plain.files.map((f) => f.path).sort(), ["bin/django-admin.py", "bin/rails", "src/app.py"]);
    const filter = new WatchFilter(dir);
    assert.equal(filter.classify("bin/django-admin.py"), "change");
    assert.equal(filter.classify("bin/Debug/app.dll"), "ignored");
    const { project, status } = await indexDir(h, dir);
    assert.equal(status, "published");
    const paths = withIndex(h, project.project_id, (db) => allIndexedPaths(db));
    assert.ok(paths.includes("bin/django-admin.py"), JSON.stringify(paths));
    const gap = await indexGapCheck({ config: h.config, registry: h.registry }, dir);
    assert.ok(gap);
    assert.equal(gap.status, "ok", gap.detail);
    assert.doesNotMatch(gap.detail, /new since/);
  } finally {
    h.close();
  }
});
