/**
 * Named reads of the `chunks` table (every indexed file's text in line
 * windows; the text read from the file where it is the source).
 */
import type { Db } from "../db.ts";
import { allRows, chunkColumns, type ChunkRow, oneRow, type StoredChunkRow } from "./rows.ts";
import { MAX_CHUNK_LINES } from "../file_rows.ts";
import { withChunkText } from "./chunk_text.ts";

const COLS = chunkColumns("c");

/**
 * Chunks of `path` overlapping lines `from`..`to`, in line order. Reads only
 * the chunks starting at most MAX_CHUNK_LINES before `from`, not every chunk
 * before it (a large file has thousands).
 */
export function chunksOverlapping(db: Db, path: string, from: number, to: number): ChunkRow[] {
  return withChunkText(
    db,
    allRows<StoredChunkRow>(
      db,
      `SELECT ${COLS} FROM chunks c WHERE c.path = ? AND c.line_start BETWEEN ? AND ? AND c.line_end >= ?
       ORDER BY c.line_start, c.id`,
      path,
      from - MAX_CHUNK_LINES + 1,
      to,
      from,
    ),
  );
}

/** The chunk of `path` covering `line`, preferring the one that belongs to symbol row `symbolRow`. */
export function chunkAt(db: Db, path: string, line: number, symbolRow: number | null): ChunkRow | undefined {
  return textOf(
    db,
    oneRow<StoredChunkRow>(
      db,
      `SELECT ${COLS} FROM chunks c WHERE c.path = ? AND c.line_start BETWEEN ? AND ? AND c.line_end >= ?
       ORDER BY (c.symbol_row IS ?) DESC, c.line_start, c.id LIMIT 1`,
      path,
      line - MAX_CHUNK_LINES + 1,
      line,
      line,
      symbolRow,
    ),
  );
}

/** The first chunk of a file. */
export function firstChunk(db: Db, path: string): ChunkRow | undefined {
  return textOf(
    db,
    oneRow<StoredChunkRow>(
      db,
      `SELECT ${COLS} FROM chunks c WHERE c.path = ? ORDER BY c.line_start, c.id LIMIT 1`,
      path,
    ),
  );
}

/** One row with its text; undefined when there is none or its file changed since it was indexed. */
function textOf(db: Db, row: StoredChunkRow | undefined): ChunkRow | undefined {
  return row ? withChunkText(db, [row])[0] : undefined;
}

/** An upper bound of the number of chunks (the largest chunk id; 0 when empty). */
export function chunkCountBound(db: Db): number {
  return Number(oneRow<{ n: number | null }>(db, "SELECT max(id) AS n FROM chunks")?.n ?? 0);
}
