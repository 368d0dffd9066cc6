/**
 * Named reads of the git blob id of every file of a ref's index (only the
 * refs store, built from git objects, has them: `version_blobs`).
 */
import type { Db } from "../db.ts";
import { tableNames } from "../db.ts";
import { allRowsOnce, oneRow } from "./rows.ts";

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

/** Path → blob id of the files on the list of commit `refId` of a refs store (an unscoped connection). */
export function listedBlobIds(db: Db, refId: number): Map<string, string> {
  const rows = allRowsOnce<FileBlobRow>(
    db,
    `SELECT f.path AS path, b.blob AS blob FROM ref_files m JOIN files f ON f.id = m.file_id
     JOIN version_blobs b ON b.file_id = f.id WHERE m.ref_id = ?`,
    refId,
  );
  return new Map(rows.map((r) => [r.path, r.blob]));
}

/** True when the refs store has a list under `refId` (published or not). */
export function hasList(db: Db, refId: number): boolean {
  return oneRow(db, "SELECT 1 AS one FROM ref_files WHERE ref_id = ? LIMIT 1", refId) !== undefined;
}

/** The id of a version of `path` with git blob `blob` in the refs store, if it holds one. */
export function versionWithBlob(db: Db, path: string, blob: string): number | null {
  const r = oneRow<{ id: number }>(
    db,
    "SELECT f.id AS id FROM files f JOIN version_blobs b ON b.file_id = f.id WHERE f.path = ? AND b.blob = ? LIMIT 1",
    path,
    blob,
  );
  return r ? Number(r.id) : null;
}

/** The (path, blob) pairs the refs store recorded as read and skipped, as `path\0blob`. */
export function skippedBlobKeys(db: Db): Set<string> {
  return new Set(
    allRowsOnce<FileBlobRow>(db, "SELECT path, blob FROM skipped_blobs").map((r) => `${r.path}\0${r.blob}`),
  );
}
