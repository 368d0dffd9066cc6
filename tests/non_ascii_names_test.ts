/**
 * Names outside ASCII are whole wherever they are stored: a call of
 * `Ärger()` or `数据.处理()` is an edge to `Ärger` and `处理`, not to the
 * ASCII tail of the name.
 */
import assert from "node:assert/strict";
import { parseAndExtract } from "../src/index/parser.ts";

Deno.test("call edges keep a non-ASCII callee's whole name", async () => {
  const go = [
    "package p",
    "",
    "func Ärger() int { return 1 }",
    "",
    "func run() int {",
    "\treturn Ärger() + größe.Maß()",
    "}",
  ]
    .join("\n");
  const g = await parseAndExtract("go", "p/p.go", go);
  const calls = g.refs.filter((r) => r.kind === "calls").map((r) => r.target);
  assert.ok(calls.includes("Ärger"), calls.join(", "));
  assert.ok(calls.includes("Maß"), calls.join(", "));
  const py = ["def 处理():", "    return 1", "", "def run():", "    return 数据.处理() + 处理()"].join("\n");
  const p = await parseAndExtract("python", "p.py", py);
  const pyCalls = p.refs.filter((r) => r.kind === "calls").map((r) => r.target);
  assert.deepEqual([...new Set(pyCalls)], ["处理"], pyCalls.join(", "));
});
