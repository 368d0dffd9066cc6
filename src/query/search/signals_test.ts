import assert from "node:assert/strict";
import { fileTermCoverage, headersWithSource, moduleEntries } from "./signals.ts";
import { byScore, type Unit } from "./fuse.ts";
import type { ChunkHit } from "./candidates.ts";

function unit(path: string, opts: { content?: string; score?: number; lines?: [number, number] } = {}): Unit {
  const [line_start, line_end] = opts.lines ?? [1, 10];
  const chunk = opts.content === undefined && !opts.lines
    ? undefined
    : { path, line_start, line_end, content: opts.content ?? "" } as ChunkHit;
  return { key: path, path, language: "c", chunk, ranks: {}, fused: 0, score: opts.score ?? 1, reasons: {} };
}

Deno.test("headersWithSource: a header counts only when a source file of its name is a candidate", () => {
  const got = headersWithSource([
    unit("src/ae.h"),
    unit("src/ae.c"),
    unit("src/server.h"),
    unit("include/db.hpp"),
    unit("lib/db.cc"),
  ]);
  assert.deepEqual([...got].sort(), ["include/db.hpp", "src/ae.h"]);
  assert.equal(headersWithSource([unit("a/only.h"), unit("a/other.c")]).size, 0);
});

Deno.test("fileTermCoverage: share of the query's words found across a file's passages", () => {
  const cov = fileTermCoverage([
    unit("a.c", { content: "void handle_event(loop *l)" }),
    unit("a.c", { content: "timer expires" }),
    unit("b.c", { content: "event" }),
    unit("c.c"),
  ], ["event", "timer", "loop", "file"]);
  assert.equal(cov.get("a.c"), 0.75);
  assert.equal(cov.get("b.c"), 0.25);
  assert.equal(cov.has("c.c"), false, "a unit without text says nothing");
  assert.equal(fileTermCoverage([unit("a.c", { content: "x" })], []).size, 0);
});

Deno.test("byScore: equal scores order by path, then lines, never by arrival", () => {
  const a = unit("b/x.c", { score: 1, lines: [20, 30] });
  const b = unit("b/x.c", { score: 1, lines: [5, 9] });
  const c = unit("a/y.c", { score: 1, lines: [50, 60] });
  const d = unit("z.c", { score: 2, lines: [1, 2] });
  const order = (xs: Unit[]) => [...xs].sort(byScore).map((u) => `${u.path}:${u.chunk!.line_start}`);
  const want = ["z.c:1", "a/y.c:50", "b/x.c:5", "b/x.c:20"];
  assert.deepEqual(order([a, b, c, d]), want);
  assert.deepEqual(order([d, c, b, a]), want);
});

Deno.test("moduleEntries: a file named like a directory of candidates is its module's entry", () => {
  const got = moduleEntries([
    unit("lib/phoenix/socket.ex"),
    unit("lib/phoenix/socket/transport.ex"),
    unit("lib/phoenix/channel.ex"),
    unit("src/runtime.rs"),
    unit("src/runtime_ext/x.rs"),
  ]);
  assert.deepEqual([...got], ["lib/phoenix/socket.ex"]);
});
