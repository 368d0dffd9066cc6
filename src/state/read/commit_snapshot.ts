/**
 * The file list of one indexed commit of a refs store, as a team store
 * publishes it beside the commit's shard (`src/state/pg/team_store.ts`):
 * each file's path, git blob id, language and counts.
 */
import type { Db } from "../db.ts";
import type { SnapshotFile } from "../pg/team_store.ts";

type Row = Record<string, unknown>;

const FILES_SQL = `
  SELECT f.path AS path, b.blob AS blob, f.language AS language, f.line_count AS line_count,
    f.symbol_count AS symbol_count
  FROM ref_files m JOIN files f ON f.id = m.file_id LEFT JOIN version_blobs b ON b.file_id = f.id
  WHERE m.ref_id = ? ORDER BY f.path`;

/** The files of commit `refId` of the refs store open as `db` (unscoped), by path. */
export function readCommitFiles(db: Db, refId: number): SnapshotFile[] {
  return (db.prepare(FILES_SQL).all(refId) as Row[]).map((r) => ({
    path: String(r.path),
    blob: r.blob === null ? null : String(r.blob),
    language: String(r.language),
    lineCount: Number(r.line_count),
    symbolCount: Number(r.symbol_count),
  }));
}
