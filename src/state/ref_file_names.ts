/**
 * Each file's occurrence names (`ref_file_names`, schema 25 on): which
 * `ref_names` ids the file's references have, and on which lines. The
 * references are kept in the order of their name (see REFS_SQL_25 in
 * `schema.ts`), so this list is how a file's own occurrences are found:
 * one range of the table per name, and for some of its lines (a symbol's
 * body) only the names those lines hold. A file with no occurrence has no
 * row. Needs no Deno permission beyond the open database.
 *
 * A list's bytes (varints, see `packed_ids.ts`): the file's distinct name
 * ids (count, then ascending distances), then for each line holding an
 * occurrence, in line order, its distance from the line before, how many
 * names it holds and each name's place in the id list.
 */
import type { StatementSync } from "node:sqlite";
import type { Db } from "./db.ts";
import { VarintReader, VarintWriter } from "./packed_ids.ts";

/** Moves the distinct values of sorted `a` to its front, in order; returns how many there are. */
function distinctInPlace(a: Int32Array | Float64Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) if (i === 0 || a[i] !== a[i - 1]) a[d++] = a[i];
  return d;
}

/** Places a file may have names at most (a line's names are kept as places in the file's id list). */
const PLACES = 2 ** 24;

/**
 * The bytes of the list of a file's occurrences, the `i`th on line
 * `lines[i]` with name `nameIds[i]` (any order; repeats count once).
 */
export function packFileNames(lines: ArrayLike<number>, nameIds: ArrayLike<number>): Uint8Array {
  // Typed arrays sorted by value: a kernel's 10.6 M occurrences pack in about a second.
  const n = nameIds.length;
  const all = Int32Array.from(nameIds).sort();
  const d = distinctInPlace(all);
  const ids = all.subarray(0, d);
  if (d > PLACES) throw new Error(`a file with ${d} distinct occurrence names`);
  // Each occurrence as one number, its line then its name's place in `ids`: sorted, equal ones are repeats.
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const id = nameIds[i];
    let lo = 0, hi = d - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ids[mid] < id) lo = mid + 1;
      else hi = mid;
    }
    keys[i] = lines[i] * PLACES + lo;
  }
  keys.sort();
  const m = distinctInPlace(keys);
  const w = new VarintWriter(4 * d + 3 * m + 16);
  w.putIds(ids);
  let last = 0;
  for (let i = 0; i < m;) {
    const line = Math.floor(keys[i] / PLACES);
    const end = line * PLACES + PLACES;
    let j = i;
    while (j < m && keys[j] < end) j++;
    w.put(line - last);
    w.put(j - i);
    for (let k = i; k < j; k++) w.put(keys[k] - line * PLACES);
    last = line;
    i = j;
  }
  return w.bytes();
}

/** The name ids of list `bytes` with an occurrence on a line in `from`..`to` (all lines: every one), ascending. */
export function namesInList(bytes: Uint8Array, from = -Infinity, to = Infinity): number[] {
  const r = new VarintReader(bytes);
  const ids = r.nextIds();
  if (from === -Infinity && to === Infinity) return ids;
  const hit = new Set<number>();
  for (let line = 0; !r.done;) {
    line += r.next();
    const n = r.next();
    for (let k = 0; k < n; k++) {
      const at = r.next();
      if (line >= from && line <= to) hit.add(ids[at]);
    }
    if (line > to) break;
  }
  return [...hit].sort((a, b) => a - b);
}

/** The ids of the names file `fileId`'s references have on lines `from`..`to` (default: all), ascending. */
export function namesOfFile(db: Db, fileId: number, from?: number, to?: number): number[] {
  const row = db.prepare("SELECT ids FROM ref_file_names WHERE file_id = ?").get(fileId) as
    | { ids: Uint8Array }
    | undefined;
  return row ? namesInList(row.ids, from, to) : [];
}

/** Writes and removes the name lists of the files an index writer writes. */
export class RefFileNamesWriter {
  private readonly stmts: Record<"ids" | "set" | "remove", StatementSync>;

  constructor(db: Db) {
    this.stmts = {
      ids: db.prepare("SELECT ids FROM ref_file_names WHERE file_id = ?"),
      set: db.prepare("INSERT OR REPLACE INTO ref_file_names(file_id, ids) VALUES (?, ?)"),
      remove: db.prepare("DELETE FROM ref_file_names WHERE file_id = ?"),
    };
  }

  /** Records the names of file `fileId`'s references, the `i`th on `lines[i]` named `nameIds[i]` (none: no row). */
  set(fileId: number, lines: ArrayLike<number>, nameIds: ArrayLike<number>): void {
    if (lines.length) this.stmts.set.run(fileId, packFileNames(lines, nameIds));
    else this.stmts.remove.run(fileId);
  }

  /** The name ids recorded for `fileId`, forgetting them. */
  take(fileId: number): number[] {
    const row = this.stmts.ids.get(fileId) as { ids: Uint8Array } | undefined;
    if (!row) return [];
    this.stmts.remove.run(fileId);
    return namesInList(row.ids);
  }
}

/**
 * Lists every file's names from the references in `table` (a table with the
 * columns of `refs`): the lists a store written before schema 25 lacks.
 */
export function fillRefFileNames(db: Db, table: string): void {
  const w = new RefFileNamesWriter(db);
  let file = -1;
  let lines: number[] = [];
  let names: number[] = [];
  const rows = db.prepare(`SELECT DISTINCT file_id, line, name_id FROM ${table} ORDER BY file_id`)
    .iterate() as Iterable<{ file_id: number; line: number; name_id: number }>;
  for (const r of rows) {
    if (Number(r.file_id) !== file) {
      if (lines.length) w.set(file, lines, names);
      file = Number(r.file_id);
      lines = [];
      names = [];
    }
    lines.push(Number(r.line));
    names.push(Number(r.name_id));
  }
  if (lines.length) w.set(file, lines, names);
}
