import assert from "node:assert/strict";
import { builtinSkip, IgnoreFile, IgnoreStack } from "./ignore_rules.ts";

Deno.test("gitignore patterns: unanchored names, anchored paths, directories only, negation", () => {
  const f = new IgnoreFile("", "# comment\n*.log\n/build\ncache/\n!keep.log\ndocs/**/*.tmp\n");
  assert.equal(f.match("app.log", false), true);
  assert.equal(f.match("sub/app.log", false), true);
  assert.equal(f.match("keep.log", false), false, "re-included");
  assert.equal(f.match("build", true), true);
  assert.equal(f.match("src/build", true), undefined, "anchored to the base");
  assert.equal(f.match("cache", true), true);
  assert.equal(f.match("cache", false), undefined, "cache/ matches directories only");
  assert.equal(f.match("cache/x.go", false), true, "everything under an ignored directory");
  assert.equal(f.match("docs/a/b/c.tmp", false), true);
  assert.equal(f.match("main.go", false), undefined);
});

Deno.test("a deeper ignore file overrides a shallower one, only under its own directory", () => {
  const stack = new IgnoreStack().with(new IgnoreFile("", "*.gen.go\n")).with(new IgnoreFile("api", "!*.gen.go\n"));
  assert.equal(stack.ignored("x.gen.go", false), true);
  assert.equal(stack.ignored("api/x.gen.go", false), false);
  assert.equal(stack.ignored("apix/x.gen.go", false), true);
  assert.equal(stack.with(null), stack);
});

Deno.test("built-in skips: VCS and dependency directories anywhere, build output at the root only", () => {
  assert.equal(builtinSkip("node_modules/x/index.js"), true);
  assert.equal(builtinSkip("a/.git/config"), true);
  assert.equal(builtinSkip("dist/app.js"), true);
  assert.equal(builtinSkip("src/dist/app.js"), false);
  assert.equal(builtinSkip("src/main.go"), false);
  assert.equal(builtinSkip("bin/django-admin.py"), false);
  assert.equal(builtinSkip("bin/rails"), false);
  assert.equal(builtinSkip("bin/Debug/app.dll"), true);
});

Deno.test("a malformed rule neither throws nor disturbs the others; it is listed with its line", () => {
  const f = new IgnoreFile("", "*.log\n[z-a]\nfoo[\n[[:nope:]]x\n*.tmp\n");
  assert.equal(f.match("a.log", false), true);
  assert.equal(f.match("a.tmp", false), true, "rules after the malformed ones still apply");
  assert.equal(f.match("z", false), true, "[z-a] matches z, as in git");
  assert.equal(f.match("a", false), undefined);
  assert.equal(f.match("foo[", false), undefined, "an unclosed bracket matches nothing");
  assert.deepEqual(f.problems.map((p) => [p.line, p.pattern]), [[2, "[z-a]"], [3, "foo["], [4, "[[:nope:]]x"]]);
});

Deno.test("a backtracking-prone rule does not stall matching", () => {
  const f = new IgnoreFile("", "a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n" + "**/".repeat(30) + "x*".repeat(30) + "y\n");
  const t0 = performance.now();
  assert.equal(f.match("a".repeat(60), false), undefined);
  assert.equal(f.match(("x".repeat(40) + "/").repeat(20) + "x".repeat(60), false), undefined);
  assert.equal(f.match("a".repeat(60) + "b", false), true);
  assert.ok(performance.now() - t0 < 2000, `took ${Math.round(performance.now() - t0)} ms`);
});

Deno.test("trailing spaces are trimmed in linear time; an escaped one is kept", () => {
  const t0 = performance.now();
  const f = new IgnoreFile("", " ".repeat(200_000) + "x\n" + "a.go" + " ".repeat(200_000) + "\nb\\ \n");
  assert.ok(performance.now() - t0 < 2000, `took ${Math.round(performance.now() - t0)} ms`);
  assert.equal(f.match("a.go", false), true);
  assert.equal(f.match("b ", false), true);
  assert.equal(f.match("b", false), undefined);
});

Deno.test("a file's rules are matched within a budget: past it, the rest is dropped with a warning naming the line", () => {
  const lines = Array.from({ length: 10_000 }, (_, i) => `dir${i}/file${i}.*`);
  const f = new IgnoreFile("", lines.join("\n") + "\n");
  assert.equal(f.match("dir0/file0.go", false), true, "early rules apply");
  assert.equal(f.match("dir9999/file9999.go", false), undefined, "rules past the budget do not");
  assert.equal(f.problems.length, 1);
  assert.ok(f.problems[0].line > 100 && f.problems[0].line < 10_000, `line ${f.problems[0].line}`);
  assert.match(f.problems[0].message, /not applied/);
});
