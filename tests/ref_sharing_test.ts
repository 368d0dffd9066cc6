/**
 * Refs share what is the same: indexed commits live in one refs store per
 * project, where a commit adds only the file versions it changed (rows
 * counted) and every query reads exactly its commit's versions, also in
 * the reader workers (the store holds two versions of each changed path, so
 * an unscoped read would answer twice). A forced rebuild gives the commit a
 * new list that cached views follow; two ref builds of one project at once
 * both publish (one waits for the other); two paths with the same blob are
 * both parsed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { commitAll, git } from "./helpers/fixture_repo.ts";
import { bodyOf, type InProcess, inProcess } from "./mcp_helpers.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { listRefStores, refsDir, refsStorePath, scopeToRef } from "../src/state/ref_stores.ts";
import { markDamaged } from "../src/state/project_index.ts";
import { chunksRanked } from "../src/state/read/search.ts";
import { symbolsByName } from "../src/state/read/symbols.ts";
import { IndexReaders } from "../src/query/index_reader.ts";
import type { ToolResult } from "../src/service/envelope.ts";

const repo = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "cruxe-ref-sharing-" }));
const FILES = 20;

/** Commits a change on a new branch `name` made from `from`; returns the commit id. */
function branch(name: string, from: string, edit: () => void): string {
  git(repo, "checkout", "-q", "-b", name, from);
  edit();
  commitAll(repo, name);
  const id = git(repo, "rev-parse", "HEAD").trim();
  git(repo, "checkout", "-q", "main");
  return id;
}

function write(rel: string, text: string): void {
  Deno.writeTextFileSync(join(repo, rel), text);
}

Deno.mkdirSync(join(repo, "pkg"));
write("pkg/shared.go", "package pkg\n\nfunc Shared() int { return 0 }\n");
for (let i = 0; i < FILES; i++) write(`pkg/f${i}.go`, `package pkg\n\nfunc Func${i}() int { return ${i} }\n`);
git(repo, "init", "-q", "-b", "main");
commitAll(repo, "main");
const b1 = branch("b1", "main", () => {
  write("pkg/f1.go", "package pkg\n\nfunc Func1() int { return 1 }\n\nfunc OnlyB1() int { return Shared() }\n");
  // Two paths with one blob: each is parsed (the bytes handed to a parser are each path's own).
  write("pkg/dup_a.go", "package pkg\n\nfunc Twin() int { return 7 }\n");
  write("pkg/dup_b.go", "package pkg\n\nfunc Twin() int { return 7 }\n");
});
const b2 = branch("b2", "b1", () => {
  write("pkg/f2.go", "package pkg\n\nfunc Func2() int { return 2 }\n\nfunc OnlyB2() int { return Shared() }\n");
  write("pkg/f3.go", "package pkg\n\nfunc Func3() int { return 3 }\n\nfunc AlsoB2() int { return 3 }\n");
});
const b3 = branch("b3", "main", () => write("pkg/f4.go", "package pkg\n\nfunc OnlyB3() int { return 4 }\n"));
const F5_B4 = "package pkg\n\nfunc OnlyB4() int { return 5 }\n";
const b4 = branch("b4", "main", () => write("pkg/f5.go", F5_B4));
// b3's f4 and b4's f5 together: nothing in it is new to the store.
const b6 = branch("b6", "b3", () => write("pkg/f5.go", F5_B4));
// f7 turns binary: its text version must not stay on b10's list.
const b10 = branch("b10", "main", () => Deno.writeFileSync(join(repo, "pkg/f7.go"), new Uint8Array([0x70, 0, 1, 2])));
// One body of the same length as f6's: only its content says it changed.
const b7 = branch("b7", "main", () => write("pkg/f6.go", "package pkg\n\nfunc Gunc6() int { return 6 }\n"));
// A word b8's file says once among many lines, and b9's version of that file says often in few.
const filler = Array.from({ length: 60 }, (_, i) => `func Filler${i}() int { return ${i} }`).join("\n");
// Both also carry a binary `.go` file and a name without extension that is no script: read once, skipped.
const unindexable = () => {
  Deno.writeFileSync(join(repo, "pkg/blob.go"), new Uint8Array([0x70, 0, 0, 1, 2]));
  write("NOTES", "not a script\n");
};
branch("b8", "main", () => {
  write("pkg/z.go", `package pkg\n\n// the zebra\n${filler}\n`);
  unindexable();
});
branch("b9", "main", () => {
  write("pkg/z.go", "package pkg\n\n// zebra zebra zebra zebra\n");
  unindexable();
});

let s: InProcess;
let projectDir = "";

function count(sql: string): number {
  const db = new DatabaseSync(refsStorePath(projectDir), { readOnly: true });
  try {
    return Number((db.prepare(sql).get() as { n: number }).n);
  } finally {
    db.close();
  }
}

async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r: ToolResult = await s.call(name, { workspace: repo, ...args });
  return bodyOf(r);
}

/** The definitions `locate_symbol` answers for `name` at `ref`, as `path:line`. */
async function defs(name: string, ref: string): Promise<string[]> {
  const b = await call("locate_symbol", { name, ref });
  if (b.error) return [];
  return ((b.results ?? []) as { path: string; line_start: number; name: string }[])
    .filter((r) => r.name === name).map((r) => `${r.path}:${r.line_start}`).sort();
}

Deno.test({
  name: "setup: the working tree (main) is indexed, with reader workers on",
  fn: async () => {
    s = inProcess({}, { readerWorkers: 1 });
    registerProject(s.registry, repo);
    projectDir = s.registry.projectDir(s.registry.projectByRoot(repo)!.project_id);
    const b = await call("index_repo", { wait: true });
    assert.equal(b.status, "published", JSON.stringify(b));
  },
});

Deno.test("a second commit adds only the versions of the files it changed", async () => {
  const first = await call("index_repo", { ref: "b1", wait: true });
  assert.equal(first.status, "published", JSON.stringify(first));
  // b1's 24 files: the 21 the working tree's index was copied with, less f1's old version, plus three new.
  assert.equal(count("SELECT count(*) AS n FROM files"), FILES + 3);
  const files = count("SELECT count(*) AS n FROM files");
  const symbols = count("SELECT count(*) AS n FROM symbol_rows");
  const chunks = count("SELECT count(*) AS n FROM chunk_rows");
  const second = await call("index_repo", { ref: "b2", wait: true });
  assert.equal(second.status, "published", JSON.stringify(second));
  assert.equal(count("SELECT count(*) AS n FROM files"), files + 2, "f2 and f3: one new version each");
  const added = "SELECT id FROM files WHERE path IN ('pkg/f2.go', 'pkg/f3.go') ORDER BY id DESC LIMIT 2";
  assert.equal(count("SELECT count(*) AS n FROM symbol_rows") - symbols, 4);
  assert.equal(count(`SELECT count(*) AS n FROM symbol_rows WHERE file_id IN (${added})`), 4);
  assert.equal(count("SELECT count(*) AS n FROM chunk_rows WHERE file_id NOT IN (" + added + ")"), chunks);
  const listed = listRefStores(projectDir);
  assert.deepEqual(listed.map((x) => x.commit).sort(), [b1, b2].sort());
  assert.equal(listed.find((x) => x.commit === b2)?.fileCount, FILES + 3);
});

Deno.test("every query reads its commit's versions only (in the reader workers too)", async () => {
  const fallbacks = s.rt.readerPool.stats().fallbacks;
  assert.deepEqual(await defs("Func2", "b1"), ["pkg/f2.go:3"]);
  assert.deepEqual(await defs("Func2", "b2"), ["pkg/f2.go:3"]);
  assert.deepEqual(await defs("OnlyB2", "b1"), []);
  assert.deepEqual(await defs("OnlyB2", "b2"), ["pkg/f2.go:5"]);
  assert.deepEqual(await defs("Twin", "b2"), ["pkg/dup_a.go:3", "pkg/dup_b.go:3"]);
  const refs = async (ref: string) =>
    ((await call("find_references", { symbol_name: "Shared", ref })).references as { path: string }[])
      .map((r) => r.path).sort();
  assert.deepEqual(await refs("b1"), ["pkg/f1.go"]);
  assert.deepEqual(await refs("b2"), ["pkg/f1.go", "pkg/f2.go"]);
  const search = async (ref: string) => JSON.stringify(await call("search_code", { query: "AlsoB2", ref }));
  assert.ok(!(await search("b1")).includes("f3.go:") && !(await search("b1")).includes("AlsoB2()"));
  assert.ok((await search("b2")).includes("AlsoB2"));
  const outline = await call("get_file_outline", { path: "pkg/f3.go", ref: "b1" });
  assert.ok(!JSON.stringify(outline).includes("AlsoB2"), JSON.stringify(outline));
  assert.ok(s.rt.readerPool.stats().workers >= 1, "the reader workers answered");
  assert.equal(s.rt.readerPool.stats().fallbacks, fallbacks, "no call was sent back to the main thread");
});

Deno.test("a forced rebuild gives the commit a new list, and a cached view follows it", async () => {
  assert.deepEqual(await defs("OnlyB1", "b1"), ["pkg/f1.go:5"]);
  // Views that are never re-checked by time: each guard against a rebuilt commit is seen on its own.
  const readers = new IndexReaders(s.registry, () => 0, Infinity);
  const project = s.registry.projectByRoot(repo)!;
  const store = () => listRefStores(projectDir).find((x) => x.commit === b1)!;
  const before = store();
  const old = readers.refView(project, before);
  assert.equal(readers.cachedRefView(project, b1), old);
  const b = await call("index_repo", { ref: "b1", force: true, wait: true });
  assert.equal(b.status, "published", JSON.stringify(b));
  const after = store();
  assert.notEqual(after.refId, before.refId);
  assert.equal(readers.cachedRefView(project, b1), undefined, "the cached view reads a build that is gone");
  const fresh = readers.refView(project, after);
  assert.notEqual(fresh, old, "a view of the new build, not the cached one");
  assert.equal(symbolsByName(fresh.db!, "OnlyB1").length, 1);
  readers.closeAll();
  assert.deepEqual(await defs("OnlyB1", "b1"), ["pkg/f1.go:5"]);
  assert.deepEqual(await defs("Func2", "b1"), ["pkg/f2.go:3"]);
  // No version is left that no commit lists.
  assert.equal(count("SELECT count(*) AS n FROM files"), count("SELECT count(DISTINCT file_id) AS n FROM ref_files"));
});

Deno.test("two ref builds of one project at once both publish", async () => {
  const started = await Promise.all([call("index_repo", { ref: "b3" }), call("index_repo", { ref: "b4" })]);
  for (const b of started) assert.ok(typeof b.job_id === "string", JSON.stringify(b));
  const done = await Promise.all([
    call("index_repo", { ref: "b3", wait: true }),
    call("index_repo", { ref: "b4", wait: true }),
  ]);
  for (const b of done) assert.equal(b.status, "published", JSON.stringify(b));
  assert.deepEqual(await defs("OnlyB3", "b3"), ["pkg/f4.go:3"]);
  assert.deepEqual(await defs("OnlyB4", "b4"), ["pkg/f5.go:3"]);
  assert.deepEqual(await defs("OnlyB4", "b3"), []);
  const commits = listRefStores(projectDir).map((x) => x.commit);
  for (const c of [b1, b2, b3, b4]) assert.ok(commits.includes(c), c);
});

Deno.test("a file another commit already has (same path, same blob) is taken from it, not parsed again", async () => {
  const files = count("SELECT count(*) AS n FROM files");
  const symbols = count("SELECT count(*) AS n FROM symbol_rows");
  const b = await call("index_repo", { ref: "b6", wait: true });
  assert.equal(b.status, "published", JSON.stringify(b));
  assert.equal(count("SELECT count(*) AS n FROM files"), files, "no new version");
  assert.equal(count("SELECT count(*) AS n FROM symbol_rows"), symbols);
  assert.deepEqual(await defs("OnlyB3", "b6"), ["pkg/f4.go:3"]);
  assert.deepEqual(await defs("OnlyB4", "b6"), ["pkg/f5.go:3"]);
  assert.deepEqual(await defs("Func5", "b6"), []);
  assert.equal(listRefStores(projectDir).find((x) => x.commit === b6)?.fileCount, FILES + 1);
});

Deno.test("a change of the same size is caught (its blob differs), and the commit records the new blob", async () => {
  // b7's base: main's commit built from its blobs (a blob has no mtime: the stats of f6's versions are equal).
  const main = git(repo, "rev-parse", "main").trim();
  assert.equal((await call("index_repo", { ref: main, force: true, wait: true })).status, "published");
  const b = await call("index_repo", { ref: "b7", wait: true });
  assert.equal(b.status, "published", JSON.stringify(b));
  assert.deepEqual(await defs("Gunc6", "b7"), ["pkg/f6.go:3"]);
  assert.deepEqual(await defs("Func6", "b7"), []);
  const blob = git(repo, "rev-parse", "b7:pkg/f6.go").trim();
  const id = listRefStores(projectDir).find((x) => x.commit === b7)!.refId;
  assert.equal(
    count(
      `SELECT count(*) AS n FROM ref_files m JOIN files f ON f.id = m.file_id JOIN version_blobs v ON v.file_id = f.id
           WHERE m.ref_id = ${id} AND f.path = 'pkg/f6.go' AND v.blob = '${blob}'`,
    ),
    1,
  );
});

Deno.test("a file that turns binary leaves the commit's index (its earlier version is not kept)", async () => {
  assert.deepEqual(await defs("Func7", "main"), ["pkg/f7.go:3"]); // the working tree has it
  const b = await call("index_repo", { ref: "b10", wait: true });
  assert.equal(b.status, "published", JSON.stringify(b));
  assert.deepEqual(await defs("Func8", "b10"), ["pkg/f8.go:3"]);
  assert.deepEqual(await defs("Func7", "b10"), []);
  const id = listRefStores(projectDir).find((x) => x.commit === b10)!.refId;
  assert.equal(
    count(`SELECT count(*) AS n FROM ref_files m JOIN files f ON f.id = m.file_id
           WHERE m.ref_id = ${id} AND f.path = 'pkg/f7.go'`),
    0,
  );
});

Deno.test("full-text ranking on a commit ranks that commit's rows, not other commits' versions", async () => {
  const binary: number[] = [];
  const stop = s.rt.runner.subscribe((e) => {
    if (e.type === "end" && e.summary) binary.push(e.summary.skipped.binary);
  });
  for (const ref of ["b8", "b9"]) assert.equal((await call("index_repo", { ref, wait: true })).status, "published");
  stop();
  // The binary file is read by b8's build only: b9's knows the blob was skipped at that path.
  assert.deepEqual(binary, [1, 0]);
  assert.equal(count("SELECT count(*) AS n FROM skipped_blobs WHERE path IN ('pkg/blob.go', 'NOTES')"), 2);
  const id = listRefStores(projectDir).find((x) => x.refName === "b8")!.refId;
  const db = new DatabaseSync(refsStorePath(projectDir), { readOnly: true });
  try {
    assert.ok(scopeToRef(db, id));
    // b9's version of pkg/z.go scores higher for "zebra" store-wide; b8's must still come first at b8.
    assert.deepEqual(chunksRanked(db, '"zebra"', {}, 1).map((r) => r.path), ["pkg/z.go"]);
  } finally {
    db.close();
  }
  const hits = (await call("search_code", { query: "zebra", ref: "b8", limit: 1 })).results as { path: string }[];
  assert.deepEqual(hits.map((h) => h.path), ["pkg/z.go"]);
});

Deno.test("a refs store found damaged lists no commit until the next ref build replaces it", async () => {
  markDamaged(refsDir(projectDir), "test: damaged");
  const r = await s.call("locate_symbol", { workspace: repo, name: "OnlyB1", ref: "b1" });
  const error = bodyOf(r).error as { code: string; data: { fix: unknown } };
  assert.equal(error.code, "ref_not_indexed");
  assert.deepEqual(error.data.fix, { tool: "index_repo", arguments: { workspace: repo, ref: "b1", wait: true } });
  const b = await call("index_repo", { ref: "b1", wait: true });
  assert.equal(b.status, "published", JSON.stringify(b));
  assert.equal(b.already_indexed, undefined);
  assert.deepEqual(await defs("OnlyB1", "b1"), ["pkg/f1.go:5"]);
  assert.deepEqual(listRefStores(projectDir).map((x) => x.commit), [b1], "the other commits went with the old store");
});

Deno.test({
  name: "teardown",
  fn: () => {
    s.close();
    Deno.removeSync(repo, { recursive: true });
  },
});
