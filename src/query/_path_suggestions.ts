/**
 * "Did you mean" for a path that is not in the index: files with the same
 * name elsewhere, then files whose path words match (full-text over paths).
 */
import type { Db } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import { splitIdentifier } from "../core/identifiers.ts";
import { ftsAnyWords } from "./_suggest_symbols.ts";
import { pathsNamed } from "../state/read/files.ts";
import { pathsForWords } from "../state/read/search.ts";

/** Up to `n` indexed paths close to `path`. */
export function suggestPaths(db: Db, path: string, n = 5): string[] {
  const out = new Set<string>();
  const base = path.slice(path.lastIndexOf("/") + 1);
  if (base) {
    for (const p of pathsNamed(db, base, n)) out.add(p);
  }
  if (out.size < n) {
    const q = ftsAnyWords(path.split(/[\/\\.]+/).flatMap((seg) => [seg, ...splitIdentifier(seg)]));
    if (q) {
      for (const p of pathsForWords(db, q, n * 2)) if (out.size < n) out.add(p);
    }
  }
  return [...out];
}

/**
 * `data.reason` of the `file_not_found` a query gives for a path its index
 * does not hold: the index alone cannot say why (the service tells a working
 * tree's missing file from one the scan leaves out: `src/service/not_indexed.ts`).
 */
export const NOT_IN_INDEX = "not_in_index";

/** The `file_not_found` error for `path`, which the index does not hold, with close indexed paths. */
export function notInIndex(db: Db, path: string): CruxeError {
  return new CruxeError("file_not_found", `${path.slice(0, 300)} is not in the index`, {
    path: path.slice(0, 300),
    reason: NOT_IN_INDEX,
    suggestions: suggestPaths(db, path),
  });
}
