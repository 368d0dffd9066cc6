/**
 * Whether the files an answer quotes are still as the index recorded them:
 * an answer about a file edited since the last sync (before a watcher has
 * seen it, or from a command-line call, which runs no watcher and no tree
 * scan) must not say `fresh`. A stat per file named, compared with the size
 * and mtime the index recorded. Requires `--allow-read` on the repository.
 */
import { join } from "node:path";
import type { Db } from "../state/db.ts";
import { indexedFacts } from "../state/read/files.ts";
import { underSymlinkedDirectory } from "../io/safe_open.ts";

/** Most files of one answer compared (a page of references may name hundreds). */
export const MAX_COMPARED_FILES = 64;

/** The `path` values `body` names at any depth (results, references, nodes, items), each once, at most `max`. */
export function answerPaths(body: unknown, max = MAX_COMPARED_FILES): string[] {
  const out = new Set<string>();
  const walk = (v: unknown, depth: number) => {
    if (out.size >= max || depth > 6 || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    for (const [k, x] of Object.entries(v)) {
      if (k === "path" && typeof x === "string" && x) out.add(x);
      else if (k !== "metadata") walk(x, depth + 1);
      if (out.size >= max) return;
    }
  };
  walk(body, 0);
  return [...out];
}

/**
 * The files of `paths` (indexed paths of the working tree at `root`) that
 * are not as the index recorded them: another size or mtime, gone, or now
 * reached through a symlinked directory. Paths the index does not hold are
 * not judged.
 */
export function changedSinceIndex(db: Db, root: string, paths: readonly string[]): string[] {
  const recorded = indexedFacts(db, paths);
  const symlinkedDirs = new Map<string, boolean>();
  const changed: string[] = [];
  for (const [path, rec] of recorded) {
    let st: Deno.FileInfo | null = null;
    try {
      if (!underSymlinkedDirectory(root, path, symlinkedDirs)) st = Deno.lstatSync(join(root, path));
    } catch { /* gone: changed */ }
    if (!st || !st.isFile || st.size !== rec.size || (st.mtime?.getTime() ?? 0) !== rec.mtime_ms) changed.push(path);
  }
  return changed;
}
