/**
 * Named reads of `file_blobs`, the git blob id of every file of a ref store
 * (only stores built from git objects have the table).
 */
import type { Db } from "../db.ts";
import { tableNames } from "../db.ts";
import { allRowsOnce } from "./rows.ts";

/** One row of `file_blobs`. */
interface FileBlobRow {
  path: string;
  blob: string;
}

/** Path → git blob id of every file of the store; empty when the store has no blob ids (the working tree's). */
export function fileBlobIds(db: Db): Map<string, string> {
  if (!tableNames(db).has("file_blobs")) return new Map();
  const rows = allRowsOnce<FileBlobRow>(db, "SELECT path, blob FROM file_blobs");
  return new Map(rows.map((r) => [r.path, r.blob]));
}
