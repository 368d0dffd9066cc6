/**
 * Named reads of the `edges` table: what a symbol extends and calls, who
 * extends or calls a name, what a file imports, and the references to a
 * name. Edges name their target by text; resolving a target to a symbol is
 * the query layer's job. Most call edges are kept as references (see
 * `../call_edges.ts`): the reads of calls read both.
 */
import type { Db } from "../db.ts";
import { allRows, allRowsOnce, type EdgeRow, oneRow, placeholders } from "./rows.ts";
import { qualifiedNameSql, REF_SOURCE_SQL, symbolHandlesSql } from "../schema.ts";
import { isRefScoped } from "../ref_stores.ts";
import { CALL_EDGE_KIND } from "../call_edges.ts";
import { referenceNameId, referenceNameIdsAnyCase } from "./references.ts";
import { namesOfFile } from "../ref_file_names.ts";

/** A type edge: `extends` or `implements`. */
export type HeritageKind = "extends" | "implements";

/** The types a symbol (by row id) extends or implements, in source order. */
export function heritageOf(db: Db, rowId: number): (Pick<EdgeRow, "target" | "line"> & { kind: HeritageKind })[] {
  return allRows(
    db,
    "SELECT kind, target, line FROM edges WHERE source_id = ? AND kind IN ('extends', 'implements') ORDER BY id",
    rowId,
  );
}

/**
 * Symbols that extend or implement a type spelled exactly `name`, by path
 * and line, at most `limit`.
 */
export function subtypesOf(
  db: Db,
  name: string,
  limit: number,
): (Pick<EdgeRow, "path" | "line"> & { kind: HeritageKind; source_id: number })[] {
  return allRows(
    db,
    `SELECT kind, source_id, path, line FROM edges WHERE target_lower = ? AND target = ?
       AND kind IN ('extends', 'implements') AND source_id IS NOT NULL ORDER BY path, line LIMIT ?`,
    name.toLowerCase(),
    name,
    limit,
  );
}

/**
 * Names called from the given symbols (row ids), each once at its first
 * line, in line order: the call edges still stored as edges and those kept
 * as references (see `call_edges.ts`), read within each symbol's lines.
 */
export function calleesOf(db: Db, rowIds: readonly number[], limit: number): Pick<EdgeRow, "target" | "line">[] {
  const bodies = rowIds.flatMap((id) => {
    const s = oneRow<{ f: number; lo: number; hi: number }>(
      db,
      "SELECT file_id AS f, line_start AS lo, line_start + line_span AS hi FROM symbol_rows WHERE id = ?",
      id,
    );
    const names = s ? namesOfFile(db, Number(s.f), s.lo, s.hi) : [];
    return names.length ? [{ ...s, src: id, names }] : [];
  });
  return allRowsOnce(
    db,
    `SELECT target, min(line) AS line FROM (
       SELECT target, line FROM edges WHERE kind = 'calls' AND source_id IN (${placeholders(rowIds.length)})
       UNION ALL
       SELECT n.name AS target, r.line AS line FROM json_each(?) AS b, json_each(b.value, '$.names') AS j
         JOIN refs r ON r.name_id = j.value AND r.file_id = b.value ->> 'f'
           AND r.line BETWEEN b.value ->> 'lo' AND b.value ->> 'hi'
         JOIN files f ON f.id = r.file_id JOIN ref_names n ON n.id = r.name_id
        WHERE r.kind = ${CALL_EDGE_KIND} AND ${REF_SOURCE_SQL("r", "f")} = b.value ->> 'src'
     ) GROUP BY target ORDER BY line LIMIT ?`,
    ...rowIds,
    JSON.stringify(bodies),
    limit,
  );
}

/** Call sites of a name spelled exactly `name` inside a symbol, `preferPath`'s first, then by path and line. */
export function callersOf(
  db: Db,
  name: string,
  preferPath: string,
  limit: number,
): (Pick<EdgeRow, "path" | "line"> & { source_id: number })[] {
  return allRows(
    db,
    `SELECT path, line, source_id FROM (
       SELECT e.path AS path, e.line AS line, e.source_id AS source_id FROM edges e
        WHERE e.target_lower = ? AND e.target = ? AND e.kind = 'calls' AND e.source_id IS NOT NULL
       UNION ALL
       SELECT f.path, r.line, ${REF_SOURCE_SQL("r", "f")} FROM refs r JOIN files f ON f.id = r.file_id
        WHERE r.name_id = ? AND r.kind = ${CALL_EDGE_KIND}
          AND r.source_id IS NOT NULL
     ) ORDER BY (path = ?) DESC, path, line, source_id LIMIT ?`,
    name.toLowerCase(),
    name,
    referenceNameId(db, name),
    preferPath,
    limit,
  );
}

/** Modules `path` imports, each once at its first line, in line order. */
export function importsOf(db: Db, path: string, limit: number): Pick<EdgeRow, "target" | "line">[] {
  return allRows(
    db,
    "SELECT target, min(line) AS line FROM edges WHERE path = ? AND kind = 'imports' GROUP BY target ORDER BY line LIMIT ?",
    path,
    limit,
  );
}

/** Every distinct module name `path` imports. */
export function importTargetsOf(db: Db, path: string): string[] {
  return allRows<Pick<EdgeRow, "target">>(
    db,
    "SELECT DISTINCT target FROM edges WHERE path = ? AND kind = 'imports'",
    path,
  ).map((r) => r.target);
}

/** First and last import line of `path` (both null when it imports nothing). */
export function importLineRange(db: Db, path: string): { lo: number | null; hi: number | null } {
  return oneRow<{ lo: number | null; hi: number | null }>(
    db,
    "SELECT min(line) AS lo, max(line) AS hi FROM edges WHERE path = ? AND kind = 'imports'",
    path,
  ) ?? { lo: null, hi: null };
}

/**
 * True when any file of `language` has edges or references: the indexer
 * extracts relations for it (a file whose call edges are all kept as
 * references has no edge rows).
 */
export function languageHasEdges(db: Db, language: string): boolean {
  // A file with edges has their id range; one with references, its list of names.
  return !!oneRow(
    db,
    `SELECT 1 FROM files WHERE language = ?
       AND (edge_lo IS NOT NULL OR EXISTS (SELECT 1 FROM ref_file_names n WHERE n.file_id = files.id)) LIMIT 1`,
    language,
  );
}

/**
 * How many uses of a name (case-insensitive, lower-cased `nameLower`) there
 * are, in `language` files if given: edges of every kind, and the call
 * edges kept as references.
 */
export function referenceCount(db: Db, nameLower: string, language: string | undefined): number {
  const ids = JSON.stringify(referenceNameIdsAnyCase(db, nameLower));
  if (language) {
    return count(
      db,
      `SELECT count(*) AS n FROM edges JOIN files ON files.path = edges.path
       WHERE edges.target_lower = ? AND files.language = ?`,
      nameLower,
      language,
    ) + count(
      db,
      `SELECT count(*) AS n FROM json_each(?) AS j JOIN refs r ON r.name_id = j.value
         JOIN files f ON f.id = r.file_id WHERE r.kind = ${CALL_EDGE_KIND} AND f.language = ?`,
      ids,
      language,
    );
  }
  // A refs store's `refs` view keeps the commit's own files; in the working tree's index it is the table.
  const standing = count(
    db,
    `SELECT count(*) AS n FROM json_each(?) AS j JOIN refs r ON r.name_id = j.value WHERE r.kind = ${CALL_EDGE_KIND}`,
    ids,
  );
  // A refs store's view keeps the commit's own files: counted through it.
  if (isRefScoped(db)) {
    return standing + count(db, "SELECT count(*) AS n FROM edges WHERE target_lower = ?", nameLower);
  }
  // Every edge row of the working tree's index lies in its file's range, so the view's count is the count of the
  // target index's entries, read from the index alone rather than from each use's row and file (on the kernel, a
  // name used 13,830 times took 454 ms through the view on pages not read before, 2 ms from the index).
  return standing + count(
    db,
    `SELECT count(*) AS n FROM edge_rows
     WHERE target_id IN (SELECT id FROM edge_targets WHERE coalesce(name_lower, lower(name)) = ?)`,
    nameLower,
  );
}

/** The `n` of a one-row count statement. */
function count(db: Db, sql: string, ...args: string[]): number {
  return Number(oneRow<{ n: number }>(db, sql, ...args)?.n ?? 0);
}

/**
 * The enclosing symbol's handles, read from `symbol_rows` itself: SQLite
 * cannot flatten the `symbols` view (a join) into the right side of a LEFT
 * JOIN and would build the whole view first.
 */
const ENCLOSING_COLS = `${symbolHandlesSql("s", "f")}, ${qualifiedNameSql("s")} AS qualified_name`;

/** A use of a name with its file's language and the symbol it sits in (null outside any symbol). */
export type ReferenceRow = Pick<EdgeRow, "path" | "kind" | "line" | "target"> & {
  language: string;
  symbol_id: string | null;
  stable_id: string | null;
  qualified_name: string | null;
};

/**
 * Uses of `name` (case-insensitive), exact spellings first, then by path and
 * line, in `language` files if given, at most `limit`: edges of every kind,
 * and the call edges kept as references.
 */
export function referencesOf(db: Db, name: string, language: string | undefined, limit: number): ReferenceRow[] {
  const lower = name.toLowerCase();
  const ids = JSON.stringify(referenceNameIdsAnyCase(db, lower));
  const inLanguage = (f: string) => language ? ` AND ${f}.language = ?` : "";
  const languageArg = language ? [language] : [];
  // The page is chosen from the uses alone, then joined: a name used 100,000 times is sorted, not joined, in full.
  return allRows<ReferenceRow>(
    db,
    `SELECT e.path, e.kind, e.line, e.target, f.language, ${ENCLOSING_COLS}
     FROM (SELECT e.path AS path, e.kind AS kind, e.line AS line, e.target AS target, e.source_id AS source_id,
             (e.target = ?) AS exact
           FROM edges e${language ? " JOIN files fe ON fe.path = e.path" : ""} WHERE e.target_lower = ?${
      inLanguage("fe")
    }
           UNION ALL
           SELECT fr.path, 'calls', r.line, n.name, ${REF_SOURCE_SQL("r", "fr")}, (n.name = ?)
           FROM json_each(?) AS j JOIN refs r ON r.name_id = j.value JOIN files fr ON fr.id = r.file_id
             JOIN ref_names n ON n.id = r.name_id
           WHERE r.kind = ${CALL_EDGE_KIND}${inLanguage("fr")}
           ORDER BY exact DESC, path, line LIMIT ?) e
     JOIN files f ON f.path = e.path LEFT JOIN symbol_rows s ON s.id = e.source_id
     ORDER BY e.exact DESC, e.path, e.line`,
    name,
    lower,
    ...languageArg,
    name,
    ids,
    ...languageArg,
    limit,
  );
}
