/**
 * References and call graphs resolved by scope and declared type, one rule
 * per step, over a small generated Go module (and a Python pair for the
 * shadowing rule, Python and TypeScript ones for typed member uses): the default answer holds resolved uses only, candidates
 * are counted and listed on request, call graphs follow resolved edges.
 */
import assert from "node:assert/strict";
import { indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { flatReferences, symbolIn, writeRepo } from "./helpers/reference_fixture.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { findReferences, type FindReferencesResult } from "../src/query/find_references.ts";
import { getCallGraph } from "../src/query/call_graph.ts";
import { findImplementations } from "../src/query/implementations.ts";
import type { Db } from "../src/state/db.ts";

const FILES: Record<string, string> = {
  "go.mod": "module example.com/m\n\ngo 1.19\n",
  // Two packages define Open; a third package calls one through its import, a fourth through a dot-import.
  "a/open.go": "package a\n\nfunc Open(name string) *File { return &File{} }\n",
  "a/file.go": [
    "package a",
    "",
    "type File struct{ buf *Buffer }",
    "",
    "type Buffer struct{}",
    "",
    "func (b *Buffer) Write(p []byte) int { return len(p) }",
    "",
    "func (f *File) Write(p []byte) int { return f.buf.Write(p) }",
    "",
    "func (f *File) Close() error { return nil }",
    "",
  ].join("\n"),
  "b/open.go": "package b\n\nfunc Open(name string) error { return nil }\n",
  "c/use.go": [
    "package c",
    "",
    'import "example.com/m/a"',
    "",
    "func UseA() {",
    '\tf := a.Open("x")', // line 6: a.Open
    "\tf.Close()", // line 7: File.Close through the declared result type
    "}",
    "",
  ].join("\n"),
  "d/dot.go": [
    "package d",
    "",
    'import . "example.com/m/a"',
    "",
    "func UseDot() {",
    '\tOpen("y")', // line 6: a.Open through the dot-import
    "}",
    "",
  ].join("\n"),
  // A package function and a method of one name; a local function value shadowing a package function.
  "srv/server.go": [
    "package srv",
    "",
    "type Server struct{ Addr string }",
    "",
    "func (s *Server) Serve() error { return nil }",
    "",
    "func Serve(addr string) error {",
    "\tsrv := &Server{Addr: addr}", // line 8
    "\treturn srv.Serve()", // line 9: the method
    "}",
    "",
    "func logf(format string) {}",
    "",
    "func Run() {",
    "\tlogf := func(string) {}", // line 15: a local
    '\tlogf("shadowed")', // line 16: not the package logf
    '\tServe(":80")', // line 17: the package function
    "}",
    "",
    "func Report(logf func(string)) {",
    '\tlogf("param")', // line 21: a parameter, not the package logf
    "}",
    "",
    "func Trace() {",
    '\tlogf("real")', // line 25: the package logf
    "}",
    "",
  ].join("\n"),
  // Interface dispatch: a call through an interface-typed value is the interface method's.
  "io2/io.go": [
    "package io2",
    "",
    "type Writer interface {",
    "\tWrite(p []byte) int",
    "}",
    "",
    "type Disk struct{}",
    "",
    "func (d Disk) Write(p []byte) int { return 0 }",
    "",
    "func Emit(w Writer) {",
    "\tw.Write(nil)", // line 12: Writer.Write, not Disk.Write
    "}",
    "",
    "func Save() {",
    "\tvar d Disk",
    "\td.Write(nil)", // line 17: Disk.Write
    "\tunknown().Write(nil)", // line 18: nothing says which Write
    "}",
    "",
  ].join("\n"),
  // A call chain for callers at depth 2 and 3; the top of the chain calls a helper (not a caller of anything).
  "chain/chain.go": [
    "package chain",
    "",
    "func helper() {}",
    "",
    "func top() { middle(); helper() }",
    "",
    "func middle() { lower() }",
    "",
    "func lower() { bottom() }",
    "",
    "func bottom() {}",
    "",
  ].join("\n"),
  // A method calling a method of the same name on a field: the callee is the field's, not itself.
  "conn/conn.go": [
    "package conn",
    "",
    "type reader struct{}",
    "",
    "func (r *reader) readRequest() error { return nil }",
    "",
    "type conn struct{ r *reader }",
    "",
    "func (c *conn) readRequest() error {",
    "\treturn c.r.readRequest()", // line 10
    "}",
    "",
  ].join("\n"),
  // Elements of slices and maps, a map's key through a one-name range, a method promoted from an embedded field.
  "col/col.go": [
    "package col",
    "",
    "type Item struct{}",
    "",
    "func (i *Item) Done() {}",
    "",
    "type Bag struct {",
    "\tbyKey map[*Item]bool",
    "\tlist  []*Item",
    "}",
    "",
    "type Wrapper struct{ *Item }",
    "",
    "func (b *Bag) Finish(w Wrapper) {",
    "\tfor _, it := range b.list {",
    "\t\tit.Done()", // line 16: element of a slice
    "\t}",
    "\tfor k := range b.byKey {",
    "\t\tk.Done()", // line 19: key of a map
    "\t}",
    "\tw.Done()", // line 21: promoted through the embedded *Item
    "}",
    "",
    "type Other struct{}",
    "",
    "func (o Other) Done() {}",
    "",
  ].join("\n"),
  // Python: `self.m` in a subclass reaches the base's method unless the hierarchy defines it closer; a module alias.
  "pyb/__init__.py": "",
  "pyb/base.py": "class Base:\n    def run(self):\n        return 1\n",
  "pyb/child.py": [
    "from .base import Base",
    "",
    "",
    "class Child(Base):",
    "    def start(self):",
    "        return self.run()", // line 6: Base.run
    "",
    "",
    "class Own(Base):",
    "    def run(self):",
    "        return 2",
    "",
    "    def start(self):",
    "        return self.run()", // line 14: Own.run, not Base.run
    "",
  ].join("\n"),
  "pyb/helpers.py": "def util():\n    return 3\n",
  "pyb/alias.py": "import pyb.helpers as hp\n\n\ndef use():\n    return hp.util()\n",
  // Python: a parameter or local of the same name shadows the module's function.
  "pyl/mod.py": [
    "def fmt(x):",
    "    return x",
    "",
    "",
    "def use(fmt=None):",
    "    return fmt(1)", // line 6: the parameter
    "",
    "",
    "def use2():",
    "    fmt = str",
    "    return fmt(2)", // line 11: the local
    "",
    "",
    "def use3():",
    "    return fmt(3)", // line 15: the module's function
    "",
  ].join("\n"),
  // Python: a member use resolves through the class the file shows its operand is.
  "pyt/__init__.py": "",
  "pyt/shapes.py": [
    "class Shape:",
    "    def area(self):",
    "        return 0",
    "",
    "",
    "class Square(Shape):",
    "    def area(self):",
    "        return super().area() + 1", // line 8: Shape.area
    "",
    "",
    "class Circle:",
    "    def area(self):",
    "        return 3",
    "",
    "",
    "def make() -> Square:",
    "    return Square()",
    "",
    "",
    "default = Circle()",
    "",
    "",
    "class Box:",
    "    def __init__(self):",
    "        self.inner = Square()",
    "",
    "",
    "class Problem(Exception):",
    "    def area(self):",
    "        return 4",
    "",
  ].join("\n"),
  "pyt/use.py": [
    "from pyt import shapes",
    "from pyt.shapes import Circle, Square, make, default",
    "",
    "",
    "class Holder:",
    "    def __init__(self):",
    "        self.sq = Square()",
    "",
    "    def total(self, c: Circle):",
    "        a = self.sq.area()", // line 10: Square.area through `self.sq = Square()`
    "        return a + c.area()", // line 11: Circle.area through the parameter's annotation
    "",
    "",
    "def local():",
    "    s = Square()",
    "    return s.area()", // line 16: Square.area through `s = Square()`
    "",
    "",
    "def annotated():",
    "    x: Circle = get()",
    "    return x.area()", // line 21: Circle.area through the annotation
    "",
    "",
    "def qualified():",
    "    return shapes.Square.area(None)", // line 25: Square.area through the module
    "",
    "",
    "def through_call():",
    "    return make().area()", // line 29: Square.area through the return annotation
    "",
    "",
    "def module_var():",
    "    return default.area()", // line 33: Circle.area through `default = Circle()`
    "",
    "",
    "def unknown(v, w):",
    "    w = Square() if v else Circle()",
    "    return v.area() + w.area()", // line 38: unknown receivers, candidates of each
    "",
    "",
    "class Keeper:",
    "    def __init__(self):",
    "        self.box = shapes.Box()",
    "",
    "    def go(self):",
    "        return self.box.inner.area()", // line 46: Square.area through Box's `self.inner = Square()`
    "",
    "",
    "def caught():",
    "    try:",
    "        pass",
    "    except shapes.Problem as e:",
    "        return e.area()", // line 53: Problem.area through the except clause
    "",
  ].join("\n"),
  "pyt/ext.py": [
    "import wsgiref.handlers",
    "",
    "",
    "class BaseHandler(wsgiref.handlers.BaseHandler):",
    "    def setup(self):",
    "        return super().setup()", // line 6: the library base's setup, not this one
    "",
  ].join("\n"),
  "pyt/plan.py": [
    "class Plan:",
    "    def run(self):",
    "        return self.step()", // line 3: Plan defines no step: its subclasses' step
    "",
    "",
    "class Sub(Plan):",
    "    def step(self):",
    "        return 1",
    "",
  ].join("\n"),
  // TypeScript: a member use resolves through the type the file declares or constructs for its operand.
  "tsr/shapes.ts": [
    "export class Shape {",
    "  area(): number {",
    "    return 0;",
    "  }",
    "}",
    "",
    "export class Square extends Shape {",
    "  area(): number {",
    "    return 1;",
    "  }",
    "",
    "  static unit(): Square {",
    "    return new Square();",
    "  }",
    "}",
    "",
    "export class Circle {",
    "  area(): number {",
    "    return 3;",
    "  }",
    "}",
    "",
    "export function measure(): number {",
    "  return 0;",
    "}",
    "",
  ].join("\n"),
  "tsr/use.ts": [
    'import { Circle, Square } from "./shapes.ts";',
    'import * as geo from "./shapes.ts";',
    "",
    "export class Holder {",
    "  private readonly circle: Circle;",
    "  constructor(private readonly sq: Square) {",
    "    this.circle = new Circle();",
    "  }",
    "",
    "  total(c: Circle): number {",
    "    return this.sq.area() + c.area();", // line 11: Square.area (parameter property), Circle.area (parameter)
    "  }",
    "",
    "  round(): number {",
    "    return this.circle.area();", // line 15: Circle.area through the field's declared type
    "  }",
    "}",
    "",
    "export function local(): number {",
    "  const s = new Square();",
    "  return s.area();", // line 21: Square.area through `new Square()`
    "}",
    "",
    "export function annotated(x: Circle | null): number {",
    "  const y: Square = Square.unit();", // line 25: the static Square.unit
    "  return x!.area() + y.area();", // line 26: Circle.area, Square.area through annotations
    "}",
    "",
    "export function qualified(v: unknown): number {",
    "  return geo.Square.unit().area() + geo.measure() + (v as Circle).area();", // line 30
    "}",
    "",
    "export interface Parts {",
    "  sq: Square;",
    "}",
    "",
    "export function parts(p: Parts): number {",
    "  const { sq } = p;",
    "  return sq.area();", // line 39: Square.area through the destructured property's type
    "}",
    "",
  ].join("\n"),
  "tsr/alias.ts": [
    'import { measure as gauge, Square as Sq } from "./shapes.ts";',
    "",
    "export function aliased(s: Sq): number {",
    "  return gauge() + Sq.unit().area() + new Sq().area() + s.area();", // line 4: measure, Square.unit, Square.area
    "}",
    "",
  ].join("\n"),
  "tsr/box.js": [
    'import { Square } from "./shapes.ts";',
    "",
    "export class Box {",
    "  constructor() {",
    "    this.sq = new Square();",
    "  }",
    "",
    "  run() {",
    "    return this.sq.area();", // line 9: Square.area through the constructor's assignment
    "  }",
    "}",
    "",
  ].join("\n"),
  "tsr/sub.ts": [
    'import { Shape, Square } from "./shapes.ts";',
    "",
    "export class Base {",
    "  protected sq: Square = new Square();",
    "}",
    "",
    "export class Child extends Base {",
    "  size(): number {",
    "    return this.sq.area();", // line 9: Square.area through the base class's field
    "  }",
    "}",
    "",
    "export function viaBase(s: Shape): number {",
    "  return s.area();", // line 14: Shape.area, perhaps a subclass's override
    "}",
    "",
    "export function size(): number {",
    "  return 0;",
    "}",
    "",
    "export const total = size();", // line 21: the function, never Child.size
    "",
    "export class Hooked {",
    "  size(): number {",
    "    return 2;",
    "  }",
    "",
    "  hook(ep: { on?: () => number }): void {",
    "    ep.on = () => {",
    "      return this.size();", // line 30: Hooked.size from a function nested in its method
    "    };",
    "  }",
    "}",
    "",
    "export function opened(): number {",
    "  const sq = Square.unit();",
    "  return sq.area();", // line 37: Square.area through Square.unit's declared result
    "}",
    "",
    "export class Kit {",
    "  readonly sq: Square = new Square();",
    "}",
    "",
    "export class User {",
    '  constructor(private kit: Kit, private inner: Kit["sq"]) {}',
    "",
    "  run(): number {",
    "    return this.kit.sq.area() + this.inner.area();", // line 48: Square.area through Kit's field, twice
    "  }",
    "}",
    "",
  ].join("\n"),
  // Python: two definitions of one name; the second file's bare call means its own definition.
  "py/one.py": "def helper():\n    return 1\n",
  "py/two.py": "def helper():\n    return 2\n\n\ndef use():\n    return helper()\n",
};

const flat = flatReferences;

const sites = (r: FindReferencesResult) => flat(r).map((x) => `${x.path}:${x.line}:${x.resolution}`).sort();

function repo(): string {
  return writeRepo(FILES, "cruxe-resolve-");
}

/** The graph's edges as `from -> to` by qualified name. */
function edges(g: ReturnType<typeof getCallGraph>): string[] {
  const names = new Map(g.nodes.map((n) => [n.symbol_id, n.qualified_name]));
  return g.edges.map((e) => `${names.get(e.from)} -> ${names.get(e.to)}`).sort();
}

Deno.test("references resolve by scope and declared type; candidates only on request", async (t) => {
  const h = tempHome();
  const readers = new IndexReaders(h.registry);
  try {
    const { project, status } = await indexDir(h, repo());
    assert.equal(status, "published");
    const db: Db = requireIndex(readers.view(project));

    await t.step("two definitions of one name in two packages: each gets its own uses", () => {
      assert.deepEqual(sites(findReferences(db, { symbol_name: "Open", path: "a/open.go" })), [
        "c/use.go:6:exact",
        "d/dot.go:6:exact",
      ]);
      assert.deepEqual(sites(findReferences(db, { symbol_name: "Open", path: "b/open.go" })), []);
    });

    await t.step("a method and a package function of one name are told apart", () => {
      assert.deepEqual(sites(findReferences(db, { symbol_name: "Serve", kind: "method" })), ["srv/server.go:9:exact"]);
      assert.deepEqual(sites(findReferences(db, { symbol_name: "Serve", kind: "function" })), [
        "srv/server.go:17:exact",
      ]);
    });

    await t.step("a local function value or parameter shadows the package function", () => {
      const r = findReferences(db, { symbol_name: "logf", include_candidates: true });
      assert.deepEqual(sites(r), ["srv/server.go:25:exact"]);
    });

    await t.step("a selector resolves through the declared result type and struct field types", () => {
      assert.deepEqual(sites(findReferences(db, { symbol_name: "Close", path: "a/file.go" })), ["c/use.go:7:exact"]);
      assert.deepEqual(sites(findReferences(db, { symbol_id: symbolId(db, "a.File.Write") })), []);
      const buffer = findReferences(db, { symbol_id: symbolId(db, "a.Buffer.Write") });
      assert.deepEqual(sites(buffer), ["a/file.go:9:exact"]);
    });

    await t.step("elements, map keys and promoted methods resolve to their type's method", () => {
      assert.deepEqual(sites(findReferences(db, { symbol_id: symbolId(db, "col.Item.Done") })), [
        "col/col.go:16:exact",
        "col/col.go:19:exact",
        "col/col.go:21:exact",
      ]);
      const other = findReferences(db, { symbol_id: symbolId(db, "col.Other.Done"), include_candidates: true });
      assert.deepEqual(sites(other), []);
    });

    await t.step("interface dispatch: a call through an interface value is the interface method's", () => {
      assert.deepEqual(sites(findReferences(db, { symbol_id: symbolId(db, "io2.Writer.Write") })), [
        "io2/io.go:12:exact",
      ]);
      const disk = findReferences(db, { symbol_id: symbolId(db, "io2.Disk.Write") });
      assert.deepEqual(sites(disk), ["io2/io.go:17:exact"]);
      // `unknown().Write` could be any Write: counted, and listed only when asked for.
      assert.ok(disk.unresolved_candidates >= 1, JSON.stringify(disk));
      const withCands = findReferences(db, { symbol_id: symbolId(db, "io2.Disk.Write"), include_candidates: true });
      assert.ok(sites(withCands).includes("io2/io.go:18:candidate"), sites(withCands).join(" "));
      assert.ok(!sites(withCands).includes("io2/io.go:12:candidate"), "a use resolved elsewhere is no candidate");
    });

    await t.step("callers at depth 2 and 3 walk callers only", () => {
      const d2 = getCallGraph(db, { symbol_name: "bottom", direction: "callers", depth: 2 });
      assert.deepEqual(d2.nodes.map((n) => `${n.name}@${n.depth}`).sort(), ["bottom@0", "lower@1", "middle@2"]);
      const d3 = getCallGraph(db, { symbol_name: "bottom", direction: "callers", depth: 3 });
      assert.deepEqual(d3.nodes.map((n) => `${n.name}@${n.depth}`).sort(), [
        "bottom@0",
        "lower@1",
        "middle@2",
        "top@3",
      ]);
      assert.deepEqual(edges(d3), [
        "chain.lower -> chain.bottom",
        "chain.middle -> chain.lower",
        "chain.top -> chain.middle",
      ]);
    });

    await t.step("a call resolving elsewhere is no self-loop", () => {
      const g = getCallGraph(db, { symbol_id: symbolId(db, "conn.conn.readRequest"), direction: "callees" });
      assert.deepEqual(edges(g), ["conn.conn.readRequest -> conn.reader.readRequest"]);
      assert.equal(g.has_cycles, false);
      assert.ok(g.edges.every((e) => e.resolution === "exact"));
    });

    await t.step("Python: self.m in a subclass and a module alias resolve", () => {
      const base = findReferences(db, { symbol_name: "run", path: "pyb/base.py", include_candidates: true });
      assert.deepEqual(sites(base), ["pyb/child.py:6:exact"]);
      assert.deepEqual(sites(findReferences(db, { symbol_name: "util" })), ["pyb/alias.py:5:import"]);
    });

    await t.step("Python: a parameter or local shadows the module's function", () => {
      const r = findReferences(db, { symbol_name: "fmt", path: "pyl/mod.py", include_candidates: true });
      assert.deepEqual(sites(r), ["pyl/mod.py:15:exact"]);
    });

    await t.step("Python: a bare call in a file with its own definition is not the other one's", () => {
      const one = findReferences(db, { symbol_name: "helper", path: "py/one.py", include_candidates: true });
      assert.deepEqual(sites(one), []);
      assert.equal(one.unresolved_candidates, 0);
      assert.deepEqual(sites(findReferences(db, { symbol_name: "helper", path: "py/two.py" })), ["py/two.py:6:exact"]);
    });

    await t.step("Python: x = T() and self.a = T() make x.m and self.a.m uses of T.m", () => {
      const r = findReferences(db, { symbol_id: symbolId(db, "pyt.shapes.Square.area") });
      assert.ok(sites(r).includes("pyt/use.py:10:exact"), sites(r).join());
      assert.ok(sites(r).includes("pyt/use.py:16:exact"), sites(r).join());
    });

    await t.step("Python: an annotation (parameter or variable) types the receiver", () => {
      const r = findReferences(db, { symbol_id: symbolId(db, "pyt.shapes.Circle.area") });
      assert.ok(sites(r).includes("pyt/use.py:11:exact"), sites(r).join());
      assert.ok(sites(r).includes("pyt/use.py:21:exact"), sites(r).join());
    });

    await t.step("Python: mod.Class.m, f().m through f's return annotation, a module variable of a class", () => {
      const square = sites(findReferences(db, { symbol_id: symbolId(db, "pyt.shapes.Square.area") }));
      assert.ok(square.includes("pyt/use.py:25:exact"), square.join());
      assert.ok(square.includes("pyt/use.py:29:exact"), square.join());
      const circle = sites(findReferences(db, { symbol_id: symbolId(db, "pyt.shapes.Circle.area") }));
      assert.ok(circle.includes("pyt/use.py:33:exact"), circle.join());
    });

    await t.step("Python: self.a.b.m through the attributes another file's class assigns", () => {
      const square = sites(findReferences(db, { symbol_id: symbolId(db, "pyt.shapes.Square.area") }));
      assert.ok(square.includes("pyt/use.py:46:exact"), square.join());
    });

    await t.step("Python: `except T as e` makes e.m a use of T.m", () => {
      const r = sites(findReferences(db, { symbol_id: symbolId(db, "pyt.shapes.Problem.area") }));
      assert.deepEqual(r, ["pyt/use.py:53:exact"]);
    });

    await t.step("Python: self.m in a base that does not define m is a use of a subclass's m", () => {
      const r = sites(findReferences(db, { symbol_id: symbolId(db, "pyt.plan.Sub.step") }));
      assert.deepEqual(r, ["pyt/plan.py:3:exact"]);
    });

    await t.step("Python: super() of a class deriving from a library class of its own name is not itself", () => {
      const r = findReferences(db, { symbol_id: symbolId(db, "pyt.ext.BaseHandler.setup") });
      assert.deepEqual(sites(r), []);
    });

    await t.step("Python: get_call_graph follows typed member calls to their class's method", () => {
      const g = getCallGraph(db, { symbol_id: symbolId(db, "pyt.use.Holder.total"), direction: "callees" });
      assert.deepEqual(edges(g), [
        "pyt.use.Holder.total -> pyt.shapes.Circle.area",
        "pyt.use.Holder.total -> pyt.shapes.Square.area",
      ]);
      const keeper = getCallGraph(db, { symbol_id: symbolId(db, "pyt.use.Keeper.go"), direction: "callees" });
      assert.deepEqual(edges(keeper), ["pyt.use.Keeper.go -> pyt.shapes.Square.area"]);
    });

    await t.step("Python: super().m is the base's method; a typed use of another class is left out", () => {
      const shape = findReferences(db, { symbol_id: symbolId(db, "pyt.shapes.Shape.area"), include_candidates: true });
      // v.area() and w.area(): receivers of unknown class.
      assert.deepEqual(sites(shape), ["pyt/shapes.py:8:exact", "pyt/use.py:38:candidate", "pyt/use.py:38:candidate"]);
      const square = findReferences(db, { symbol_id: symbolId(db, "pyt.shapes.Square.area") });
      assert.deepEqual(sites(square), [
        "pyt/use.py:10:exact",
        "pyt/use.py:16:exact",
        "pyt/use.py:25:exact",
        "pyt/use.py:29:exact",
        "pyt/use.py:46:exact",
      ]);
      assert.equal(square.unresolved_candidates, 2); // v.area() and w.area(): two bindings, two classes
      const circle = findReferences(db, { symbol_id: symbolId(db, "pyt.shapes.Circle.area") });
      assert.deepEqual(sites(circle), ["pyt/use.py:11:exact", "pyt/use.py:21:exact", "pyt/use.py:33:exact"]);
    });

    await t.step("TypeScript: a parameter property, a parameter's and a field's declared type", () => {
      const square = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Square.area") }));
      assert.ok(square.includes("tsr/use.ts:11:exact"), square.join());
      const circle = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Circle.area") }));
      assert.ok(circle.includes("tsr/use.ts:11:exact"), circle.join());
      assert.ok(circle.includes("tsr/use.ts:15:exact"), circle.join());
    });

    await t.step("TypeScript: const x = new T(), x: T | null with x!, and (v as T)", () => {
      const square = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Square.area") }));
      assert.ok(square.includes("tsr/use.ts:21:exact"), square.join());
      assert.ok(square.includes("tsr/use.ts:26:exact"), square.join());
      const circle = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Circle.area") }));
      assert.ok(circle.includes("tsr/use.ts:26:exact"), circle.join());
      assert.ok(circle.includes("tsr/use.ts:30:exact"), circle.join());
    });

    await t.step("TypeScript: T.staticM() and ns.T.staticM() through a namespace import", () => {
      const unit = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Square.unit") }));
      assert.deepEqual(unit, [
        "tsr/alias.ts:4:exact",
        "tsr/sub.ts:36:exact",
        "tsr/use.ts:25:exact",
        "tsr/use.ts:30:exact",
      ]);
    });

    await t.step("TypeScript: ns.f() through `import * as ns` is a use of the module's function", () => {
      const r = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "measure") }));
      assert.deepEqual(r, ["tsr/alias.ts:1:import", "tsr/alias.ts:4:import", "tsr/use.ts:30:import"]);
    });

    await t.step("TypeScript: this.a.m through a field a base class declares", () => {
      const square = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Square.area") }));
      assert.ok(square.includes("tsr/sub.ts:9:exact"), square.join());
    });

    await t.step("TypeScript: const { a } = v takes a's type from v's declared type", () => {
      const square = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Square.area") }));
      assert.ok(square.includes("tsr/use.ts:39:exact"), square.join());
    });

    await t.step("TypeScript: a use through a base is a use of each override, as the compiler counts it", () => {
      const shape = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Shape.area") }));
      assert.ok(shape.includes("tsr/sub.ts:14:exact"), shape.join());
      const square = findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Square.area") });
      assert.ok(sites(square).includes("tsr/sub.ts:14:exact"), sites(square).join());
      // Circle declares an area of its own, outside Shape's hierarchy.
      const circle = findReferences(db, {
        symbol_id: symbolIn(db, "tsr/shapes.ts", "Circle.area"),
        include_candidates: true,
      });
      assert.ok(!sites(circle).some((x) => x.startsWith("tsr/sub.ts:14")), sites(circle).join());
    });

    await t.step("TypeScript: import { f as g } makes g() a use of f, and an aliased class types its uses", () => {
      const measure = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "measure") }));
      assert.ok(measure.includes("tsr/alias.ts:4:import"), measure.join());
      const unit = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Square.unit") }));
      assert.ok(unit.includes("tsr/alias.ts:4:exact"), unit.join());
      const square = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Square.area") }));
      assert.ok(square.includes("tsr/alias.ts:4:exact"), square.join());
    });

    await t.step("TypeScript: const x = T.create() takes the method's declared result type", () => {
      const square = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Square.area") }));
      assert.ok(square.includes("tsr/sub.ts:37:exact"), square.join());
    });

    await t.step("TypeScript: get_call_graph follows typed member calls to their class's method", () => {
      const g = getCallGraph(db, { symbol_id: symbolIn(db, "tsr/use.ts", "Holder.total"), direction: "callees" });
      const callees = g.nodes.filter((n) => n.symbol_id !== g.root).map((n) => n.qualified_name).sort();
      assert.equal(callees.length, 2, callees.join());
      assert.ok(callees[0].endsWith("Circle.area") && callees[1].endsWith("Square.area"), callees.join());
      assert.ok(g.edges.every((e) => e.resolution === "exact"));
    });

    await t.step('TypeScript: this.a.b.m through the field a\'s class declares, and T["b"]', () => {
      const square = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Square.area") }));
      assert.equal(square.filter((x) => x === "tsr/sub.ts:48:exact").length, 2, square.join());
    });

    await t.step("JavaScript: this.a = new T() in a method types this.a.m", () => {
      const square = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Square.area") }));
      assert.ok(square.includes("tsr/box.js:9:exact"), square.join());
    });

    await t.step("TypeScript: a bare call never means a method", () => {
      const r = findReferences(db, { symbol_id: symbolIn(db, "tsr/sub.ts", "Child.size"), include_candidates: true });
      assert.deepEqual(sites(r), []);
    });

    await t.step("TypeScript: this.m in a function nested in a method is the class's", () => {
      const r = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/sub.ts", "Hooked.size") }));
      assert.deepEqual(r, ["tsr/sub.ts:30:exact"]);
    });

    await t.step("TypeScript: a typed use of another class is left out of the default answer", () => {
      const shape = findReferences(db, {
        symbol_id: symbolIn(db, "tsr/shapes.ts", "Shape.area"),
        include_candidates: true,
      });
      // Square's area overrides Shape's: one family, so Shape.area lists Square.area's uses and declaration.
      assert.ok(sites(shape).includes("tsr/shapes.ts:8:exact"), sites(shape).join());
      const circle = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Circle.area") }));
      assert.ok(!circle.includes("tsr/sub.ts:14:exact") && !circle.includes("tsr/use.ts:21:exact"), circle.join());
      const square = sites(findReferences(db, { symbol_id: symbolIn(db, "tsr/shapes.ts", "Square.area") }));
      assert.deepEqual(square, [
        "tsr/alias.ts:4:exact",
        "tsr/alias.ts:4:exact",
        "tsr/alias.ts:4:exact",
        "tsr/box.js:9:exact",
        "tsr/shapes.ts:2:exact", // Shape.area, which it overrides
        "tsr/sub.ts:14:exact", // s.area() through the base Shape
        "tsr/sub.ts:37:exact",
        "tsr/sub.ts:48:exact",
        "tsr/sub.ts:48:exact",
        "tsr/sub.ts:9:exact",
        "tsr/use.ts:11:exact",
        "tsr/use.ts:21:exact",
        "tsr/use.ts:26:exact",
        "tsr/use.ts:30:exact",
        "tsr/use.ts:39:exact",
      ]);
    });

    await t.step("find_implementations: Go method sets and Python subclasses", () => {
      const impls = (r: ReturnType<typeof findImplementations>) =>
        r.implementations.map((x) => `${x.symbol.qualified_name}:${x.resolution}`).sort();
      // Write([]byte) int: Disk, and a.File and a.Buffer in another package (structural).
      assert.deepEqual(impls(findImplementations(db, { symbol_name: "Writer" })), [
        "a.Buffer:exact",
        "a.File:exact",
        "io2.Disk:exact",
      ]);
      const base = findImplementations(db, { symbol_name: "Base", path: "pyb/base.py" });
      assert.deepEqual(impls(base), ["pyb.child.Child:import", "pyb.child.Own:import"]);
      assert.throws(
        () => findImplementations(db, { symbol_name: "bottom" }),
        (e: Error & { code?: string }) => e.code === "invalid_input",
      );
    });

    await t.step("get_call_graph: a module-qualified call is a resolved callee (Python, TypeScript)", () => {
      const py = getCallGraph(db, { symbol_name: "use", path: "pyb/alias.py", direction: "callees" });
      assert.deepEqual(edges(py), ["pyb.alias.use -> pyb.helpers.util"]);
      assert.equal(py.edges[0].resolution, "import");
      const ts = getCallGraph(db, { symbol_id: symbolIn(db, "tsr/use.ts", "qualified"), direction: "callees" });
      assert.ok(edges(ts).some((e) => e.endsWith("-> shapes.measure")), edges(ts).join());
    });

    await t.step("include_candidates must be a boolean", () => {
      assert.throws(
        () => findReferences(db, { symbol_name: "bottom", include_candidates: "yes" as unknown as boolean }),
        (e: Error & { code?: string }) => e.code === "invalid_input",
      );
      assert.throws(
        () => getCallGraph(db, { symbol_name: "bottom", include_candidates: 1 as unknown as boolean }),
        (e: Error & { code?: string }) => e.code === "invalid_input",
      );
    });
  } finally {
    readers.closeAll();
    h.close();
  }
});

/** The handle of the symbol with this qualified name. */
function symbolId(db: Db, qualified: string): string {
  const r = db.prepare("SELECT symbol_id FROM symbols WHERE qualified_name = ?").get(qualified) as
    | { symbol_id: string }
    | undefined;
  if (!r) throw new Error(`no symbol ${qualified}`);
  return r.symbol_id;
}
