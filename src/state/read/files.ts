/** Named reads of the `files` table. Every query returns `FileRow` or part of one. */
import type { Db } from "../db.ts";
import { allRows, fileColumns, type FileRow, likeEscape, oneRow } from "./rows.ts";

/** The indexed file at `path`. */
export function fileByPath(db: Db, path: string): FileRow | undefined {
  return oneRow<FileRow>(db, `SELECT ${fileColumns()} FROM files WHERE path = ?`, path);
}

/** True when `path` is an indexed file. */
export function hasFile(db: Db, path: string): boolean {
  return !!oneRow(db, "SELECT 1 FROM files WHERE path = ?", path);
}

/** The language of the indexed file at `path`. */
export function languageOfFile(db: Db, path: string): string | undefined {
  return oneRow<Pick<FileRow, "language">>(db, "SELECT language FROM files WHERE path = ?", path)?.language;
}

/** The first of exactly seven candidate paths that is an indexed file (pad with repeats). */
export function firstIndexedOf(
  db: Db,
  paths: [string, string, string, string, string, string, string],
): string | undefined {
  return oneRow<Pick<FileRow, "path">>(
    db,
    "SELECT path FROM files WHERE path IN (?, ?, ?, ?, ?, ?, ?) LIMIT 1",
    ...paths,
  )
    ?.path;
}

/** True when some indexed file lies under directory `dir` (given with its trailing `/`). */
export function hasFileUnder(db: Db, dir: string): boolean {
  return !!oneRow(db, "SELECT path FROM files WHERE path > ? AND path < ? LIMIT 1", dir, dir + "\uffff");
}

/** Indexed paths whose base name is `base` (`base` itself, or `…/base`), at most `limit`. */
export function pathsNamed(db: Db, base: string, limit: number): string[] {
  return allRows<Pick<FileRow, "path">>(
    db,
    "SELECT path FROM files WHERE path = ? OR path LIKE ? ESCAPE '\\' LIMIT ?",
    base,
    "%/" + likeEscape(base),
    limit,
  ).map((r) => r.path);
}

/** Languages present in the index. */
export function indexedLanguages(db: Db): string[] {
  return allRows<Pick<FileRow, "language">>(db, "SELECT DISTINCT language FROM files").map((r) => r.language);
}

/** One file the parser could only partly read, with what it reported. */
export interface FileProblem {
  path: string;
  language: string;
  problem: string;
}

/** Files with a recorded parse problem (syntax errors, invalid UTF-8, failed extraction), by path; at most `limit`, with the true `total`. */
export function filesWithParseProblems(db: Db, limit = 1000): { files: FileProblem[]; total: number } {
  const total = oneRow<{ n: number }>(db, "SELECT count(*) AS n FROM files WHERE parse_error IS NOT NULL")?.n ?? 0;
  const files = allRows<FileProblem>(
    db,
    "SELECT path, language, parse_error AS problem FROM files WHERE parse_error IS NOT NULL ORDER BY path LIMIT ?",
    limit,
  );
  return { files, total };
}

/** Every indexed path. */
export function allIndexedPaths(db: Db): string[] {
  return allRows<Pick<FileRow, "path">>(db, "SELECT path FROM files").map((r) => r.path);
}

/** A file's identity for comparing two indexes: its path, content hash, language and line count. */
export interface FileDigest {
  path: string;
  /** Content hash as the writer recorded it (equal hashes mean equal content within one hashing scheme). */
  hash: string;
  language: string;
  line_count: number;
}

/** Every indexed file under path prefix `prefix` (all files when empty), by path. */
export function fileDigests(db: Db, prefix = ""): FileDigest[] {
  return allRows<FileDigest>(
    db,
    "SELECT path, hash, language, line_count FROM files WHERE path >= ? AND path < ? ORDER BY path",
    prefix,
    prefix + "\uffff",
  );
}

/** The digest of the indexed file at `path`. */
export function fileDigestOf(db: Db, path: string): FileDigest | undefined {
  return oneRow<FileDigest>(db, "SELECT path, hash, language, line_count FROM files WHERE path = ?", path);
}

/** Path → recorded size in bytes of every indexed file (for estimating how far a commit is from the index). */
export function fileSizes(db: Db): Map<string, number> {
  const rows = allRows<{ path: string; size: number }>(db, "SELECT path, size FROM files");
  return new Map(rows.map((r) => [r.path, Number(r.size)]));
}

/** What the index recorded of a file: its digest, size and mtime (ms). */
export interface IndexedFacts {
  hash: string;
  size: number;
  mtime_ms: number;
}

/** The recorded facts of each of `paths` that the index holds, by one statement. */
export function indexedFacts(db: Db, paths: readonly string[]): Map<string, IndexedFacts> {
  if (!paths.length) return new Map();
  const rows = allRows<IndexedFacts & { path: string }>(
    db,
    "SELECT f.path, f.hash, f.size, f.mtime_ms FROM json_each(?) AS j JOIN files f ON f.path = j.value",
    JSON.stringify(paths),
  );
  return new Map(rows.map((r) => [r.path, { hash: r.hash, size: Number(r.size), mtime_ms: Number(r.mtime_ms) }]));
}
