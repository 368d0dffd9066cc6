/**
 * Source lines of an indexed file, rebuilt from its stored chunks (chunks
 * cover every non-blank line once), so context needs no file read and shows
 * exactly what was indexed.
 */
import type { Db } from "../state/db.ts";
import { chunksOverlapping } from "../state/read/chunks.ts";

/** Lines `from`..`to` (1-based, inclusive) of `path`; blank where no chunk covers a line. */
export function fileLines(db: Db, path: string, from: number, to: number): string[] {
  const out = storedLines(db, path, from, to).lines;
  // Trailing lines past the last chunk (blank or cut) are dropped.
  while (out.length && out[out.length - 1] === "") out.pop();
  return out;
}

/**
 * Lines `from`..`to` of `path` as stored, and whether the store holds them
 * all: false when the file has no chunk at all (indexed without its text)
 * or a chunk was cut at its size cap.
 */
export function storedLines(db: Db, path: string, from: number, to: number): { lines: string[]; complete: boolean } {
  const rows = chunksOverlapping(db, path, from, to);
  const out = new Array<string>(Math.max(0, to - from + 1)).fill("");
  let complete = rows.length > 0 || to < from;
  for (const r of rows) {
    const lines = r.content.split("\n");
    if (lines.length < r.line_end - r.line_start + 1) complete = false;
    for (let i = 0; i < lines.length; i++) {
      const n = r.line_start + i;
      if (n >= from && n <= to && n <= r.line_end) out[n - from] = lines[i];
    }
  }
  return { lines: out, complete };
}
