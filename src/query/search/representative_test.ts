import assert from "node:assert/strict";
import { nameCoverage, namedRepresentative, rarity } from "./representative.ts";
import { aggregateFiles } from "./shape.ts";
import type { Unit } from "./fuse.ts";
import type { SymbolHit } from "./candidates.ts";

const unit = (key: string, score: number, name?: string, path = "a.go"): Unit => ({
  key,
  path,
  language: "go",
  symbol: name ? ({ name, kind: "function" } as SymbolHit) : undefined,
  ranks: {},
  fused: score,
  score,
  reasons: {},
});

Deno.test("nameCoverage: a name's words the query's stems cover", () => {
  assert.equal(nameCoverage("EncodeToString", new Set(["encod", "string"])), 1);
  assert.equal(nameCoverage("decodeQuantum", new Set(["decod"])), 0.5);
  assert.equal(nameCoverage("x", new Set(["x"])), 0, "no word of 3+ letters");
});

Deno.test("namedRepresentative: a covered name shows the file; the files' order does not change", () => {
  const units = [
    unit("a1", 1.0, "flush"),
    unit("b1", 0.9, "other", "b.go"),
    unit("a2", 0.6, "encodeBlock"),
  ];
  const plain = aggregateFiles(units.map((u) => ({ ...u, reasons: {} })), true, 2);
  const picked = aggregateFiles(
    units.map((u) => ({ ...u, reasons: {} })),
    true,
    2,
    false,
    0.3,
    namedRepresentative(["encodes", "block"], 1),
  );
  assert.deepEqual(plain.map((u) => u.key), ["a1", "b1"]);
  assert.deepEqual(picked.map((u) => u.key), ["a2", "b1"]);
  assert.deepEqual(picked.map((u) => u.score), plain.map((u) => u.score), "the file keeps its score");
});

Deno.test("namedRepresentative: without a covered name the best unit stays", () => {
  const pick = namedRepresentative(["unrelated"], 3);
  assert.equal(pick([unit("a1", 1, "flush"), unit("a2", 0.5, "encode")])?.key, "a1");
});

Deno.test("nameCoverage: with rarity weights a common covered word counts little", () => {
  const weight = rarity({ docs: 10_000, df: (w) => (w === "map" ? 5_000 : 3), dfPrefix: () => 0 });
  const common = nameCoverage("map", new Set(["map"]), weight);
  const rare = nameCoverage("tokenize", new Set(["tokeniz"]), weight);
  assert.ok(common < 0.15, `map covers ${common}`);
  assert.ok(rare > 0.8, `tokenize covers ${rare}`);
  assert.equal(nameCoverage("map", new Set(["map"])), 1, "without weights every word counts 1");
});
