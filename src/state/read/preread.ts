/**
 * Reading a store's full-text row sizes ahead of the first searches. BM25
 * reads one row of a `*_fts_docsize` table per match it scores, at random:
 * on pages not read since the machine started, a search of a large index
 * waits on hundreds of separate page reads. Read in rowid order once, the
 * same pages cost one pass over a few regions of the file (the kernel's
 * three tables: 114 MiB, about 2.4 s), and later searches find them in the
 * operating system's page cache.
 */
import type { Db } from "../db.ts";

/** The full-text tables' row-size tables, the ones BM25 reads per match. */
const ROW_SIZE_TABLES = ["chunks_fts_docsize", "symbols_fts_docsize", "files_fts_docsize"] as const;

/** Row ids read per statement: a few hundred pages, so a query waiting behind one slice waits milliseconds. */
const SLICE_ROWS = 20_000;

/**
 * Reads every row of the row-size tables, a slice of row ids at a time,
 * awaiting `pause` between slices (so calls queued on the same thread run in
 * between) and stopping early once `stop` says so. Resolves to the rows read
 * per table; a failed read (a table missing, the store replaced) ends the
 * pass, which only warms a cache.
 */
export async function prereadRowSizes(
  db: Db,
  pause: () => Promise<void>,
  stop: () => boolean = () => false,
): Promise<Record<string, number>> {
  const read: Record<string, number> = {};
  try {
    for (const table of ROW_SIZE_TABLES) {
      const top = db.prepare(`SELECT max(id) AS n FROM ${table}`).get() as { n: number | null } | undefined;
      const slice = db.prepare(`SELECT count(*) AS n FROM ${table} WHERE id > ? AND id <= ?`);
      read[table] = 0;
      for (let from = 0; from < Number(top?.n ?? 0); from += SLICE_ROWS) {
        if (stop()) return read;
        read[table] += Number((slice.get(from, from + SLICE_ROWS) as { n: number }).n);
        await pause();
      }
    }
  } catch { /* a table missing, or the store closed or replaced: the cache is warm enough */ }
  return read;
}
