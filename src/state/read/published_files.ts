/**
 * The read side of the manifest: what a published index says about each file
 * (path, size, mtime), for comparing the working tree against it without
 * opening the writer. Requires `--allow-read` on the store.
 */
import type { Db } from "../db.ts";

/** One file of a published index as the scan saw it. */
export interface PublishedFile {
  path: string;
  size: number;
  mtime_ms: number;
}

/** Every file of the published index behind `db` (a read connection). */
export function publishedFiles(db: Db): PublishedFile[] {
  return (db.prepare("SELECT path, size, mtime_ms FROM files").all() as Record<string, unknown>[]).map((r) => ({
    path: r.path as string,
    size: Number(r.size),
    mtime_ms: Number(r.mtime_ms),
  }));
}
