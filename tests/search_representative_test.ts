/**
 * Which lines a prose answer shows for a file: the definition whose name the
 * query's words cover, not a neighbour whose text repeats the words more
 * often; the order of files is the same either way.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { indexDir, tempHome, withIndex } from "./helpers/fixture_repo.ts";
import { searchCode } from "../src/query/search_code.ts";
import { DEFAULT_RANKING, withRanking } from "../src/query/search/ranking_params.ts";

function codecRepo(): string {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-representative-" });
  const lines = [
    "package codec",
    "",
    "// writeHeader writes the header bytes that the block encoder and the block decoder share:",
    "// every encoded block starts with it, so encoding a block of bytes and decoding it agree.",
    "func writeHeader(buf []byte, block int, bytes int) int {",
    "\t// encodes block bytes into dst: encodes block bytes into dst, encodes block bytes into dst",
    "\t// dst block bytes encodes dst block bytes encodes dst block bytes encodes dst block bytes",
    "\tbuf[0] = byte(block)",
    "\tbuf[1] = byte(bytes)",
    "\treturn 2",
    "}",
    "",
    ...Array.from({ length: 30 }, (_, i) => `// padding line ${i} between the two definitions`),
    "",
    "func EncodeBlock(dst []byte, src []byte) int {",
    "\tfor i := range src {",
    "\t\tdst[i] = src[i] ^ 0x5a",
    "\t}",
    "\treturn len(src)",
    "}",
  ];
  Deno.mkdirSync(join(dir, "codec"), { recursive: true });
  Deno.writeTextFileSync(join(dir, "codec/codec.go"), lines.join("\n") + "\n");
  Deno.writeTextFileSync(join(dir, "codec/other.go"), "package codec\n\nfunc unrelated() int { return 1 }\n");
  return dir;
}

Deno.test("search_code: a prose answer shows the definition its words name, and without the rule it does not", async () => {
  const h = tempHome();
  const dir = codecRepo();
  try {
    const idx = await indexDir(h, dir);
    withIndex(h, idx.project.project_id, (db) => {
      const query = "encodes a block of bytes into dst";
      const on = searchCode(db, { query }).results;
      const off = searchCode(db, { query }, withRanking(DEFAULT_RANKING, { repName: 0 })).results;
      assert.equal(on[0].path, "codec/codec.go");
      assert.deepEqual(on.map((r) => r.path), off.map((r) => r.path), "the order of files does not change");
      const shows = (r: (typeof on)[number]) => `${r.line_start}-${r.line_end}`;
      assert.ok(on[0].line_start <= 45 && on[0].line_end >= 45, `shows EncodeBlock: ${shows(on[0])}`);
      assert.ok(!(off[0].line_start <= 45 && off[0].line_end >= 45), `without the rule: ${shows(off[0])}`);
    });
  } finally {
    h.close();
    Deno.removeSync(h.home, { recursive: true });
    Deno.removeSync(dir, { recursive: true });
  }
});
