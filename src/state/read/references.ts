/**
 * Read side of the reference index: identifier occurrences stored by interned
 * name id, file id (`files.id`) and position, with the enclosing
 * symbol's row id. Rows of one name come back in (path, line, column) order
 * when the name has at most `PATH_ORDER_MAX` occurrences, so two builds of one
 * commit (which may number their files differently) answer alike; a name with
 * more comes back in (file id, line, column) order, the order the table
 * keeps them in (see REFS_SQL_25 in `../schema.ts`). Keyset paging
 * continues from either. Reads only.
 */
import type { Db } from "../db.ts";
import type { ReferenceKind } from "../../core/types.ts";
import { storedReferenceKind } from "../call_edges.ts";
import { REF_SOURCE_SQL } from "../schema.ts";
import { FOLD_KEY_SQL, foldArgs, FOLDED_NAME_IS_SQL, NAME_IS_SQL, nameArgs, nameKey } from "../name_key.ts";
import { allRows, oneRow } from "./rows.ts";
import { namesOfFile } from "../ref_file_names.ts";

/** One stored occurrence joined with its file. */
export interface ReferenceRow {
  file_id: number;
  line: number;
  col: number;
  kind: ReferenceKind;
  /** null: a bare name; "": reached through an expression; else the identifier before the dot. */
  qualifier: string | null;
  source_id: number | null;
  path: string;
  language: string;
  /** What the file's declarations say the qualifier (or a bare callee) is; null when nothing. */
  hint: string | null;
}

/** Where a page of references stops: the last occurrence returned (its file by id and by path). */
export interface ReferencePosition {
  file_id: number;
  path: string;
  line: number;
  col: number;
}

/** Occurrences of one name up to which its rows are read in path order (read whole and sorted: a few ms). */
export const PATH_ORDER_MAX = 5000;

interface RawRow {
  file_id: number;
  line: number;
  col: number;
  kind: number;
  qual_id: number | null;
  qualifier: string | null;
  source_id: number | null;
  path: string;
  language: string;
  hint: string | null;
}

function toRow(r: RawRow): ReferenceRow {
  return {
    file_id: r.file_id,
    line: r.line,
    col: r.col,
    kind: storedReferenceKind(r.kind),
    qualifier: r.qual_id === null ? null : r.qual_id === 0 ? "" : r.qualifier ?? "",
    source_id: r.source_id,
    path: r.path,
    language: r.language,
    hint: r.hint ?? null,
  };
}

const SELECT_ROWS = `SELECT r.file_id, r.line, r.col, r.kind, r.qual_id, q.name AS qualifier, ${
  REF_SOURCE_SQL("r", "f")
} AS source_id,
    f.path, f.language, h.name AS hint
  FROM refs r JOIN files f ON f.id = r.file_id LEFT JOIN ref_names q ON q.id = r.qual_id
  LEFT JOIN ref_names h ON h.id = r.hint_id`;

/** SQL reading the interned id of a reference name spelled exactly (parameters: `foldArgs(name)`). */
export const REF_NAME_ID_SQL = `SELECT id FROM ref_names WHERE ${FOLDED_NAME_IS_SQL("name")}`;

/** The interned id of `name` (exact spelling), or null when no occurrence ever had it. */
export function referenceNameId(db: Db, name: string): number | null {
  const r = oneRow<{ id: number }>(db, REF_NAME_ID_SQL, ...foldArgs(name));
  return r ? Number(r.id) : null;
}

/**
 * The interned ids of every spelling that is `nameLower` once lower-cased
 * (as JavaScript lower-cases): through the index of their key, then the
 * names.
 */
export function referenceNameIdsAnyCase(db: Db, nameLower: string): number[] {
  return allRows<{ id: number; name: string }>(
    db,
    `SELECT id, name FROM ref_names WHERE ${FOLD_KEY_SQL("name")} = ?`,
    nameKey(nameLower),
  ).filter((r) => r.name.toLowerCase() === nameLower).map((r) => Number(r.id));
}

/**
 * Up to `limit` occurrences of a name after `after` (exclusive), in the
 * name's order (see the module comment): `count` is the name's
 * `referenceCount`, which picks the order.
 */
export function referencesAfter(
  db: Db,
  nameId: number,
  after: ReferencePosition | null,
  limit: number,
  count: number,
): ReferenceRow[] {
  if (count <= PATH_ORDER_MAX) {
    const all = pathOrdered(db, nameId);
    const from = after ? all.findIndex((r) => byPath(r, after) > 0) : 0;
    return from < 0 ? [] : all.slice(from, from + limit);
  }
  const a = after ?? { file_id: -1, line: 0, col: 0 };
  const rows = db.prepare(
    `${SELECT_ROWS} WHERE r.name_id = ? AND (r.file_id, r.line, r.col) > (?, ?, ?)
       ORDER BY r.file_id, r.line, r.col LIMIT ?`,
  ).all(nameId, a.file_id, a.line, a.col, limit) as unknown as RawRow[];
  return rows.map(toRow);
}

/** The last name read whole per connection, with the data version it was read at (a page reads it once). */
const lastRead = new WeakMap<Db, { nameId: number; version: number; rows: ReferenceRow[] }>();

/** Every occurrence of a name, in (path, line, column) order; read once per name while the store is unchanged. */
function pathOrdered(db: Db, nameId: number): ReferenceRow[] {
  const version = Number((db.prepare("PRAGMA data_version").get() as { data_version: number }).data_version);
  const hit = lastRead.get(db);
  if (hit && hit.nameId === nameId && hit.version === version) return hit.rows;
  const rows = (db.prepare(`${SELECT_ROWS} WHERE r.name_id = ?`).all(nameId) as unknown as RawRow[]).map(toRow)
    .sort(byPath);
  lastRead.set(db, { nameId, version, rows });
  return rows;
}

/** (path, line, column) order. */
function byPath(
  a: { path: string; line: number; col: number },
  b: { path: string; line: number; col: number },
): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || a.col - b.col;
}

/** How many occurrences a name has in the whole index (every kind, before any resolution). */
export function referenceCount(db: Db, nameId: number): number {
  const r = db.prepare("SELECT count(*) AS n FROM refs WHERE name_id = ?").get(nameId) as { n: number };
  return Number(r.n);
}

/**
 * Occurrences inside lines `from`..`to` of one file (a symbol's body), in
 * source order: one range of the references for each name those lines
 * hold (see `ref_file_names.ts`).
 */
export function referencesInLines(db: Db, path: string, from: number, to: number): (ReferenceRow & { name: string })[] {
  const file = db.prepare("SELECT id FROM files WHERE path = ?").get(path) as { id: number } | undefined;
  if (!file) return [];
  const names = namesOfFile(db, Number(file.id), from, to);
  if (!names.length) return [];
  const rows = db.prepare(
    `SELECT r.file_id, r.line, r.col, r.kind, r.qual_id, q.name AS qualifier, ${REF_SOURCE_SQL("r", "f")} AS source_id,
        f.path, f.language,
        n.name AS name, h.name AS hint
       FROM json_each(?1) AS j JOIN refs r ON r.name_id = j.value AND r.file_id = ?2 AND r.line BETWEEN ?3 AND ?4
       JOIN files f ON f.id = r.file_id JOIN ref_names n ON n.id = r.name_id
       LEFT JOIN ref_names q ON q.id = r.qual_id LEFT JOIN ref_names h ON h.id = r.hint_id
      ORDER BY r.line, r.col`,
  ).all(JSON.stringify(names), Number(file.id), from, to) as unknown as (RawRow & { name: string })[];
  return rows.map((r) => ({ ...toRow(r), name: r.name }));
}

/** How many definitions are spelled exactly `name` (for follow-up suggestions). */
export function definitionCount(db: Db, name: string): number {
  const r = db.prepare(`SELECT count(*) AS n FROM symbols WHERE ${NAME_IS_SQL("name_key", "name_lower")} AND name = ?`)
    .get(...nameArgs(name.toLowerCase()), name) as { n: number };
  return Number(r.n);
}

/** How many symbols a symbol directly contains. */
export function memberCount(db: Db, symbolRowId: number): number {
  const r = db.prepare("SELECT count(*) AS n FROM symbols WHERE parent_id = ?").get(symbolRowId) as { n: number };
  return Number(r.n);
}
