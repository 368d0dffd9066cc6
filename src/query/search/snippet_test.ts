import assert from "node:assert/strict";
import { MAX_MATCH_LINES, shownLines, SNIPPET_CHARS, SNIPPET_LINES } from "./snippet.ts";

/** Lines `from`.. of `texts` as the map `shownLines` reads. */
function at(from: number, texts: string[]): Map<number, string> {
  return new Map(texts.map((t, i) => [from + i, t]));
}

Deno.test("match_lines name the lines holding the query's words, with their own numbers", () => {
  const lines = at(181, ["func (r *Recorder) Result() *Response {", "\tres := r.result", "", "\treturn res", "}"]);
  const s = shownLines(lines, ["result"]);
  assert.deepEqual(s.match_lines.map((m) => m.line), [181, 182]);
  for (const m of s.match_lines) assert.equal(m.text, lines.get(m.line));
  assert.ok(s.snippet.startsWith("func (r *Recorder) Result()"));
});

Deno.test("the best line comes first and at most MAX_MATCH_LINES are listed", () => {
  const texts = Array.from({ length: 30 }, (_, i) => i === 20 ? "token validate token" : `token ${i}`);
  const s = shownLines(at(1, texts), ["token", "validate"]);
  assert.equal(s.match_lines.length, MAX_MATCH_LINES);
  assert.deepEqual(s.match_lines[0], { line: 21, text: "token validate token" });
  // The snippet starts one line before the best line and holds it.
  assert.equal(s.snippet.split("\n")[0], "token 19");
  assert.ok(s.snippet.split("\n").length <= SNIPPET_LINES);
});

Deno.test("a snippet never starts or ends on a blank line, and is never empty when a line has text", () => {
  const s = shownLines(at(19, ["", "", "@decorator", "", ""]), ["nothing"]);
  assert.equal(s.snippet, "@decorator");
  assert.deepEqual(s.match_lines, [{ line: 21, text: "@decorator" }]);
  assert.deepEqual(shownLines(at(1, ["", "  "]), ["x"]), { snippet: "", match_lines: [] });
});

Deno.test("a gap in the lines read is never shown as adjacent lines", () => {
  const lines = new Map([[1, "a"], [2, "b"], [900, "c key"], [901, "d"]]);
  const s = shownLines(lines, ["key"]);
  assert.equal(s.snippet, "c key\nd");
});

Deno.test("an over-long line is cut and marked, within SNIPPET_CHARS", () => {
  const long = "x".repeat(SNIPPET_CHARS * 2);
  const s = shownLines(at(1, [long]), ["x"]);
  assert.equal(s.snippet.length, SNIPPET_CHARS);
  assert.ok(s.snippet.endsWith("…"));
  assert.ok(s.match_lines[0].text.endsWith("…"));
});
