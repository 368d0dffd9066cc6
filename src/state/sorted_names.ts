/**
 * Finding rows of `symbol_names` by their lower-case name without an index
 * of the whole name (since schema 27; the unique index it replaces took 95
 * MiB on the kernel's 2.9 M names). A whole build of the table gives its
 * names ids in name order (SQLite's binary order), so up to the highest id
 * it gave (`sortedUpTo`, kept in `meta`) a name is found by a binary search
 * of the ids, one row read per step. Names a sync adds later take the next
 * ids, out of that order: a partial index holds only them
 * (`symbol_names_late`, over the ids past the sorted ones), and a name
 * deleted leaves a gap the search steps over. The next whole build sorts
 * every name again.
 */
import { type Db, getMeta, setMeta } from "./db.ts";
import { allRows, statementOf } from "./read/rows.ts";

/** Meta key: the highest id a whole build of `symbol_names` gave (names up to it have ids in name order). */
export const NAMES_SORTED = "symbol_names_sorted";

/** `symbol_names` since schema 27: no unique index of the name (see the module comment). */
export const SYMBOL_NAMES_SQL = `CREATE TABLE symbol_names (
  id INTEGER PRIMARY KEY,
  name_lower TEXT NOT NULL,
  len INTEGER NOT NULL,
  clen INTEGER NOT NULL,
  count INTEGER NOT NULL
);`;

/**
 * Records how far the table's ids are in name order, then (re)creates the
 * index of the names past them: `upTo` when the caller knows (a whole build
 * sorts every id), else the ids before the first row whose name is not above
 * the one before it (a table whose ids came in any order).
 */
export function markSortedNames(db: Db, upTo = sortedPrefixEnd(db)): void {
  const end = Math.trunc(upTo);
  setMeta(db, NAMES_SORTED, String(end));
  db.exec(`DROP INDEX IF EXISTS symbol_names_late;
    CREATE INDEX symbol_names_late ON symbol_names(name_lower) WHERE id > ${end};`);
}

/** The highest id up to which the table's names are in name order (0 for an empty table). */
function sortedPrefixEnd(db: Db): number {
  const r = db.prepare(
    `SELECT coalesce((SELECT max(id) FROM symbol_names WHERE id < (SELECT min(id) FROM
       (SELECT id, name_lower <= lag(name_lower) OVER (ORDER BY id) AS back FROM symbol_names) WHERE back)),
       (SELECT max(id) FROM symbol_names), 0) AS upTo`,
  ).get() as { upTo: number };
  return Number(r.upTo);
}

/**
 * SQL adding a name (parameters: the sorted ids' end `sortedUpTo`, then the
 * name, its two lengths and its count) with an id past every id and past
 * the sorted ones, so that the name is in the late index even where the
 * last sorted names were deleted.
 */
export const INSERT_NAME_SQL = `INSERT INTO symbol_names(id, name_lower, len, clen, count)
  SELECT max(coalesce(max(id), 0), ?) + 1, ?, ?, ?, ? FROM symbol_names`;

/** The highest id whose names are in name order (0: none are; every name is then in the late index). */
export function sortedUpTo(db: Db): number {
  return Number(getMeta(db, NAMES_SORTED) ?? "0");
}

/**
 * The smallest sorted id whose name is above `name` (`strict`) or at least
 * `name`; `upTo + 1` when no sorted name is. Comparisons are SQLite's, so
 * the order is the table's.
 */
function firstSortedId(db: Db, upTo: number, name: string, strict: boolean): number {
  const above = strict ? ">" : ">=";
  const probe = statementOf(
    db,
    `SELECT id, name_lower ${above} ? AS p FROM symbol_names WHERE id >= ? AND id <= ? ORDER BY id LIMIT 1`,
  );
  let lo = 1, hi = upTo + 1, found = upTo + 1;
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const r = probe.get(name, mid, upTo) as { id: number; p: number } | undefined;
    if (!r || r.p) {
      hi = mid;
      found = r ? Number(r.id) : upTo + 1;
    } else {
      lo = Number(r.id) + 1;
    }
  }
  return found;
}

/** The row of the name spelled `nameLower`, if the table holds it (`upTo`: the sorted ids' end, if known). */
export function nameRowOf(
  db: Db,
  nameLower: string,
  upTo = sortedUpTo(db),
): { id: number; count: number } | undefined {
  const late = statementOf(db, `SELECT id, count FROM symbol_names WHERE id > ${upTo} AND name_lower = ?`).get(
    nameLower,
  ) as { id: number; count: number } | undefined;
  if (late) return { id: Number(late.id), count: Number(late.count) };
  const id = firstSortedId(db, upTo, nameLower, false);
  if (id > upTo) return undefined;
  const r = statementOf(db, "SELECT id, count FROM symbol_names WHERE id = ? AND name_lower = ?").get(id, nameLower) as
    | { id: number; count: number }
    | undefined;
  return r ? { id: Number(r.id), count: Number(r.count) } : undefined;
}

/** A name of the table with its lengths and definition count. */
export interface NameRow {
  name_lower: string;
  len: number;
  count: number;
}

/**
 * Names above `after` and below `before` (null: no upper bound), in name
 * order (`byName`) or shortest first (`byLength`), at most `limit`, of
 * length over `longerThan` if given: the sorted ids' run and the late
 * names', merged.
 */
export function namesBetween(
  db: Db,
  after: string,
  before: string | null,
  order: "byName" | "byLength",
  limit: number,
  longerThan?: number,
): NameRow[] {
  const upTo = sortedUpTo(db);
  const lo = firstSortedId(db, upTo, after, true);
  const hi = before === null ? upTo + 1 : firstSortedId(db, upTo, before, false);
  const longer = longerThan === undefined ? "" : ` AND len > ${Math.trunc(longerThan)}`;
  const orderSql = order === "byName" ? "name_lower" : "len, name_lower";
  // In the sorted run, id order is name order.
  const rows = allRows<NameRow>(
    db,
    `SELECT name_lower, len, count FROM symbol_names WHERE id >= ? AND id < ?${longer}
       ORDER BY ${order === "byName" ? "id" : orderSql} LIMIT ?`,
    lo,
    hi,
    limit,
  );
  const range = nameRangeSql(after, before);
  const late = allRows<NameRow>(
    db,
    `SELECT name_lower, len, count FROM symbol_names WHERE id > ${upTo} AND ${range.sql}${longer}
       ORDER BY ${orderSql} LIMIT ?`,
    ...range.args,
    limit,
  );
  if (!late.length) return rows;
  const cmp = order === "byName" ? (a: NameRow, b: NameRow) => byCodePoints(a.name_lower, b.name_lower) : byLength;
  return [...rows, ...late].sort(cmp).slice(0, limit);
}

/** SQL (and its parameters) for the names above `after` and below `before` (null: no upper bound). */
export function nameRangeSql(after: string, before: string | null): { sql: string; args: string[] } {
  return before === null
    ? { sql: "name_lower > ?", args: [after] }
    : { sql: "name_lower > ? AND name_lower < ?", args: [after, before] };
}

/** Shortest name first, then name order (SQLite's, as `byCodePoints` gives it). */
export function byLength(a: { len: number; name_lower: string }, b: { len: number; name_lower: string }): number {
  return a.len - b.len || byCodePoints(a.name_lower, b.name_lower);
}

/** Code point order of two strings: the order of their UTF-8 bytes, which SQLite's binary collation compares. */
export function byCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (a code point past U+FFFF) sorts after every other code unit.
    const kx = x >= 0xd800 && x <= 0xdfff ? x + 0x2000 : x >= 0xe000 ? x - 0x800 : x;
    const ky = y >= 0xd800 && y <= 0xdfff ? y + 0x2000 : y >= 0xe000 ? y - 0x800 : y;
    return kx - ky;
  }
  return a.length - b.length;
}
