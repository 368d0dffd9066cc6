/**
 * "Did you mean" for a path that is not in the index: files with the same
 * name elsewhere, then files whose path words match (full-text over paths).
 */
import type { Db } from "../state/db.ts";
import { splitIdentifier } from "../core/identifiers.ts";
import { ftsAnyWords } from "./_suggest_symbols.ts";

/** Up to `n` indexed paths close to `path`. */
export function suggestPaths(db: Db, path: string, n = 5): string[] {
  const out = new Set<string>();
  const base = path.slice(path.lastIndexOf("/") + 1);
  if (base) {
    const rows = db.prepare("SELECT path FROM files WHERE path = ? OR path LIKE ? ESCAPE '\\' LIMIT ?")
      .all(base, "%/" + base.replace(/[\\%_]/g, (c) => "\\" + c), n) as { path: string }[];
    for (const r of rows) out.add(r.path);
  }
  if (out.size < n) {
    const q = ftsAnyWords(path.split(/[\/\\.]+/).flatMap((seg) => [seg, ...splitIdentifier(seg)]));
    if (q) {
      const rows = db.prepare(
        `SELECT files.path FROM (SELECT rowid AS rid, bm25(files_fts, 1.0, 0.0) AS rank FROM files_fts
           WHERE files_fts MATCH ? ORDER BY rank LIMIT ?) AS hit JOIN files ON files.rowid = hit.rid ORDER BY hit.rank`,
      ).all(`{path} : (${q})`, n * 2) as { path: string }[];
      for (const r of rows) if (out.size < n) out.add(r.path);
    }
  }
  return [...out];
}
