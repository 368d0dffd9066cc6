/**
 * One indexed commit of a refs store read whole, as the rows a team store
 * publishes (`src/state/pg/team_store.ts`): its files with their blob ids,
 * its symbols and its chunks, each chunk with the words its search terms are
 * built from (the same identifier splitting the SQLite full text uses).
 * A working tree's chunks take their text from its files (see
 * `chunk_text.ts`): a file changed since it was indexed gives none.
 */
import type { Db } from "../db.ts";
import { compoundTerms, pathTerms, splitIdentifier } from "../../core/identifiers.ts";
import type { SnapshotChunk, SnapshotFile, SnapshotSymbol } from "../pg/team_store.ts";
import { type StoredChunk, withChunkText } from "./chunk_text.ts";
import { SYMBOL_ID_SQL } from "../symbol_keys.ts";
import { SYMBOL_KIND_WORDS, wordSql } from "../coded_words.ts";
import { fileJoinSql, qualifiedNameSql } from "../schema.ts";
import { textWithNameSql } from "../name_in_text.ts";

type Row = Record<string, unknown>;

const FILES_SQL = `
  SELECT f.path AS path, b.blob AS blob, f.language AS language, f.line_count AS line_count,
    f.symbol_count AS symbol_count
  FROM ref_files m JOIN files f ON f.id = m.file_id LEFT JOIN version_blobs b ON b.file_id = f.id
  WHERE m.ref_id = ? ORDER BY f.path`;

const SYMBOLS_SQL = `
  SELECT s.id AS id, f.path AS path, s.name AS name, coalesce(s.name_lower, lower(s.name)) AS name_lower,
    ${qualifiedNameSql("s")} AS qualified_name, ${wordSql(SYMBOL_KIND_WORDS, "s.kind")} AS kind,
    f.language AS language,
    ${
  textWithNameSql("s.signature", "s.name")
} AS signature, s.line_start AS line_start, s.line_end AS line_end, s.parent_id AS parent_id,
    ${SYMBOL_ID_SQL("s.symbol_key")} AS symbol_id
  FROM ref_files m JOIN files f ON f.id = m.file_id JOIN symbol_rows s ON ${fileJoinSql("symbol", "s")}
  WHERE m.ref_id = ? ORDER BY f.path, s.line_start, s.id`;

const CHUNKS_SQL = `
  SELECT f.path AS path, c.line_start AS line_start, c.line_end AS line_end, f.language AS language,
    s.name AS symbol_name, ${qualifiedNameSql("s")} AS qualified_name, c.content AS content
  FROM ref_files m JOIN files f ON f.id = m.file_id JOIN chunk_rows c ON ${fileJoinSql("chunk", "c")}
  LEFT JOIN symbol_rows s ON s.id = c.symbol_row
  WHERE m.ref_id = ? ORDER BY f.path, c.line_start`;

/** The same reads over a working tree's index (every file; no blob ids: those are a refs store's). */
const WORKTREE_SQL = {
  files: FILES_SQL.replace("LEFT JOIN version_blobs b ON b.file_id = f.id", "")
    .replace("b.blob AS blob", "NULL AS blob"),
  symbols: SYMBOLS_SQL,
  chunks: CHUNKS_SQL,
};
for (const k of ["files", "symbols", "chunks"] as const) {
  WORKTREE_SQL[k] = WORKTREE_SQL[k].replace("FROM ref_files m JOIN files f ON f.id = m.file_id", "FROM files f")
    .replace("WHERE m.ref_id = ?", "");
}

/**
 * The files, symbols and chunks of commit `refId` of the refs store open as
 * `db` (unscoped), or with `refId` null of the working-tree index open as `db`.
 */
export function readCommitSnapshot(
  db: Db,
  refId: number | null,
): { files: SnapshotFile[]; symbols: SnapshotSymbol[]; chunks: SnapshotChunk[] } {
  const sql = refId === null ? WORKTREE_SQL : { files: FILES_SQL, symbols: SYMBOLS_SQL, chunks: CHUNKS_SQL };
  const args = refId === null ? [] : [refId];
  const files = (db.prepare(sql.files).all(...args) as Row[]).map((r) => ({
    path: String(r.path),
    blob: r.blob === null ? null : String(r.blob),
    language: String(r.language),
    lineCount: Number(r.line_count),
    symbolCount: Number(r.symbol_count),
  }));
  const symbols = (db.prepare(sql.symbols).all(...args) as Row[]).map((r) => ({
    id: Number(r.id),
    path: String(r.path),
    name: String(r.name),
    nameLower: String(r.name_lower),
    qualifiedName: String(r.qualified_name),
    kind: String(r.kind),
    language: String(r.language),
    signature: String(r.signature ?? ""),
    lineStart: Number(r.line_start),
    lineEnd: Number(r.line_end),
    parentId: r.parent_id === null ? null : Number(r.parent_id),
    symbolId: String(r.symbol_id),
  }));
  const pathWords = new Map<string, string>();
  const stored = db.prepare(sql.chunks).all(...args) as unknown as (Row & StoredChunk)[];
  const chunks = withChunkText(db, stored).map((r) => {
    const path = String(r.path);
    if (!pathWords.has(path)) pathWords.set(path, pathTerms(path));
    const sym = r.symbol_name === null ? null : String(r.symbol_name);
    const qualified = r.qualified_name === null ? "" : String(r.qualified_name);
    // PostgreSQL text holds no NUL character (an indexed text file should have none).
    const content = String(r.content).replaceAll("\0", "");
    return {
      path,
      lineStart: Number(r.line_start),
      lineEnd: Number(r.line_end),
      language: String(r.language),
      symbolName: sym,
      content,
      symbolTerms: sym === null ? "" : [sym.toLowerCase(), ...splitIdentifier(qualified)].join(" "),
      extraTerms: compoundTerms(content),
      pathTerms: pathWords.get(path)!,
    };
  });
  return { files, symbols, chunks };
}
