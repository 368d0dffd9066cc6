/**
 * One row type per table of a project index, typed once: every read query
 * (`src/state/read/`) returns these, and query code never spells a column
 * list or casts a row itself. A schema change edits this file and the
 * queries beside it.
 */
import type { SQLInputValue, StatementSync } from "node:sqlite";
import type { Db } from "../db.ts";

/** A row of `symbols` (every column but `name_lower`, which only lookups use). */
export interface SymbolRow {
  id: number;
  symbol_id: string;
  stable_id: string;
  path: string;
  line_start: number;
  line_end: number;
  kind: string;
  name: string;
  qualified_name: string;
  signature: string;
  language: string;
  parent_id: number | null;
  visibility: string | null;
  doc: string | null;
}

/** A row of `chunks`: a window of a file's lines, tied to the symbol it belongs to (if any). */
export interface ChunkRow {
  id: number;
  path: string;
  line_start: number;
  line_end: number;
  symbol_row: number | null;
  language: string;
  content: string;
}

/** A row of `chunks` as stored: `content` is null when the file is the source (see `chunk_text.ts`). */
export type StoredChunkRow = Omit<ChunkRow, "content"> & { content: string | null };

/** A row of `files` as queries read it (hash, size and mtime are the writer's business). */
export interface FileRow {
  path: string;
  language: string;
  line_count: number;
  symbol_count: number;
  parse_error: string | null;
}

/** A row of `edges`: a use of a name (`target`) at `line` of `path`, from symbol `source_id` when known. */
export interface EdgeRow {
  id: number;
  path: string;
  /** `calls`, `imports`, `extends`, `implements`, ... */
  kind: string;
  source_id: number | null;
  target: string;
  line: number;
}

/** Columns of a SymbolRow, qualified by `alias` when the query joins tables. */
export function symbolColumns(alias = ""): string {
  const p = alias ? alias + "." : "";
  return ["id", "symbol_id", "stable_id", "path", "line_start", "line_end", "kind", "name", "qualified_name"]
    .concat(["signature", "language", "parent_id", "visibility", "doc"])
    .map((c) => p + c).join(", ");
}

/** Columns of a ChunkRow, qualified by `alias`. */
export function chunkColumns(alias = ""): string {
  const p = alias ? alias + "." : "";
  return ["id", "path", "line_start", "line_end", "symbol_row", "language", "content"].map((c) => p + c).join(", ");
}

/** Columns of a FileRow, qualified by `alias`. */
export function fileColumns(alias = ""): string {
  const p = alias ? alias + "." : "";
  return ["path", "language", "line_count", "symbol_count", "parse_error"].map((c) => p + c).join(", ");
}

const statements = new WeakMap<Db, Map<string, StatementSync>>();

/**
 * The prepared statement for `sql` on `db`, prepared once per connection
 * (pass only SQL whose text is fixed, or bounded in variety: the cache keeps
 * every distinct text for the connection's life).
 */
export function statementOf(db: Db, sql: string): StatementSync {
  let m = statements.get(db);
  if (!m) statements.set(db, m = new Map());
  let s = m.get(sql);
  if (!s) m.set(sql, s = db.prepare(sql));
  return s;
}

/** Every row of `sql` as `T` (the one place a row is given its type). */
export function allRows<T>(db: Db, sql: string, ...args: SQLInputValue[]): T[] {
  return statementOf(db, sql).all(...args) as unknown as T[];
}

/** Every row of `sql` as `T`, prepared for this call only (for SQL built per call, e.g. an `IN` list). */
export function allRowsOnce<T>(db: Db, sql: string, ...args: SQLInputValue[]): T[] {
  return db.prepare(sql).all(...args) as unknown as T[];
}

/** The first row of `sql` as `T`, if any. */
export function oneRow<T>(db: Db, sql: string, ...args: SQLInputValue[]): T | undefined {
  return statementOf(db, sql).get(...args) as unknown as T | undefined;
}

/** Values bound per `IN (…)` statement of `rowsInBatches` (well under SQLite's variable limit). */
export const IN_BATCH = 500;

/**
 * Every row of `sql(list)` over `values`, read in batches of IN_BATCH:
 * `sql` is given the batch's placeholder list (`?,?,…`) to put inside its
 * `IN (…)`, and the batch's values are bound to it. Rows come batch by batch.
 */
export function rowsInBatches<T>(db: Db, values: readonly SQLInputValue[], sql: (list: string) => string): T[] {
  const out: T[] = [];
  for (let i = 0; i < values.length; i += IN_BATCH) {
    const part = values.slice(i, i + IN_BATCH);
    for (const row of allRowsOnce<T>(db, sql(placeholders(part.length)), ...part)) out.push(row);
  }
  return out;
}

/** `?, ?, ...` for `n` parameters. */
export function placeholders(n: number): string {
  return Array(n).fill("?").join(",");
}

/** A `LIKE` pattern matching `prefix` literally (escaping `%`, `_` and `\`), for `ESCAPE '\'`. */
export function likePrefix(prefix: string): string {
  return likeEscape(prefix) + "%";
}

/** `text` with `LIKE` wildcards escaped (for `ESCAPE '\'`). */
export function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => "\\" + c);
}
