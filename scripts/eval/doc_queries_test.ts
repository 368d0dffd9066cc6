/**
 * The generated set's rules: a doc comment's first sentence becomes the
 * query, its lines are found and blanked without moving any other line, and
 * sampling is the same for the same seed.
 */
import assert from "node:assert/strict";
import { blankLines, docLines, docQuery, seededRandom, seedFor, shuffled } from "./doc_queries.ts";

Deno.test("docQuery: the first sentence, markup unwrapped, a leading own name dropped", () => {
  assert.equal(
    docQuery("Encode encodes src into at most\nMaxEncodedLen bytes of dst. It returns n.", "Encode"),
    "encodes src into at most MaxEncodedLen bytes of dst",
  );
  assert.equal(
    docQuery("Returns the {@link Duration} of this period, i.e. the length.", "x"),
    "Returns the Duration of this period, i.e. the length",
  );
  assert.equal(
    docQuery("Return the `value` for this [`Field`](x), using data", "f"),
    "Return the value for this Field, using data",
  );
});

Deno.test("docQuery: directives, links and too-short sentences make no query", () => {
  assert.equal(docQuery("Deprecated: use Foo instead of this old thing.", "x"), null);
  assert.equal(docQuery("See https://example.org/why for the reasons here", "x"), null);
  assert.equal(docQuery("Abort on error.", "abort"), null);
});

Deno.test("docLines: comment lines above, attributes skipped, block comments whole, docstrings below", () => {
  const go = ["package x", "", "// Foo does", "// things.", "func Foo() {", "}"];
  assert.deepEqual(docLines(go, 5), [2, 3]);
  const java = ["/**", " Returns the", " * thing.", " */", "@Override", "public int f() {", "}"];
  assert.deepEqual(docLines(java, 6), [0, 1, 2, 3]);
  const py = ["def f(x):", '    """Return the', '    thing."""', "    return x"];
  assert.deepEqual(docLines(py, 1), [1, 2]);
  const ex = ['  @doc """', "  Returns it.", '  """', "  def f(x), do: x"];
  assert.deepEqual(docLines(ex, 4), [0, 1, 2]);
  assert.deepEqual(docLines(["x = 1", "def f():", "    return 1"], 2), []);
});

Deno.test("blankLines: line numbers are kept; a blanked docstring leaves a body that parses", () => {
  const py = ["def f(x):", '    """Doc', '    more."""', "    return x"];
  assert.deepEqual(blankLines(py, [1, 2], true), ["def f(x):", "    pass", "", "    return x"]);
  assert.deepEqual(blankLines(["// a", "func f() {}"], [0], false), ["", "func f() {}"]);
});

Deno.test("sampling: the same seed and name give the same order, another seed another", () => {
  const xs = Array.from({ length: 50 }, (_, i) => i);
  const a = shuffled(xs, seededRandom(seedFor(31, "repo")));
  assert.deepEqual(shuffled(xs, seededRandom(seedFor(31, "repo"))), a);
  assert.notDeepEqual(shuffled(xs, seededRandom(seedFor(32, "repo"))), a);
  assert.deepEqual([...a].sort((x, y) => x - y), xs);
});
