/**
 * Named reads of the git blob id of every file of a ref's index (only the
 * refs store, built from git objects, has them: `version_blobs`).
 */
import type { Db } from "../db.ts";
import { tableNames } from "../db.ts";
import { allRowsOnce } from "./rows.ts";

/** One file's path and blob id. */
interface FileBlobRow {
  path: string;
  blob: string;
}

/**
 * Path → git blob id of every file the connection reads (a connection scoped
 * to one ref reads that ref's files); empty for the working tree's store.
 */
export function fileBlobIds(db: Db): Map<string, string> {
  if (!tableNames(db).has("version_blobs")) return new Map();
  const rows = allRowsOnce<FileBlobRow>(
    db,
    "SELECT f.path AS path, b.blob AS blob FROM files f JOIN version_blobs b ON b.file_id = f.id",
  );
  return new Map(rows.map((r) => [r.path, r.blob]));
}
