/**
 * "Did you mean" for a path that is not in the index: files with the same
 * name elsewhere, then files whose path words match (full-text over paths).
 */
import type { Db } from "../state/db.ts";
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
