/**
 * Definitions by lower-case name, as ranking needs them: the few columns
 * `locate_symbol` ranks on, read through the name index (`name_key.ts`).
 * Full rows are read only for the results shown. Needs no Deno permission
 * beyond the already open database.
 */
import type { Db } from "../db.ts";
import { allRows } from "./rows.ts";
import { nameArgs, ROW_NAME_IS_SQL } from "../name_key.ts";
import { fileJoinSql, qualifiedNameSql } from "../schema.ts";
import { SYMBOL_KIND_WORDS, VISIBILITY_WORDS, wordSql } from "../coded_words.ts";

/** What ranking needs of one definition; full rows are read only for the results shown. */
export interface NameEntry {
  id: number;
  name: string;
  qualified_name: string;
  kind: string;
  language: string;
  /** No enclosing symbol. */
  top: boolean;
  visibility: string | null;
  path: string;
  line_start: number;
}

/**
 * The entries of one lower-case name (bound by `nameArgs`), oldest row
 * first, up to a count. The `symbols` view's columns spelled over the row
 * table and its file, not read through the view: run once per name (a
 * prefix's completions are up to 1,000 names), the same statement through
 * the view took twice as long on the kernel.
 */
const ENTRY_SQL = `SELECT s.id AS id, s.name AS name, ${qualifiedNameSql("s")} AS qualified_name,
    ${wordSql(SYMBOL_KIND_WORDS, "s.kind")} AS kind, f.language AS language, s.parent_id IS NULL AS top,
    ${wordSql(VISIBILITY_WORDS, "s.visibility")} AS visibility, f.path AS path, s.line_start AS line_start
    FROM symbol_rows s JOIN files f ON ${fileJoinSql("symbol", "s")}
    WHERE ${ROW_NAME_IS_SQL("s")} ORDER BY s.id LIMIT ?`;

function toEntries(rows: Record<string, unknown>[]): NameEntry[] {
  return rows.map((r) => ({
    id: Number(r.id),
    name: r.name as string,
    qualified_name: r.qualified_name as string,
    kind: r.kind as string,
    language: r.language as string,
    top: Number(r.top) === 1,
    visibility: r.visibility as string | null,
    path: r.path as string,
    line_start: Number(r.line_start),
  }));
}

/** Up to `max` definitions whose lower-case name is `nameLower`, oldest row first. */
export function definitionsNamed(db: Db, nameLower: string, max: number): NameEntry[] {
  return toEntries(allRows<Record<string, unknown>>(db, ENTRY_SQL, ...nameArgs(nameLower), max));
}
