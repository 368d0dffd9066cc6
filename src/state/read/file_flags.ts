/**
 * Per-file flags a query attaches to its results: which of a set of paths a
 * generator wrote (`files.generated`). Needs no Deno permission beyond the
 * already open database.
 */
import type { Db } from "../db.ts";
import { rowsInBatches } from "./rows.ts";

/** The paths among `paths` whose file is flagged generated. */
export function generatedPaths(db: Db, paths: Iterable<string>): Set<string> {
  const rows = rowsInBatches<{ path: string }>(
    db,
    [...new Set(paths)],
    (list) => `SELECT path FROM files WHERE generated = 1 AND path IN (${list})`,
  );
  return new Set(rows.map((r) => r.path));
}
