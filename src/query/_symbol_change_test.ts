import assert from "node:assert/strict";
import type { SymbolRow } from "../state/read/rows.ts";
import type { SideSymbol } from "./_symbol_match.ts";
import { MAX_DIFF_LINES, symbolChange } from "./_symbol_change.ts";

/** A symbol at `line` with `body`, named `qname`'s last part. */
function sym(qname: string, line: number, body: string[], kind = "class"): SideSymbol {
  const row: SymbolRow = {
    id: line,
    symbol_id: `sym_${qname}`,
    stable_id: `b3:${qname}`,
    path: "a.ts",
    line_start: line,
    line_end: line + body.length - 1,
    kind,
    name: qname.split(".").pop()!,
    qualified_name: qname,
    signature: body[0],
    language: "typescript",
    parent_id: null,
    visibility: null,
    doc: null,
  };
  return { row, body };
}

Deno.test("symbolChange: a container's diff opens hunks only on its own lines", () => {
  const before = ["class C {", "  a = 1;", "  m() {", "    return 1;", "  }", "}"];
  const after = ["class C {", "  a = 2;", "  m() {", "    return 2;", "  }", "}"];
  // The member m() is lines 3-5 on both sides; its change is its own entry.
  const c = symbolChange("modified", sym("C", 1, before), sym("C", 1, after), [[3, 5]], [[3, 5]], 1);
  assert.deepEqual([c.lines_added, c.lines_removed], [1, 1], "only the container's own lines count");
  assert.match(c.diff!, /^- {2}a = 1;$/m);
  // The member's change falls inside the hunk's context and is shown whole (removal and replacement).
  assert.match(c.diff!, /^- {4}return 1;\n\+ {4}return 2;$/m);
  // Far from any own change, a member's change opens no hunk.
  const long = (
    v: string,
  ) => [
    "class C {",
    "  a = 1;",
    "  b = 1;",
    "  c = 1;",
    "  d = 1;",
    "  e = 1;",
    "  m() {",
    `    return ${v};`,
    "  }",
    "}",
  ];
  const quiet = symbolChange("modified", sym("C", 1, long("1")), sym("C", 1, long("2")), [[7, 9]], [[7, 9]], 1);
  assert.equal(quiet.diff, undefined);
  assert.equal(quiet.lines_added, 0);
  assert.equal(quiet.body_changed, false);
});

Deno.test("symbolChange: added has its whole body, removed has counts only, long diffs are cut", () => {
  const body = ["function f() {", "  return 1;", "", "}"];
  const added = symbolChange("added", null, sym("f", 10, body, "function"), [], [], 0);
  assert.equal(added.diff, "@@ -0,0 +10,4 @@\n+function f() {\n+  return 1;\n+\n+}");
  assert.equal(added.path, "a.ts");
  assert.equal(added.path_before, undefined);
  const removed = symbolChange("removed", sym("f", 10, body, "function"), null, [], [], 0);
  assert.equal(removed.diff, undefined);
  assert.equal(removed.lines_removed, 3, "blank lines are not counted");
  assert.equal(removed.path_before, "a.ts");
  assert.equal(removed.signature_before, "function f() {");
  const huge = Array.from({ length: MAX_DIFF_LINES + 50 }, (_, i) => `  x${i}();`);
  const big = symbolChange("added", null, sym("g", 1, ["function g() {", ...huge, "}"], "function"), [], [], 0);
  assert.equal(big.diff!.split("\n").length, MAX_DIFF_LINES);
  assert.equal(big.diff_cut, true);
});

Deno.test("symbolChange: a rename alone changes neither signature nor body", () => {
  const b = sym("total", 1, ["function total(xs) {", "  return xs.length;", "}"], "function");
  const h = sym("count", 1, ["function count(xs) {", "  return xs.length;", "}"], "function");
  const c = symbolChange("renamed", b, h, [], [], 0.67);
  assert.deepEqual([c.signature_changed, c.body_changed, c.name_before, c.similarity], [false, false, "total", 0.67]);
  assert.deepEqual([c.lines_added, c.lines_removed], [1, 1]);
});
