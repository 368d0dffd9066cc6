/**
 * A file of the working tree that a run read and left out (no language by
 * name or by `#!` line, or binary) is not read again by a later run in the
 * same process while its size and mtime are the same; once they move it is
 * read and judged again. A build file named without an extension
 * (`Makefile`, `Kbuild`) is never read.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type FileSource, type IndexOptions, runIndex } from "../src/index/indexer.ts";
import { scanRepository } from "../src/index/scan.ts";
import { readRepoFile } from "../src/io/safe_open.ts";
import { tempDir } from "./helpers/temp_dir.ts";

const MAX = 1 << 20;

/** The working tree of `root`, as the indexer reads it, noting every path read into `reads`. */
function countingSource(root: string, reads: string[]): FileSource {
  return {
    disk: true,
    scan: () => scanRepository(root, { maxFileBytes: MAX, useGit: false }),
    read: (path, maxBytes) => {
      reads.push(path);
      return readRepoFile(root, path, { maxBytes }).bytes;
    },
  };
}

Deno.test("files read and left out are not read again while their stat holds; a changed one is judged again", async () => {
  const root = tempDir("cruxe-skip-verdicts-");
  const projectDir = tempDir("cruxe-skip-verdicts-store-");
  Deno.writeTextFileSync(join(root, "main.py"), "def main():\n    return 1\n");
  Deno.writeTextFileSync(join(root, "Makefile"), "all:\n\techo hi\n");
  Deno.mkdirSync(join(root, "drivers"));
  Deno.writeTextFileSync(join(root, "drivers", "Kbuild"), "obj-y += foo.o\n");
  Deno.writeTextFileSync(join(root, "notes"), "plain words\n");
  Deno.writeTextFileSync(join(root, "tool"), "#!/usr/bin/env python3\ndef tool_entry():\n    return 2\n");
  Deno.writeFileSync(join(root, "blob.py"), new Uint8Array([0x64, 0x65, 0x66, 0, 1, 2]));
  const opts: IndexOptions = {
    root,
    projectDir,
    ref: "live",
    vcsMode: "plain",
    force: false,
    maxFileBytes: MAX,
    workers: 1,
    workerRecycleFiles: 1000,
  };
  const run = async () => {
    const reads: string[] = [];
    const summary = await runIndex(opts, () => {}, { source: countingSource(root, reads) });
    return { reads: reads.sort(), summary };
  };
  const cold = await run();
  assert.equal(cold.summary.filesIndexed, 2, "main.py and tool (by its #! line)");
  assert.ok(cold.reads.includes("notes"), JSON.stringify(cold.reads));
  assert.ok(!cold.reads.some((p) => /Makefile|Kbuild/.test(p)), `build files are never read: ${cold.reads}`);
  await run(); // the binary file of a known language is read once on an incremental run
  const noop = await run();
  assert.deepEqual(noop.reads, [], "nothing read again: stats unchanged");
  assert.equal(noop.summary.changedFiles, 0);
  // The notes become a script (new size and mtime): read and indexed.
  Deno.writeTextFileSync(join(root, "notes"), "#!/bin/sh\necho made\n");
  const changed = await run();
  assert.deepEqual(changed.reads, ["notes"]);
  assert.equal(changed.summary.added, 1, JSON.stringify(changed.summary));
});
