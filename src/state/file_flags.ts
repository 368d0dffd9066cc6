/**
 * Per-file flags a query attaches to its results: which of a set of paths a
 * generator wrote (`files.generated`). Needs no Deno permission beyond the
 * already open database.
 */
import type { Db } from "./db.ts";

/** Paths bound per statement (well under SQLite's variable limit). */
const BATCH = 500;

/** The paths among `paths` whose file is flagged generated. */
export function generatedPaths(db: Db, paths: Iterable<string>): Set<string> {
  const all = [...new Set(paths)];
  const out = new Set<string>();
  for (let i = 0; i < all.length; i += BATCH) {
    const part = all.slice(i, i + BATCH);
    const rows = db.prepare(
      `SELECT path FROM files WHERE generated = 1 AND path IN (${part.map(() => "?").join(",")})`,
    ).all(...part) as { path: string }[];
    for (const r of rows) out.add(r.path);
  }
  return out;
}
