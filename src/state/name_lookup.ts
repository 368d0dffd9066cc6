/**
 * The on-disk name lookup of a project index: one row per distinct
 * lower-case symbol name (`symbol_names`: name, its letters-and-digits
 * length, how many definitions carry it) and the ids of the names holding
 * each trigram of their letters and digits (`name_grams.ts`, ids are
 * `symbol_names.id`). Exact and case-insensitive lookups read the symbol
 * rows through their name index (`read/name_entries.ts`), prefix lookups
 * read a range of `symbol_names` (found without an index of the names: see
 * `sorted_names.ts`), fuzzy lookups gather candidates from the trigram
 * lists. Every read is bounded (a row or scan cap), so memory stays
 * flat in the number of symbols and the first query costs what the
 * hundredth does.
 *
 * Names defined only in files above the full-text limit (generated tables
 * of thousands of names) are left out: exact and case-insensitive lookups
 * still find them through `symbols`, prefix and fuzzy lookups do not.
 *
 * The writer keeps the tables in step inside its publishing transaction:
 * whole after a bulk load, name by name after a sync. Needs no Deno
 * permission beyond the already open database.
 */
import { type Db, getMeta, setMeta } from "./db.ts";
import { allRows, allRowsOnce, oneRow } from "./read/rows.ts";
import { nameArgs, ROW_NAME_IS_SQL, ROW_NAME_LOWER_SQL } from "./name_key.ts";
import { IdList, mostShared, tallyIds } from "./gram_tally.ts";
import { buildNameGrams, firstIdsOf, GramEdits } from "./name_grams.ts";
import {
  byLength,
  INSERT_NAME_SQL,
  markSortedNames,
  nameRangeSql,
  nameRowOf,
  namesBetween,
  sortedUpTo,
} from "./sorted_names.ts";

/** Schema of the name tables as schema 3 made them (later migrations replace the trigram table). */
export const NAME_TABLES_SQL = `
  CREATE TABLE symbol_names (
    id INTEGER PRIMARY KEY,
    name_lower TEXT NOT NULL UNIQUE,
    len INTEGER NOT NULL,
    clen INTEGER NOT NULL,
    count INTEGER NOT NULL
  );
  CREATE INDEX symbol_names_clen ON symbol_names(clen);
  CREATE INDEX symbol_names_len ON symbol_names(len, name_lower);
  CREATE VIRTUAL TABLE symbol_names_fts USING fts5(grams, content='', contentless_delete=1, tokenize='trigram');`;

/** Meta key set once the name tables hold every name of the store (absent: rebuild them whole). */
const NAMES_BUILT = "symbol_names_built";

/** The letters and digits of a lower-case name: what trigrams and short-name comparisons see. */
export function compactName(nameLower: string): string {
  return nameLower.replace(/[^a-z0-9]+/g, "");
}

/** Text indexed for a name: its compact form between word-boundary markers. */
export function gramText(nameLower: string): string {
  return "^" + compactName(nameLower) + "$";
}

/** The smallest string above every string starting with `prefix` (binary order), or null when none is. */
function prefixEnd(prefix: string): string | null {
  const cps = Array.from(prefix);
  while (cps.length) {
    const last = cps.pop()!.codePointAt(0)!;
    // Skip the surrogate range: SQLite stores UTF-8, where no code point lives there.
    const next = last === 0xd7ff ? 0xe000 : last + 1;
    if (next <= 0x10ffff) return cps.join("") + String.fromCodePoint(next);
  }
  return null;
}

/** Distinct names counted at most for one prefix; past that, the count is a lower bound. */
export const PREFIX_SCAN_NAMES = 10_000;

/**
 * Names at most this long are in the `(len, name_lower)` index (since schema 22, a partial index): a prefix
 * shared by more than PREFIX_SCAN_NAMES names finds its shortest completions there: a third of the kernel's
 * names, in a quarter of the old index's pages.
 */
export const INDEXED_NAME_LEN = 16;
/** Names at most this compact (letters and digits) are in the `(clen, name_lower)` index (a partial index). */
export const INDEXED_COMPACT_LEN = 8;

/** The name-table indexes since schema 22: each holds only the names its reads can ask for. */
export const NAME_LENGTH_INDEXES_SQL = `
  CREATE INDEX symbol_names_clen ON symbol_names(clen, name_lower) WHERE clen <= ${INDEXED_COMPACT_LEN};
  CREATE INDEX symbol_names_len ON symbol_names(len, name_lower) WHERE len <= ${INDEXED_NAME_LEN};`;

/** Names longer than `prefixLower` that start with it, and how many definitions they have. */
export interface PrefixNames {
  /** Up to `max` names, shortest first, then in code-unit order. */
  names: string[];
  /** How many definitions carry each of `names`, in the same order. */
  counts: number[];
  /** Definitions carrying the counted names. */
  total: number;
  /** True when more than PREFIX_SCAN_NAMES names start with the prefix (then `total` is a lower bound). */
  capped: boolean;
}

/**
 * Names that start with `prefixLower` (the name itself excluded): the
 * shortest `max` of them, and the number of definitions of the first
 * PREFIX_SCAN_NAMES in name order. When the prefix's names were counted
 * whole, they are sorted in one read of at most PREFIX_SCAN_NAMES rows; past
 * that, shortest-first is read length by length through the partial
 * `(len, name_lower)` index (one seek per length up to INDEXED_NAME_LEN),
 * and only a prefix with too few completions that short reads its longer
 * ones from the whole range.
 */
export function namesWithPrefix(db: Db, prefixLower: string, max: number): PrefixNames {
  const end = prefixEnd(prefixLower);
  // The first names in name order, one more than are counted: whether there are more is then known.
  const first = namesBetween(db, prefixLower, end, "byName", PREFIX_SCAN_NAMES + 1);
  const capped = first.length > PREFIX_SCAN_NAMES;
  const names: string[] = [];
  const counts: number[] = [];
  const take = (rows: { name_lower: string; count: number }[]) => {
    for (const r of rows) names.push(r.name_lower), counts.push(Number(r.count));
  };
  if (first.length > 0 && max > 0 && !capped) {
    // Every completion was just read: sort those few rows (SQLite's order of the names).
    take([...first].sort(byLength).slice(0, max));
  } else if (max > 0 && capped) {
    const { sql: range, args } = nameRangeSql(prefixLower, end);
    // The literal bound lets the planner use the partial index (it cannot see through a bound parameter).
    const atLength = `SELECT name_lower, count FROM symbol_names WHERE len = ? AND len <= ${INDEXED_NAME_LEN}
       AND ${range} ORDER BY name_lower LIMIT ?`;
    for (let len = prefixLower.length + 1; len <= INDEXED_NAME_LEN && names.length < max; len++) {
      take(allRows(db, atLength, len, ...args, max - names.length));
    }
    if (names.length < max) {
      // Too few short completions: the longer ones, from the prefix's whole range (rare, and only for long prefixes).
      take(namesBetween(db, prefixLower, end, "byLength", max - names.length, INDEXED_NAME_LEN));
    }
  }
  const total = first.reduce((sum, r) => sum + Number(r.count), 0);
  return { names, counts, total, capped };
}

/** Row ids read at most per trigram when gathering fuzzy candidates. */
const GRAM_SCAN_ROWS = 20_000;

/** Set by a bounded read when it stopped at its cap (the answer may then miss something). */
export interface ScanBounds {
  capped: boolean;
}

/**
 * Names sharing the most of `grams` (three-character strings over
 * `[a-z0-9^$]`, `^`/`$` marking a name's start and end), most shared first
 * (then oldest row), at most `limit`. Each trigram contributes at most
 * `perGram` names (default GRAM_SCAN_ROWS); `bounds.capped` is set when one
 * had more.
 */
export function namesSharingGrams(
  db: Db,
  grams: readonly string[],
  limit: number,
  bounds?: ScanBounds,
  perGram = GRAM_SCAN_ROWS,
): string[] {
  const safe = [...new Set(grams)].filter((g) => /^[a-z0-9^$]{3}$/.test(g)).slice(0, 255);
  if (!safe.length || limit <= 0) return [];
  // Each trigram's first ids, decoded and counted in typed arrays: no row object per id and no SQL sort
  // of all of them (each costs more than reading the ids).
  // One id more than the share: a trigram with more than `perGram` names is known to be capped.
  const cap = Math.floor(perGram);
  const top = Number(oneRow<{ m: number | null }>(db, "SELECT max(id) AS m FROM symbol_names")?.m ?? 0);
  const hits = new Uint8Array(top + 1);
  const touched = new IdList();
  for (const g of safe) {
    if (tallyIds(firstIdsOf(db, g, cap + 1), cap, top, hits, touched) && bounds) bounds.capped = true;
  }
  const chosen = mostShared(hits, touched, safe.length, limit);
  if (!chosen.length) return [];
  const rank = new Map(chosen.map((id, i) => [id, i]));
  const rows = allRowsOnce<{ id: number; name_lower: string }>(
    db,
    `SELECT id, name_lower FROM symbol_names WHERE id IN (${chosen.join(",")})`,
  );
  return rows.sort((a, b) => rank.get(Number(a.id))! - rank.get(Number(b.id))!).map((r) => r.name_lower);
}

/**
 * Names whose letters-and-digits length is within `[minLen, maxLen]`, at
 * most `cap` of them, shortest first; `bounds.capped` is set when there were
 * more. `maxLen` is at most INDEXED_COMPACT_LEN (longer names are not in the
 * index this reads; asking for them throws).
 */
export function namesOfCompactLength(
  db: Db,
  minLen: number,
  maxLen: number,
  cap: number,
  bounds?: ScanBounds,
): string[] {
  // One string of names (read from the covering `(clen, name_lower)` index), not one row object per name:
  // this reads up to hundreds of thousands of names and the objects would cost most of the time.
  if (maxLen > INDEXED_COMPACT_LEN) throw new Error(`compact lengths above ${INDEXED_COMPACT_LEN} are not indexed`);
  const joined = oneRow<{ s: string | null }>(
    db,
    `SELECT group_concat(name_lower, char(10)) AS s FROM
       (SELECT name_lower FROM symbol_names WHERE clen BETWEEN ? AND ? AND clen <= ${INDEXED_COMPACT_LEN}
        ORDER BY clen, name_lower LIMIT ?)`,
    minLen,
    maxLen,
    cap + 1,
  )?.s;
  const names = joined ? joined.split("\n") : [];
  if (names.length > cap && bounds) bounds.capped = true;
  return names.slice(0, cap);
}

/** The number of distinct lower-case symbol names (0 for a store without the name tables). */
export function distinctNameCount(db: Db): number {
  try {
    return Number(oneRow<{ n: number }>(db, "SELECT count(*) AS n FROM symbol_names")?.n ?? 0);
  } catch {
    return 0;
  }
}

/** Past this many changed names, the writer rebuilds the name tables whole instead of name by name. */
const INCREMENTAL_NAMES = 50_000;

/**
 * Keeps the name tables of one index in step with its `symbols`, used by the
 * writer inside its transaction: note the names a change touches, then
 * `publish` before committing.
 */
export class NameTableWriter {
  private dirty = new Set<string>();
  private whole = false;
  /** Trigram list edits of the names refreshed, written together at publish. */
  private readonly grams = new GramEdits();
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      namesOfPath: db.prepare("SELECT DISTINCT name_lower FROM symbols WHERE path = ?"),
      countOf: db.prepare(
        `SELECT count(*) AS n FROM symbol_rows s JOIN files f ON f.id = s.file_id
         WHERE ${ROW_NAME_IS_SQL("s")}
           AND f.full_text = 1`,
      ),
      insName: db.prepare(INSERT_NAME_SQL),
      setCount: db.prepare("UPDATE symbol_names SET count = ? WHERE id = ?"),
      delName: db.prepare("DELETE FROM symbol_names WHERE id = ?"),
    };
  }

  /** Records the names of `path`'s symbols before they are deleted. */
  noteFileRemoved(path: string): void {
    if (this.whole) return;
    for (const r of this.stmts.namesOfPath.iterate(path) as Iterable<{ name_lower: string }>) this.note(r.name_lower);
  }

  /** Records a name (any case) whose definitions changed. */
  note(name: string): void {
    if (this.whole) return; // a bulk load's millions of names are not lower-cased one by one
    this.dirty.add(name.toLowerCase());
    if (this.dirty.size > INCREMENTAL_NAMES) this.rebuildWhole();
  }

  /** Asks for a whole rebuild at publish (a bulk load, or too many changes to follow one by one). */
  rebuildWhole(): void {
    this.whole = true;
    this.dirty.clear();
  }

  /** Brings the name tables up to date with `symbols` (inside the caller's transaction). */
  publish(): void {
    if (this.whole || getMeta(this.db, NAMES_BUILT) !== "1") this.buildAll();
    else {
      const upTo = sortedUpTo(this.db);
      for (const n of this.dirty) this.refresh(n, upTo);
      this.grams.apply(this.db);
    }
    this.dirty.clear();
    this.whole = false;
  }

  /** Brings one name's row in step (`upTo`: the sorted ids' end, see `sorted_names.ts`). */
  private refresh(nameLower: string, upTo: number): void {
    const s = this.stmts;
    const n = Number((s.countOf.get(...nameArgs(nameLower)) as { n: number }).n);
    const row = nameRowOf(this.db, nameLower, upTo);
    if (!row) {
      if (n === 0) return;
      const id = Number(
        s.insName.run(upTo, nameLower, nameLower.length, compactName(nameLower).length, n)
          .lastInsertRowid,
      );
      this.grams.add(id, gramText(nameLower));
    } else if (n === 0) {
      this.grams.remove(Number(row.id), gramText(nameLower));
      s.delName.run(row.id);
    } else if (Number(row.count) !== n) {
      s.setCount.run(n, row.id);
    }
  }

  private buildAll(): void {
    buildNameTables(this.db);
  }
}

/**
 * Rebuilds the name tables whole from the symbol rows of files with full
 * text: names take ids in name order (see `sorted_names.ts`), then their
 * trigram lists are built.
 */
export function buildNameTables(db: Db): void {
  // SQL functions keep the whole build inside SQLite: one statement per table, no row crosses into JS.
  db.function("cruxe_name_len", { deterministic: true }, (n) => String(n).length);
  db.function("cruxe_name_clen", { deterministic: true }, (n) => compactName(String(n)).length);
  // A name of lower-case letters, digits and underscores has both lengths in SQL (as in JS: one unit per
  // character); only others call back into JS (on the kernel, 2.9 M names: 3 s of the build).
  db.exec(`DROP INDEX IF EXISTS symbol_names_late;
    DELETE FROM symbol_names;
    INSERT INTO symbol_names(name_lower, len, clen, count)
      SELECT nl, iif(plain, length(nl), cruxe_name_len(nl)), iif(plain, length(replace(nl, '_', '')), cruxe_name_clen(nl)), n
      FROM (SELECT nl, NOT nl GLOB '*[^a-z0-9_]*' AS plain, count(*) AS n
        FROM (SELECT ${ROW_NAME_LOWER_SQL("s")} AS nl FROM symbol_rows s JOIN files f ON f.id = s.file_id
          WHERE f.full_text = 1) GROUP BY nl ORDER BY nl);`);
  // The names went in in name order, from id 1: every id is sorted.
  markSortedNames(db, Number(oneRow<{ m: number | null }>(db, "SELECT max(id) AS m FROM symbol_names")?.m ?? 0));
  buildNameGrams(db, gramText);
  setMeta(db, NAMES_BUILT, "1");
}
