import assert from "node:assert/strict";
import { namesInList, packFileNames } from "./ref_file_names.ts";

/** The list of `occurrences` (line, name id). */
function packed(occurrences: { line: number; nameId: number }[]): Uint8Array {
  return packFileNames(occurrences.map((o) => o.line), occurrences.map((o) => o.nameId));
}

Deno.test("a file's name list gives back every name, and only the names of the lines asked for", () => {
  const occurrences = [
    { line: 12, nameId: 900_000 },
    { line: 3, nameId: 7 },
    { line: 3, nameId: 7 },
    { line: 3, nameId: 130 },
    { line: 40, nameId: 7 },
    { line: 41, nameId: 2 ** 31 - 1 },
  ];
  const bytes = packed(occurrences);
  assert.deepEqual(namesInList(bytes), [7, 130, 900_000, 2 ** 31 - 1]);
  assert.deepEqual(namesInList(bytes, 3, 3), [7, 130]);
  assert.deepEqual(namesInList(bytes, 4, 39), [900_000]);
  assert.deepEqual(namesInList(bytes, 40, 1_000), [7, 2 ** 31 - 1]);
  assert.deepEqual(namesInList(bytes, 13, 39), []);
  assert.deepEqual(namesInList(packed([])), []);
});

Deno.test("a name list takes a few bytes an occurrence line", () => {
  const occurrences = Array.from({ length: 1_000 }, (_, i) => ({ line: i + 1, nameId: 500_000 + (i % 50) }));
  const bytes = packed(occurrences);
  assert.ok(bytes.length < 4 * 1_000, `${bytes.length} bytes`);
  assert.equal(namesInList(bytes).length, 50);
});
