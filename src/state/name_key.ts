/**
 * The key the name index (`symbols_name`, schema 21 on) holds for a
 * symbol's lower-case name: a 32-bit hash (four bytes where the name took
 * its length). Names that share a key are told apart by the name itself,
 * which every read by name also matches (`NAME_IS_SQL`).
 */
import type { DatabaseSync } from "node:sqlite";

/**
 * The name key of lower-case name `lower`: FNV-1a over its UTF-16 code units,
 * as a signed 32-bit number; a lone surrogate counts as U+FFFD, as SQLite
 * stores it (so a name asked for matches the stored one as before).
 */
export function nameKey(lower: string): number {
  const text = lower.isWellFormed() ? lower : lower.toWellFormed();
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** SQL giving the name key of the lower-case name `expr` (`cruxe_name_key`, see `registerNameKeyFunction`). */
export const NAME_KEY_SQL = (expr: string): string => `cruxe_name_key(${expr})`;

/**
 * SQL giving the name key of the text `expr` lower-cased as JavaScript
 * lower-cases it (`cruxe_fold_key`, see `registerNameKeyFunction`): the key
 * `nameKey(text.toLowerCase())`, for names stored in their own case.
 */
export const FOLD_KEY_SQL = (expr: string): string => `cruxe_fold_key(${expr})`;

/** The parameters of `FOLDED_NAME_IS_SQL` for the name `name`, spelled exactly. */
export function foldArgs(name: string): [number, string] {
  return [nameKey(name.toLowerCase()), name];
}

/**
 * SQL matching a row's name key column `keyCol` and lower-case name column
 * `col` against two parameters, bound by `nameArgs`: the key through the
 * index, then the name.
 */
export const NAME_IS_SQL = (keyCol: string, col: string): string => `${keyCol} = ? AND ${col} = ?`;

/**
 * SQL matching the name column `col`, stored in its own case, against two
 * parameters bound by `foldArgs`: the key of its lower case through its
 * index (`FOLD_KEY_SQL`), then the exact name.
 */
export const FOLDED_NAME_IS_SQL = (col: string): string => NAME_IS_SQL(FOLD_KEY_SQL(col), col);

/**
 * SQL giving the lower-case name of the symbol row aliased `s` (none: the
 * table's own columns): a row keeps it only where SQLite's `lower` (A-Z
 * only) would not give it.
 */
export const ROW_NAME_LOWER_SQL = (s = ""): string => {
  const p = s ? `${s}.` : "";
  return `coalesce(${p}name_lower, lower(${p}name))`;
};

/** `NAME_IS_SQL` over the symbol row aliased `s`: its name key through the name index, then its lower-case name. */
export const ROW_NAME_IS_SQL = (s: string): string =>
  NAME_IS_SQL(NAME_KEY_SQL(ROW_NAME_LOWER_SQL(s)), ROW_NAME_LOWER_SQL(s));

/** The parameters of `NAME_IS_SQL` for the lower-case name `lower` (a number equals the stored integer key). */
export function nameArgs(lower: string): [number, string] {
  return [nameKey(lower), lower];
}

/**
 * SQL matching a row's name key column `keyCol` and lower-case name column
 * `col` against any of `count` names, bound by `namesArgs`: the keys through
 * the index, then the names.
 */
export function namesInSql(keyCol: string, col: string, count: number): string {
  const qs = Array(count).fill("?").join(",");
  return `${keyCol} IN (${qs}) AND ${col} IN (${qs})`;
}

/** The parameters of `namesInSql` for the lower-case names `lowers`. */
export function namesArgs(lowers: readonly string[]): (number | string)[] {
  return [...lowers.map(nameKey), ...lowers];
}

/**
 * Registers `cruxe_name_key(text)` and `cruxe_fold_key(text)` (NULL for
 * NULL) on connection `db`: the indexes of symbol names and of reference
 * names are built with them, so every connection that writes symbols or
 * references, or reads them by name, needs them (`openDb` registers them).
 */
export function registerNameKeyFunction(db: DatabaseSync): void {
  // A BigInt result is stored as an integer (four bytes); a JS number would be a REAL (eight).
  db.function("cruxe_name_key", { deterministic: true }, (t) => t === null ? null : BigInt(nameKey(String(t))));
  db.function(
    "cruxe_fold_key",
    { deterministic: true },
    (t) => t === null ? null : BigInt(nameKey(String(t).toLowerCase())),
  );
}
