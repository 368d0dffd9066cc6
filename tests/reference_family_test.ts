/**
 * TypeScript reference rules the compiler's findReferences follows: a family of
 * overrides and implementations (a use through an interface or base type is a
 * use of each member, and each member's declaration is listed), `super.m`,
 * classes used as values (`instanceof`, `T.staticM()`), `typeof f` in a type,
 * parameter properties read from another file, copies (`const rt = ctx.rt`)
 * and method results (`this.make().m()`).
 */
import assert from "node:assert/strict";
import { indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { flatReferences, symbolIn, writeRepo } from "./helpers/reference_fixture.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { findReferences, type FindReferencesResult } from "../src/query/find_references.ts";
import { getCallGraph } from "../src/query/call_graph.ts";
import type { Db } from "../src/state/db.ts";

const FILES: Record<string, string> = {
  "fam/writer.ts": [
    "export interface Sink {",
    "  put(x: number): void;", // line 2
    "}",
    "",
    "/** Writes rows; a comment may mention a `@generated` marker without being one. */",
    "export class Writer implements Sink {",
    "  put(x: number): void {}", // line 7
    "  flush(): void {}",
    "  static open(): Writer {",
    "    return new Writer();",
    "  }",
    "}",
    "",
    "export class Buffered extends Writer {",
    "  override put(x: number): void {", // line 15
    "    super.put(x);", // line 16: Writer.put
    "  }",
    "}",
    "",
    "export class Other {",
    "  put(x: number): void {}", // line 21: no family of Sink's
    "}",
    "",
    "export function helper(): number {",
    "  return 1;",
    "}",
  ].join("\n") + "\n",
  "fam/use.ts": [
    'import { type Sink, Writer, Buffered, Other, helper } from "./writer.ts";',
    "",
    "export function viaSink(s: Sink, o: Other): void {",
    "  s.put(1);", // line 4: Sink.put, so each of its family
    "  o.put(2);", // line 5: Other.put only
    "}",
    "",
    "export function classes(e: unknown): boolean {",
    "  const w = Writer.open();", // line 9: the class Writer as a value
    "  return e instanceof Buffered;", // line 10
    "}",
    "",
    "export type Helper = typeof helper;", // line 13
    "",
    "export function shadowed(): boolean {",
    "  const Writer = { open: () => 1 };",
    "  return Writer.open() === 1;", // line 17: a local object, not the class
    "}",
    "",
    "export class Runtime {",
    "  constructor(readonly writer: Writer) {}",
    "  make(): Writer {",
    "    return this.writer;",
    "  }",
    "  run(): void {",
    "    this.make().flush();", // line 26: through make's declared result
    "  }",
    "}",
    "",
    "export interface Ctx {",
    "  runtime: Runtime;",
    "}",
    "",
    "export function pooled(w?: Writer): void {",
    "  const pool = w ?? new Writer();",
    "  pool.flush();", // line 36: a Writer either way
    "}",
    "",
    "export function tool(ctx: Ctx): void {",
    "  const rt = ctx.runtime;",
    "  rt.writer.flush();", // line 41: the copy's type, then the parameter property from the class
    "}",
    "",
    "export function build(w: Writer): Runtime {",
    "  return new Runtime(w);",
    "}",
  ].join("\n") + "\n",
  "fam/pkg/__init__.py": "from .impl import helper2\n",
  "fam/pkg/impl.py": "def helper2():\n    return 1\n\n\ndef helper3():\n    return 2\n",
  "fam/usepkg.py":
    "from fam import pkg, pkg3\n\n\ndef go():\n    return pkg.helper2() + pkg.helper3() + pkg3.success()\n",
  "fam/pkg3/__init__.py": "from .api import *\n",
  "fam/pkg3/api.py": "def success():\n    return 1\n",
  "fam/qb.py": "class Base2:\n    def run_all(self):\n        return 1\n",
  "fam/q.py": [
    "from fam.qb import Base2",
    "class Query:",
    "    def add_q(self):",
    "        return 1",
    "",
    "",
    "class QuerySet:",
    "    def __init__(self, query=None):",
    "        self._query = query or Query()",
    "",
    "    def filter(self):",
    "        return self._query.add_q()", // line 12: a Query either way
    "",
    "",
    "class Intro:",
    "    def names(self):",
    "        return []",
    "",
    "",
    "class Wrapper:",
    "    intro_class = None",
    "",
    "    def __init__(self):",
    "        self.intro = self.intro_class()",
    "",
    "",
    "class MyWrapper(Wrapper):",
    "    intro_class = Intro",
    "",
    "    def tables(self):",
    "        return self.intro.names()", // line 31: the subclass's intro_class makes an Intro
    "",
    "",
    "class Store:",
    "    def set(self):",
    "        return 1",
    "",
    "    def run_all(self):", // another class's run_all: not the one self.run_all() means in a Runner
    "        return 2",
    "",
    "",
    "class Runner(Base2):",
    "    def go(self):",
    "        return self.run_all()", // Base2.run_all, in another file
    "",
    "",
    "class Closer(MyWrapper):",
    "    def close_all(self):",
    "        self.tables()", // MyWrapper.tables, inherited
    "        return set()", // the builtin, never Store.set
    "",
  ].join("\n"),
};

const sites = (r: FindReferencesResult) =>
  flatReferences(r).map((x) => `${x.path}:${x.line}:${x.reference_kind}:${x.resolution}`).sort();

Deno.test("TypeScript references follow families of overrides, classes as values, copies and results", async (t) => {
  const h = tempHome();
  const readers = new IndexReaders(h.registry);
  try {
    const { project, status } = await indexDir(h, writeRepo(FILES, "cruxe-family-"));
    assert.equal(status, "published");
    const db: Db = requireIndex(readers.view(project));
    const refs = (path: string, name: string) => sites(findReferences(db, { symbol_id: symbolIn(db, path, name) }));

    await t.step("a use through an interface is a use of each implementation and override", () => {
      const put = refs("fam/writer.ts", "Writer.put");
      assert.ok(put.includes("fam/use.ts:4:call:exact"), put.join());
      assert.ok(!put.some((x) => x.startsWith("fam/use.ts:5")), put.join());
      const other = refs("fam/writer.ts", "Other.put");
      assert.deepEqual(other, ["fam/use.ts:5:call:exact"]);
    });

    await t.step("the family's other declarations are listed as overrides", () => {
      const put = refs("fam/writer.ts", "Buffered.put");
      assert.ok(put.includes("fam/writer.ts:2:override:exact"), put.join()); // Sink.put
      assert.ok(put.includes("fam/writer.ts:7:override:exact"), put.join()); // Writer.put
      assert.ok(!put.includes("fam/writer.ts:21:override:exact"), put.join()); // Other.put
      assert.ok(!put.includes("fam/writer.ts:15:override:exact"), put.join()); // itself
      // Asked for calls only, no declaration.
      const calls = sites(
        findReferences(db, { symbol_id: symbolIn(db, "fam/writer.ts", "Buffered.put"), reference_kind: "call" }),
      );
      assert.ok(calls.length > 0 && calls.every((x) => x.includes(":call:")), calls.join());
    });

    await t.step("super.m() is the base's m, and no callee of the override itself", () => {
      const put = refs("fam/writer.ts", "Writer.put");
      assert.ok(put.includes("fam/writer.ts:16:call:exact"), put.join());
      const g = getCallGraph(db, { symbol_id: symbolIn(db, "fam/writer.ts", "Buffered.put"), direction: "callees" });
      const names = new Map(g.nodes.map((n) => [n.symbol_id, n.qualified_name]));
      const callees = g.edges.map((e) => `${names.get(e.from)} -> ${names.get(e.to)}:${e.resolution}`);
      assert.equal(callees.length, 1, callees.join());
      assert.ok(callees[0].endsWith("Writer.put:exact"), callees.join());
    });

    await t.step("a class used as a value: T.staticM() and x instanceof T; a local of that name is not", () => {
      const writer = refs("fam/writer.ts", "Writer");
      assert.ok(writer.includes("fam/use.ts:9:type:import"), writer.join());
      assert.ok(!writer.some((x) => x.startsWith("fam/use.ts:17")), writer.join());
      const buffered = refs("fam/writer.ts", "Buffered");
      assert.ok(buffered.includes("fam/use.ts:10:type:import"), buffered.join());
    });

    await t.step("typeof f in a type is a use of f", () => {
      const helper = refs("fam/writer.ts", "helper");
      assert.ok(helper.includes("fam/use.ts:13:type:import"), helper.join());
    });

    await t.step("this.make().m() through make's declared result", () => {
      const flush = refs("fam/writer.ts", "Writer.flush");
      assert.ok(flush.includes("fam/use.ts:26:call:exact"), flush.join());
    });

    await t.step("const rt = ctx.runtime copies its type; a parameter property types rt.writer", () => {
      const flush = refs("fam/writer.ts", "Writer.flush");
      assert.ok(flush.includes("fam/use.ts:41:call:exact"), flush.join());
    });

    await t.step("a ?? new T() and Python's x or T() are a T", () => {
      const flush = refs("fam/writer.ts", "Writer.flush");
      assert.ok(flush.includes("fam/use.ts:36:call:exact"), flush.join());
      const addQ = refs("fam/q.py", "Query.add_q");
      assert.deepEqual(addQ, ["fam/q.py:12:call:exact"]);
    });

    await t.step("Python: self.a = self.a_class() in a base, a_class = T in the subclass: self.a is a T", () => {
      assert.deepEqual(refs("fam/q.py", "Intro.names"), ["fam/q.py:31:call:exact"]);
    });

    await t.step("get_call_graph: self.m() through a base; a bare call is never a method (Python)", () => {
      const g = getCallGraph(db, {
        symbol_id: symbolIn(db, "fam/q.py", "Closer.close_all"),
        direction: "callees",
        include_candidates: true,
      });
      const names = new Map(g.nodes.map((n) => [n.symbol_id, n.qualified_name]));
      const callees = g.edges.map((e) => `${names.get(e.to)}:${e.resolution}`);
      assert.deepEqual(callees, ["fam.q.MyWrapper.tables:exact"]);
      const runner = getCallGraph(db, { symbol_id: symbolIn(db, "fam/q.py", "Runner.go"), direction: "callees" });
      assert.deepEqual(runner.nodes.filter((n) => n.symbol_id !== runner.root).map((n) => n.qualified_name), [
        "fam.qb.Base2.run_all",
      ]);
    });

    await t.step("get_call_graph: a class calls what its constructor calls, not what its methods do", () => {
      const g = getCallGraph(db, { symbol_id: symbolIn(db, "fam/use.ts", "build"), direction: "callees", depth: 2 });
      const reached = g.nodes.filter((n) => n.symbol_id !== g.root).map((n) => n.qualified_name);
      assert.deepEqual(reached, ["use.Runtime"]);
    });

    await t.step("Python: pkg.f where the package's __init__ imports f from its module", () => {
      assert.deepEqual(refs("fam/pkg/impl.py", "helper2"), [
        "fam/pkg/__init__.py:1:import:import",
        "fam/usepkg.py:5:call:import",
      ]);
      // helper3 is not re-exported: pkg.helper3 names nothing the package holds.
      assert.deepEqual(refs("fam/pkg/impl.py", "helper3"), []);
      // `from .api import *`: every name of the module.
      assert.deepEqual(refs("fam/pkg3/api.py", "success"), ["fam/usepkg.py:5:call:import"]);
    });

    await t.step("a comment that only mentions @generated leaves the file's uses in the index", () => {
      const open = refs("fam/writer.ts", "Writer.open");
      assert.ok(open.includes("fam/use.ts:9:call:exact"), open.join());
      const inFile = refs("fam/use.ts", "Runtime.make");
      assert.deepEqual(inFile, ["fam/use.ts:26:call:exact"]);
      // The writer file's own use: `new Writer()` at line 10.
      assert.ok(refs("fam/writer.ts", "Writer").includes("fam/writer.ts:10:call:exact"));
    });
  } finally {
    readers.closeAll();
    h.close();
  }
});
