import assert from "node:assert/strict";
import type { SymbolRow } from "../state/read/rows.ts";
import { matchSymbols, pairStatus, type SideSymbol } from "./_symbol_match.ts";

let nextId = 1;
/** A symbol named `qname` (leaf after the last dot) at `path:line` with body `body`. */
function sym(path: string, qname: string, line: number, body: string[], kind = "function", sig?: string): SideSymbol {
  const name = qname.split(".").pop()!;
  const row: SymbolRow = {
    id: nextId++,
    symbol_id: `sym_${nextId}`,
    stable_id: `b3:${qname}`,
    path,
    line_start: line,
    line_end: line + body.length - 1,
    kind,
    name,
    qualified_name: qname,
    signature: sig ?? body[0],
    language: "typescript",
    parent_id: null,
    visibility: null,
    doc: null,
  };
  return { row, body };
}

const LONG = [
  "  const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0);",
  "  if (total > limit) throw new Error('over the limit');",
  "  return total;",
  "}",
];

Deno.test("matchSymbols: same place pairs; unchanged and modified by body and signature", () => {
  const b = [
    sym("a.ts", "f", 1, ["function f() {", ...LONG]),
    sym("a.ts", "g", 10, ["function g() {", "  return 1;", "}"]),
  ];
  const h = [
    sym("a.ts", "f", 1, ["function f() {", ...LONG]),
    sym("a.ts", "g", 12, ["function g() {", "  return 2;", "}"]),
  ];
  const m = matchSymbols(b, h);
  assert.equal(m.pairs.length, 2);
  assert.deepEqual(m.pairs.map((p) => [p.base.row.name, pairStatus(p)]), [["f", "unchanged"], ["g", "modified"]]);
  const sig = matchSymbols([b[1]], [sym("a.ts", "g", 10, ["function g(x: number) {", "  return 1;", "}"])]);
  assert.equal(pairStatus(sig.pairs[0]), "modified");
});

Deno.test("matchSymbols: a symbol in another file is moved; a moved file's symbols pair in place", () => {
  const body = ["function f() {", ...LONG];
  const m = matchSymbols([sym("old/a.ts", "f", 1, body)], [sym("new/b.ts", "f", 5, body)]);
  assert.equal(m.pairs.length, 1);
  assert.equal(pairStatus(m.pairs[0]), "moved");
  // Two unrelated same-named functions in different files do not pair.
  const other = matchSymbols([sym("cmd/a/main.ts", "main", 1, body)], [
    sym("cmd/b/main.ts", "main", 1, ["function main() {", "  serve(port);", "  listen();", "}"]),
  ]);
  assert.equal(other.pairs.length, 0);
  assert.equal(other.removed.length, 1);
  assert.equal(other.added.length, 1);
  // With the file move known, same-named symbols pair in the first pass whatever their bodies.
  const moved = matchSymbols([sym("x.ts", "g", 1, ["function g() {", "  return 1;", "}"])], [
    sym("y.ts", "g", 1, ["function g() {", "  return 2;", "}"]),
  ], new Map([["x.ts", "y.ts"]]));
  assert.equal(moved.pairs.length, 1);
  assert.equal(pairStatus(moved.pairs[0]), "moved");
});

Deno.test("matchSymbols: a renamed function pairs by its body, exactly or nearly", () => {
  const m = matchSymbols([sym("a.ts", "computeTotal", 1, ["function computeTotal(items) {", ...LONG])], [
    sym("a.ts", "sumPrices", 1, ["function sumPrices(items) {", ...LONG]),
  ]);
  assert.equal(m.pairs.length, 1);
  assert.equal(pairStatus(m.pairs[0]), "renamed");
  assert.equal(m.pairs[0].base.row.name, "computeTotal");
  const near = [...LONG.slice(0, 2), "  return total + 0;", ...LONG.slice(3), "// extra", "// more"];
  const n = matchSymbols([
    sym("a.ts", "computeTotal", 1, ["function computeTotal(items) {", ...LONG, "// extra", "// more"]),
  ], [
    sym("b.ts", "sumPrices", 1, ["function sumPrices(items) {", ...near]),
  ]);
  assert.equal(n.pairs.length, 1, "near-identical body under a new name and file");
  assert.equal(pairStatus(n.pairs[0]), "renamed");
});

Deno.test("matchSymbols: short shared bodies and other kinds do not pair as renames", () => {
  const m = matchSymbols(
    [sym("a.ts", "isA", 1, ["function isA() {", "  return true;", "}"])],
    [
      sym("a.ts", "isB", 1, ["function isB() {", "  return true;", "}"]),
      sym("a.ts", "isC", 5, ["function isC() {", "  return true;", "}"]),
    ],
  );
  assert.equal(m.pairs.length, 0, "two equally short candidates: no guess");
  const k = matchSymbols([sym("a.ts", "T", 1, ["function T() {", ...LONG])], [
    sym("a.ts", "U", 1, ["function U() {", ...LONG], "class"),
  ]);
  assert.equal(k.pairs.length, 0);
  assert.deepEqual([k.removed.length, k.added.length], [1, 1]);
});

Deno.test("pairStatus: a container changed only inside its members is unchanged", () => {
  const cls = (method: string) =>
    sym("a.ts", "C", 1, ["class C {", "  m() {", `    ${method}`, "  }", "}"], "class", "class C");
  const p = matchSymbols([cls("return 1;")], [cls("return 2;")]).pairs[0];
  assert.equal(pairStatus(p, [[2, 4]], [[2, 4]]), "unchanged");
  assert.equal(pairStatus(p), "modified");
});

Deno.test("matchSymbols: overloads pair in line order", () => {
  const b = [sym("a.ts", "f", 1, ["f(a) {", "}"]), sym("a.ts", "f", 3, ["f(a, b) {", "}"])];
  const h = [sym("a.ts", "f", 1, ["f(a) {", "}"]), sym("a.ts", "f", 3, ["f(a, b) {", "}"])];
  const m = matchSymbols(b, h);
  assert.deepEqual(m.pairs.map((p) => [p.base.row.line_start, p.head.row.line_start]), [[1, 1], [3, 3]]);
});
