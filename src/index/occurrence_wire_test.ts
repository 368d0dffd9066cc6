import assert from "node:assert/strict";
import type { ExtractedOccurrence } from "../core/types.ts";
import { packOccurrences, unpackOccurrences } from "./occurrence_wire.ts";

Deno.test("packed occurrences cross a structured clone and come back field for field", () => {
  const occurrences: ExtractedOccurrence[] = [
    { name: "Get", kind: "call", line: 3, column: 7, qualifier: "http", from: 0, hint: "=net/http" },
    { name: "err", kind: "attribute", line: 4, column: 2, qualifier: "", from: null },
    { name: "Reader", kind: "type", line: 9, column: 12, qualifier: null, from: 1 },
    { name: "Get", kind: "call", line: 12, column: 1, qualifier: null, from: 1, hint: "" },
  ];
  const packed = structuredClone(packOccurrences(occurrences));
  assert.deepEqual(packed.strings.filter((s) => s === "Get").length, 1, "each string travels once");
  const back = unpackOccurrences(packed);
  assert.deepEqual(back, occurrences);
  assert.ok(!("hint" in back[1]) && !("hint" in back[2]), "no hint where none was set");
  assert.deepEqual(unpackOccurrences(packOccurrences([])), []);
});
