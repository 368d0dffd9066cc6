/**
 * Per-file facts of a project index that ranking reads: how many symbols a
 * file defines. Read-only named queries. Needs the open index database.
 */
import type { Db } from "../db.ts";
import { rowsInBatches } from "./rows.ts";

/** Symbols defined in each of `paths` (paths with none are absent from the map). */
export function fileSymbolCounts(db: Db, paths: string[]): Map<string, number> {
  const rows = rowsInBatches<{ path: string; n: number }>(
    db,
    paths,
    (list) => `SELECT path, count(*) AS n FROM symbols WHERE path IN (${list}) GROUP BY path`,
  );
  return new Map(rows.map((r) => [r.path, Number(r.n)]));
}
