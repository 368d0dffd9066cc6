import assert from "node:assert/strict";
import { join } from "node:path";
import { copyFixture, indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { locateSymbol } from "../src/query/locate_symbol.ts";
import {
  PARSER_QUEUE_DEPTH,
  type ParserEndpoint,
  type ParseTask,
  postTask,
  RECYCLE_AFTER_BYTES,
  WorkerPool,
} from "../src/index/worker_pool.ts";
import type { FileFacts, FileRows } from "../src/state/file_rows.ts";

function symbolNames(h: ReturnType<typeof tempHome>, projectId: string): string[] {
  const readers = new IndexReaders(h.registry);
  const db = requireIndex(readers.view(h.registry.getProject(projectId)!));
  const rows = db.prepare("SELECT qualified_name FROM symbols ORDER BY qualified_name").all() as {
    qualified_name: string;
  }[];
  readers.closeAll();
  return rows.map((r) => r.qualified_name);
}

/** A stand-in parser: `onPost` gets each file handed to it, with the endpoint (to answer or crash). */
function fakeParser(onPost: (t: ParseTask, ep: ParserEndpoint) => void, onClose = () => {}): ParserEndpoint {
  const ep: ParserEndpoint = { post: (t) => onPost(t, ep), onResult: () => {}, onCrash: () => {}, close: onClose };
  return ep;
}

/** Answers file `t` on `ep` with rows that name only its path. */
function answer(ep: ParserEndpoint, t: ParseTask): void {
  ep.onResult({ id: t.id, rows: { path: t.facts.path } as unknown as FileRows, problem: null });
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
    assert.equal(job.status, "published");
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

Deno.test("indexing with parse workers recycled every 2 files loses no file", async () => {
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

Deno.test("the worker pool replaces a parser after N files and never gives one more than N", async () => {
  const handled: number[] = []; // files handled by each spawned endpoint
  let closed = 0;
  const spawn = (): Promise<ParserEndpoint> => {
    const me = handled.push(0) - 1;
    return Promise.resolve(fakeParser((t, ep) => {
      handled[me]++;
      queueMicrotask(() => answer(ep, t));
    }, () => void closed++));
  };
  const pool = new WorkerPool(2, 3, spawn);
  const tasks = Array.from({ length: 11 }, (_, i) => ({
    id: i,
    facts: { path: `f${i}.py` } as FileFacts,
    bytes: new Uint8Array(0),
  }));
  const results = await Promise.all(tasks.map((t) => pool.parse(t)));
  pool.close();
  assert.deepEqual(results.map((r) => r.id), tasks.map((t) => t.id), "every file answered");
  assert.equal(handled.reduce((a, b) => a + b, 0), 11);
  assert.ok(handled.every((n) => n <= 3), `a parser handled more than 3 files: ${handled.join(",")}`);
  assert.ok(handled.length >= 5, `11 files at 3 per parser need at least 4 parsers plus 2 spares: ${handled.length}`);
  assert.equal(closed, handled.length, "every parser is closed, recycled or at the end");
});

Deno.test("the worker pool replaces a parser right after a file over the size limit", async () => {
  let spawned = 0;
  const spawn = (): Promise<ParserEndpoint> => {
    spawned++;
    return Promise.resolve(fakeParser((t, ep) => queueMicrotask(() => answer(ep, t))));
  };
  const pool = new WorkerPool(1, 1000, spawn);
  const task = (id: number, size: number) => ({
    id,
    facts: { path: `f${id}.c`, size } as FileFacts,
    bytes: new Uint8Array(0),
  });
  await pool.parse(task(0, 100));
  await pool.parse(task(1, 100));
  assert.equal(spawned, 1, "small files keep their parser");
  await pool.parse(task(2, RECYCLE_AFTER_BYTES + 1));
  await pool.parse(task(3, 100));
  pool.close();
  assert.equal(spawned, 2, "the parser of a huge file was replaced");
});

/** A task for `path` whose bytes spell `text`. */
function textTask(id: number, text: string): ParseTask {
  return { id, facts: { path: `f${id}.py`, size: text.length } as FileFacts, bytes: new TextEncoder().encode(text) };
}

Deno.test("a parser holds its next file before its last result is taken, never more than the queue depth", async () => {
  const held: ParseTask[][] = []; // per parser: files handed and not yet answered
  let most = 0;
  const spawn = (): Promise<ParserEndpoint> => {
    const mine: ParseTask[] = [];
    held.push(mine);
    // Answers one file at a time, in order, a little later (as a worker's message queue does).
    const next = (ep: ParserEndpoint) => {
      answer(ep, mine.shift()!);
      if (mine.length) setTimeout(() => next(ep), 2);
    };
    return Promise.resolve(fakeParser((t, ep) => {
      mine.push(t);
      most = Math.max(most, mine.length);
      if (mine.length === 1) setTimeout(() => next(ep), 2);
    }));
  };
  const pool = new WorkerPool(2, 1000, spawn);
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => pool.parse(textTask(i, `x = ${i}\n`))));
  pool.close();
  assert.deepEqual(results.map((r) => r.id), Array.from({ length: 12 }, (_, i) => i));
  assert.equal(most, PARSER_QUEUE_DEPTH, "a parser was handed its next file while on one");
});

Deno.test("a file behind one its parser dies on goes to another parser, bytes and all", async () => {
  const seen: string[] = []; // "parser#: text" for every file a parser was handed
  let spawned = 0;
  const spawn = (): Promise<ParserEndpoint> => {
    const me = spawned++;
    const mine: ParseTask[] = [];
    return Promise.resolve(fakeParser((sent, ep) => {
      // Through postTask, as a real parser gets it: the first file's bytes are transferred (gone from the sender).
      let t = sent;
      postTask({ postMessage: (m, transfer) => t = structuredClone(m as ParseTask, { transfer }) }, sent);
      seen.push(`${me}: ${new TextDecoder().decode(t.bytes)}`);
      mine.push(t);
      // The first parser dies once it holds two files; later ones answer.
      if (me === 0 && mine.length === 2) setTimeout(() => ep.onCrash("out of memory"), 1);
      else if (me > 0) queueMicrotask(() => answer(ep, t));
    }));
  };
  const pool = new WorkerPool(1, 1000, spawn);
  const [a, b] = await Promise.all([pool.parse(textTask(0, "first")), pool.parse(textTask(1, "second"))]);
  pool.close();
  assert.match(a.problem ?? "", /parser crashed: out of memory/, "the file it died on is reported");
  assert.equal(b.problem, null, "the file behind it parsed elsewhere");
  assert.deepEqual(seen, ["0: first", "0: second", "1: second"]);
});
