/**
 * Go files with invalid UTF-8 in comments (and strings) are indexed whole,
 * decoded with replacement characters and reported per file, on the first
 * index and on a sync: their symbols, their text and the reason are there.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bodyOf, inProcess, tempHomeDir } from "./mcp_helpers.ts";
import { registerProject } from "../src/index/project_setup.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const cat = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((p) => typeof p === "string" ? [...enc(p)] : p));

/** Each variant defines `Fn<Name>` after the bad bytes, so a file cut at them loses it. */
const VARIANTS: Record<string, Uint8Array> = {
  latin1: cat(
    "package p\n\n// Donn",
    [0xe9],
    "es g",
    [0xe9],
    "n",
    [0xe9],
    "r",
    [0xe9],
    "es\nfunc FnLatin1() int { return 1 }\n",
  ),
  cp1252: cat("package p\n\n// ", [0x93], "quoted", [0x94], " ", [0x96], "\nfunc FnCp1252() {}\n"),
  encodedSurrogate: cat("package p\n// ", [0xed, 0xa0, 0x80, 0xed, 0xb0, 0x80], "\nfunc FnSurrogate() {}\n"),
  overlong: cat(
    "package p\n/* ",
    [0xc0, 0xaf, 0xe0, 0x80, 0xaf, 0xf8, 0x88, 0x80, 0x80, 0x80],
    " */\nfunc FnOverlong() {}\n",
  ),
  loneContinuations: cat("package p\n\n/*", new Array(20_000).fill(0x80), "*/\nfunc FnContinuations() {}\n"),
  truncatedAtEof: cat("package p\n\nfunc FnTruncated() {}\n// end ", [0xe2, 0x82]),
  docComment: cat("package p\n\n// FnDoc does ", [0xff, 0xfe], " things.\nfunc FnDoc() {}\n"),
  inString: cat('package p\n\nvar s = "', [0xff], '"\n\nfunc FnString() {}\n'),
};

Deno.test("Go files with invalid UTF-8 in comments are indexed whole (replacement characters), on index and sync", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-utf8-" });
  Deno.writeTextFileSync(join(dir, "go.mod"), "module example.com/u\n\ngo 1.21\n");
  for (const [name, bytes] of Object.entries(VARIANTS)) Deno.writeFileSync(join(dir, `${name}.go`), bytes);
  const s = inProcess({}, { home: tempHomeDir() });
  try {
    const project = registerProject(s.registry, dir);
    assert.equal((await s.rt.runner.start(project, { mode: "full", force: false }).active.done).status, "published");
    const check = async (when: string) => {
      for (const name of Object.keys(VARIANTS)) {
        const outline = bodyOf(await s.call("get_file_outline", { workspace: dir, path: `${name}.go` }));
        const symbols = (outline.symbols as { name: string }[]).map((x) => x.name);
        assert.ok(symbols.some((n) => n.startsWith("Fn")), `${when} ${name}: symbols kept: ${JSON.stringify(outline)}`);
        assert.match(String(outline.parse_error), /invalid UTF-8/, `${when} ${name}: the reason is recorded`);
      }
      const doc = bodyOf(await s.call("locate_symbol", { workspace: dir, name: "FnDoc" }));
      assert.equal((doc.results as unknown[]).length, 1, `${when}: FnDoc is found`);
    };
    await check("index");
    // A sync re-reads a changed file through the same path.
    Deno.writeFileSync(join(dir, "docComment.go"), cat("package p\n\n// FnDoc ", [0xc3, 0x28], "\nfunc FnDoc() {}\n"));
    const synced = bodyOf(await s.call("sync_repo", { workspace: dir, wait: true }));
    assert.equal(synced.status, "published", JSON.stringify(synced));
    await check("sync");
  } finally {
    s.close();
  }
});
