/**
 * Named reads of the `symbols` table: by handle, by name, by place, by
 * parent. Every query returns `SymbolRow`.
 */
import type { Db } from "../db.ts";
import { allRows, oneRow, rowsInBatches, symbolColumns, type SymbolRow } from "./rows.ts";
import { symbolKey, symbolKeysMatchSql } from "../symbol_keys.ts";
import { fileJoinSql } from "../schema.ts";
import { NAME_IS_SQL, nameArgs } from "../name_key.ts";

const COLS = symbolColumns();
/** A read by lower-case name (bound by `nameArgs`): through the name index. */
const NAME_IS = NAME_IS_SQL("name_key", "name_lower");

/**
 * The ids of the symbols of files `f` (a query adds the files' condition):
 * read from the files out (CROSS JOIN keeps that order), each file's rows
 * a range of ids. A read of many files' symbols by a path range.
 */
const SYMBOLS_OF_FILES = `SELECT s.id FROM files f CROSS JOIN symbol_rows s ON ${fileJoinSql("symbol", "s")}`;

/** The symbol with this row id. */
export function symbolByRowId(db: Db, id: number): SymbolRow | undefined {
  return oneRow<SymbolRow>(db, `SELECT ${COLS} FROM symbols WHERE id = ?`, id);
}

/** The symbol with this `symbol_id` handle. */
export function symbolById(db: Db, symbolId: string): SymbolRow | undefined {
  const key = symbolKey(symbolId);
  return key
    ? oneRow<SymbolRow>(db, `SELECT ${COLS} FROM symbols WHERE ${symbolKeysMatchSql("symbol_key", 1)}`, key)
    : undefined;
}

/** Symbols by `symbol_id` handle, keyed by it (one read per 500 handles; handles with no row are absent). */
export function symbolMapByIds(db: Db, symbolIds: readonly string[]): Map<string, SymbolRow> {
  const keys = [...new Set(symbolIds)].map(symbolKey).filter((k) => k !== null);
  const rows = rowsInBatches<SymbolRow>(
    db,
    keys,
    (list) =>
      `SELECT ${COLS} FROM symbols WHERE ${symbolKeysMatchSql("symbol_key", list.split(",").length)} ORDER BY id`,
  );
  const out = new Map<string, SymbolRow>();
  // The first row of a handle wins, as a single `symbolById` read would return it.
  for (const r of rows) if (!out.has(r.symbol_id)) out.set(r.symbol_id, r);
  return out;
}

/** Symbols by row id, in no particular order. */
function symbolsByRowIds(db: Db, ids: readonly number[]): SymbolRow[] {
  return rowsInBatches<SymbolRow>(db, ids, (list) => `SELECT ${COLS} FROM symbols WHERE id IN (${list})`);
}

/** Symbols by row id, keyed by it (ids with no row are absent). */
export function symbolMapByRowIds(db: Db, ids: readonly number[]): Map<number, SymbolRow> {
  return new Map(symbolsByRowIds(db, ids).map((r) => [r.id, r]));
}

/**
 * Symbols whose name is `name` case-insensitively, in table order; only in
 * `path` when given; at most `limit` when given.
 */
export function symbolsByName(db: Db, name: string, opts: { path?: string; limit?: number } = {}): SymbolRow[] {
  const lower = name.toLowerCase();
  if (opts.path !== undefined) {
    return allRows<SymbolRow>(
      db,
      `SELECT ${COLS} FROM symbols WHERE ${NAME_IS} AND path = ?`,
      ...nameArgs(lower),
      opts.path,
    );
  }
  // LIMIT -1 is no limit: one statement either way.
  return allRows<SymbolRow>(
    db,
    `SELECT ${COLS} FROM symbols WHERE ${NAME_IS} LIMIT ?`,
    ...nameArgs(lower),
    opts.limit ?? -1,
  );
}

/** True when a symbol (by row id) directly contains one spelled exactly `name`. */
export function hasChildNamed(db: Db, rowId: number, name: string): boolean {
  return oneRow<{ n: number }>(
    db,
    "SELECT 1 AS n FROM symbol_rows WHERE parent_id = ? AND name = ? LIMIT 1",
    rowId,
    name,
  ) !==
    undefined;
}

/** Direct children of a symbol (by row id), in line order; at most `limit` when given. */
export function childrenOf(db: Db, rowId: number, limit?: number): SymbolRow[] {
  return allRows<SymbolRow>(
    db,
    `SELECT ${COLS} FROM symbols WHERE parent_id = ? ORDER BY line_start LIMIT ?`,
    rowId,
    limit ?? -1,
  );
}

/** Symbols of one file in line order (only top-level ones with `topLevelOnly`), at most `limit`. */
export function symbolsInFile(db: Db, path: string, topLevelOnly: boolean, limit: number): SymbolRow[] {
  return allRows<SymbolRow>(
    db,
    `SELECT ${COLS} FROM symbols WHERE path = ? ${topLevelOnly ? "AND parent_id IS NULL" : ""}
     ORDER BY line_start, id LIMIT ?`,
    path,
    limit,
  );
}

/** Top-level symbols of `path`, nearest to `line` first. */
export function topLevelNear(db: Db, path: string, line: number, limit: number): SymbolRow[] {
  return allRows<SymbolRow>(
    db,
    `SELECT ${COLS} FROM symbols WHERE path = ? AND parent_id IS NULL ORDER BY abs(line_start - ?), line_start, id
     LIMIT ?`,
    path,
    line,
    limit,
  );
}

/**
 * Top-level symbols of the other files directly in directory `dir` ("" is
 * the root), public ones first, then by path and line.
 */
export function topLevelInDirectory(db: Db, dir: string, exceptPath: string, limit: number): SymbolRow[] {
  return allRows<SymbolRow>(
    db,
    `SELECT ${COLS} FROM symbols WHERE id IN (${SYMBOLS_OF_FILES} WHERE f.path > ? AND f.path < ? AND f.path != ?
       AND s.parent_id IS NULL AND instr(substr(f.path, ?), '/') = 0)
     ORDER BY (visibility = 'public') DESC, path, line_start, id LIMIT ?`,
    dir ? dir + "/" : "",
    dir ? dir + "/\uffff" : "\uffff",
    exceptPath,
    dir ? dir.length + 2 : 1,
    limit,
  );
}

/** Top-level methods (no enclosing symbol) under path prefix `prefix`, by path and line. */
export function topLevelMethodsUnder(db: Db, prefix: string): SymbolRow[] {
  return allRows<SymbolRow>(
    db,
    `SELECT ${COLS} FROM symbols WHERE id IN (${SYMBOLS_OF_FILES} WHERE f.path >= ? AND f.path < ?
       AND s.parent_id IS NULL) AND kind = 'method' ORDER BY path, line_start, id`,
    prefix,
    prefix + "\uffff",
  );
}

/**
 * Symbols whose `symbol_stable_id` is `stableId` (the same language, kind,
 * qualified name and signature), by path and line. `name` is theirs: a
 * stable id comes from the qualified name, which ends in the name, so the
 * read goes through the name index (stable ids have none).
 */
export function symbolsByStableId(db: Db, stableId: string, name: string): SymbolRow[] {
  return allRows<SymbolRow>(
    db,
    `SELECT ${COLS} FROM symbols WHERE ${NAME_IS} AND stable_id = ? ORDER BY path, line_start`,
    ...nameArgs(name.toLowerCase()),
    stableId,
  );
}
