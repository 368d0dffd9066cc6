import assert from "node:assert/strict";
import { compileGlob, globMatch } from "./glob_match.ts";

const self = (glob: string, path: string, anchored = false) => globMatch(compileGlob(glob, anchored), path).self;

Deno.test("globs: *, ?, ** and **/ keep to path components as gitignore does", () => {
  assert.equal(self("*.log", "a/b/x.log"), true, "unanchored: from any component");
  assert.equal(self("*.log", "x.log/y"), false);
  assert.equal(self("a/*.go", "a/b/c.go", true), false, "* stops at /");
  assert.equal(self("a/**/c.go", "a/c.go", true), true, "**/ may be empty");
  assert.equal(self("a/**/c.go", "a/x/y/c.go", true), true);
  assert.equal(self("a/**", "a/x/y", true), true);
  assert.equal(self("?.go", "x.go"), true);
  assert.equal(globMatch(compileGlob("build", false), "src/build/x.go").under, true, "below a match");
  assert.equal(globMatch(compileGlob("build", true), "src/build/x.go").under, false, "anchored");
});

Deno.test("brackets follow git: reversed ranges add their first character, unclosed or unknown classes match nothing", () => {
  assert.equal(self("[a-c]x", "bx"), true);
  assert.equal(self("[!a-c]x", "dx"), true);
  assert.equal(self("[^a-c]x", "bx"), false);
  assert.equal(self("[]a]", "]"), true, "] first is a member");
  assert.equal(self("[[:digit:]]", "7"), true);
  assert.equal(self("[a/]", "/"), false, "a bracket never matches /");
  const reversed = compileGlob("[z-a]", false);
  assert.equal(globMatch(reversed, "z").self, true, "git adds z before reading the range");
  assert.equal(globMatch(reversed, "m").self, false);
  assert.match(reversed.problems.join(), /reversed/);
  assert.equal(self("[z-ab]x", "bx"), true);
  assert.equal(self("q[!z-a]", "qc"), true);
  for (const bad of ["foo[", "[[:bogus:]]y", "x[!"]) {
    const g = compileGlob(bad, false);
    assert.equal(g.viable, false, bad);
    assert.equal(g.problems.length, 1, bad);
    assert.equal(globMatch(g, "foo[").self || globMatch(g, "y").self, false);
  }
});

Deno.test("globs that make a backtracking matcher explode are matched in linear time", () => {
  const cases: [string, string, boolean][] = [
    ["a*".repeat(14) + "b", "a".repeat(60), false],
    ["a*".repeat(14) + "b", "a".repeat(60) + "b", true],
    ["**/".repeat(40) + "x*".repeat(40) + "y", ("x".repeat(30) + "/").repeat(30) + "x".repeat(80), false],
    ["*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "a".repeat(4000), false],
    ["**a**a**a**a**a**a**a**a**a**a**a**a**c", ("a".repeat(20) + "/").repeat(100), false],
  ];
  const t0 = performance.now();
  for (const [glob, path, want] of cases) {
    for (const anchored of [false, true]) assert.equal(self(glob, path, anchored), want, `${glob} ${anchored}`);
  }
  // A backtracking matcher takes hours on the first case; a linear one, milliseconds.
  assert.ok(performance.now() - t0 < 2000, `took ${Math.round(performance.now() - t0)} ms`);
});

/**
 * Pairs of a random glob (of `globAtoms`, anchored every `anchorEvery`th) and random paths (of `pathAtoms`), from a
 * fixed seed: the same pairs every run.
 */
function* randomPairs(
  seed: number,
  globs: number,
  globAtoms: string[],
  pathAtoms: string[],
  anchorEvery: number,
): Generator<{ glob: string; anchored: boolean; g: ReturnType<typeof compileGlob>; path: () => string }> {
  const pick = <T>(xs: T[]) => xs[(seed = (seed * 1103515245 + 12345) & 0x7fffffff) % xs.length];
  for (let k = 0; k < globs; k++) {
    const glob = Array.from({ length: 1 + (k % 6) }, () => pick(globAtoms)).join("");
    const anchored = k % anchorEvery === 0;
    let j = 0;
    const path = () => Array.from({ length: 1 + (j++ % 8) }, () => pick(pathAtoms)).join("").replace(/\/$/, "");
    yield { glob, anchored, g: compileGlob(glob, anchored), path };
  }
}

Deno.test("the word-sized form of short globs agrees with the general one", () => {
  const atoms = ["a", "b", "/", "*", "**", "**/", "?", "[ab]", "[!a]"];
  let compared = 0;
  for (const { glob, g, path: next } of randomPairs(7, 2000, atoms, ["a", "b", "c", "a/"], 2)) {
    if (!g.bits) continue;
    for (let j = 0; j < 10; j++) {
      const path = next();
      assert.deepEqual(globMatch(g, path), globMatch({ ...g, bits: undefined }, path), `${glob} on ${path}`);
      compared++;
    }
  }
  assert.ok(compared > 10_000, `${compared} comparisons`);
});

Deno.test("the literal checks before the automaton never reject a path the automaton matches", () => {
  const atoms = ["a", "b", ".", "/", "*", "**", "**/", "?", "[ab]", "\\*", "ab", ".o"];
  const pathAtoms = ["a", "b", ".o", "ab", "*", "a/", ".b/"];
  let compared = 0;
  let rejected = 0;
  for (const { glob, anchored, g, path: next } of randomPairs(11, 3000, atoms, pathAtoms, 3)) {
    if (!g.needs) continue;
    for (let j = 0; j < 12; j++) {
      const path = next();
      const full = globMatch({ ...g, needs: undefined }, path);
      assert.deepEqual(globMatch(g, path), full, `${glob} (anchored: ${anchored}) on ${path}`);
      if (!full.self && !full.under) rejected++;
      compared++;
    }
  }
  assert.ok(compared > 10_000 && rejected > 1_000, `${compared} comparisons, ${rejected} without a match`);
});
