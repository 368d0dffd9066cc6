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

/** One occurrence's line and name id. */
export interface NamedLine {
  line: number;
  nameId: number;
}

/** The bytes of the list of `occurrences` (any order; repeats count once). */
export function packFileNames(occurrences: Iterable<NamedLine>): Uint8Array {
  const byLine = new Map<number, Set<number>>();
  for (const o of occurrences) {
    let names = byLine.get(o.line);
    if (!names) byLine.set(o.line, names = new Set());
    names.add(o.nameId);
  }
  const ids = [...new Set([...byLine.values()].flatMap((s) => [...s]))].sort((a, b) => a - b);
  const place = new Map(ids.map((id, i) => [id, i]));
  const w = new VarintWriter();
  w.putIds(ids);
  let last = 0;
  for (const line of [...byLine.keys()].sort((a, b) => a - b)) {
    const names = byLine.get(line)!;
    w.put(line - last);
    w.put(names.size);
    for (const id of names) w.put(place.get(id)!);
    last = line;
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

  /** Records the names of file `fileId`'s references (none: no row). */
  set(fileId: number, occurrences: NamedLine[]): void {
    if (occurrences.length) this.stmts.set.run(fileId, packFileNames(occurrences));
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
  let held: NamedLine[] = [];
  const rows = db.prepare(`SELECT DISTINCT file_id, line, name_id FROM ${table} ORDER BY file_id`)
    .iterate() as Iterable<{ file_id: number; line: number; name_id: number }>;
  for (const r of rows) {
    if (Number(r.file_id) !== file) {
      if (held.length) w.set(file, held);
      file = Number(r.file_id);
      held = [];
    }
    held.push({ line: Number(r.line), nameId: Number(r.name_id) });
  }
  if (held.length) w.set(file, held);
}
