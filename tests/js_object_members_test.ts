import assert from "node:assert/strict";
import { parseAndExtract } from "../src/index/parser.ts";

Deno.test("functions stored in named object literals are methods of that object; call arguments are not", async () => {
  const src = [
    "var Shortcuts = {",
    "  init: function () { return 1; },",
    "  handleClick(num) { go(num); },",
    "  dismiss: (x) => x,",
    "  count: 3,",
    "};",
    "Widget.prototype = { render: function () {} };",
    "$.ajax({ success: function (data) { use(data); } });",
  ].join("\n");
  const r = await parseAndExtract("javascript", "admin/js/shortcuts.js", src);
  const got = r.symbols.map((s) => `${s.kind} ${s.qualifiedName} ${s.lineStart}`);
  assert.ok(got.includes("method shortcuts.Shortcuts.init 2"), got.join("\n"));
  assert.ok(got.includes("method shortcuts.Shortcuts.handleClick 3"));
  assert.ok(got.includes("method shortcuts.Shortcuts.dismiss 4"));
  assert.ok(got.some((g) => g.startsWith("method") && g.includes("render 7")));
  assert.ok(!got.some((g) => g.includes("count")), "plain values in an object are not symbols");
  assert.ok(!got.some((g) => g.includes("success")), "callbacks passed as call arguments are not symbols");
  assert.equal(r.symbols.find((s) => s.name === "init")?.signature, "init: function ()");
});

Deno.test("statement-level assignments of functions, classes and namespace objects are definitions", async () => {
  const src = [
    "window.SelectFilter = {",
    "  init: function (id) { return id; },",
    "};",
    "Date.prototype.getTwelveHours = function () { return 12; };",
    "module.exports.load = (x) => x;",
    "counter = 0;",
    "window.Actions = Actions;",
  ].join("\n");
  const r = await parseAndExtract("javascript", "admin/js/x.js", src);
  const got = r.symbols.map((s) => `${s.kind} ${s.qualifiedName} ${s.lineStart}`);
  assert.deepEqual(got, [
    "variable x.SelectFilter 1",
    "method x.SelectFilter.init 2",
    "method x.Date.getTwelveHours 4",
    "function x.load 5",
  ]);
});
