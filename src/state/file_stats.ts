/**
 * Per-file facts of a project index that ranking reads: how many symbols a
 * file defines. Read-only named queries. Needs the open index database.
 */
import type { Db } from "./db.ts";

/** Symbols defined in each of `paths` (paths with none are absent from the map). */
export function fileSymbolCounts(db: Db, paths: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < paths.length; i += 500) {
    const part = paths.slice(i, i + 500);
    const rows = db.prepare(
      `SELECT path, count(*) AS n FROM symbols WHERE path IN (${part.map(() => "?").join(",")}) GROUP BY path`,
    ).all(...part) as { path: string; n: number }[];
    for (const r of rows) out.set(r.path, Number(r.n));
  }
  return out;
}
