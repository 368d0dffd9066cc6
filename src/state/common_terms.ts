/**
 * The chunk terms common enough to be costly to count, with their counts
 * when the full-text table was last loaded whole, so that the search planner
 * can tell that a term is common without reading its postings.
 *
 * Rows of `chunks_fts` are only ever added, deleted with their chunk rows
 * (`IndexWriter.deleteRows`, which adds the chunk rows it deletes to the
 * store's deletion count), or deleted all at once with every other row
 * (which empties this table too). So a term recorded with `docs` chunks is
 * still in at least `docs - deleted` of them, however many syncs ran since:
 * that lower bound is exact knowledge, never an estimate.
 */
import { type Db, getMeta, setMeta } from "./db.ts";
import { oneRow, statementOf } from "./read/rows.ts";

/** Schema 24's table of common terms. */
export const COMMON_TERMS_SQL =
  "CREATE TABLE common_terms (term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;";

/** The `meta` key counting the chunk rows deleted since the common terms were recorded. */
const DELETED_KEY = "common_terms_deleted";

/**
 * Share of the chunks a term must be in to be recorded: what the planner
 * leaves out as too common (6 % of the chunks) is far above it, and every
 * term below it is cheap to count from the vocabulary.
 */
const RECORDED_SHARE = 0.01;

/** The statement adding deleted chunk rows to the deletion count (nothing when no terms were ever recorded). */
export const NOTE_CHUNKS_DELETED_SQL =
  `UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = '${DELETED_KEY}'`;

/**
 * The name of this connection's `fts5vocab` view of the chunk index's terms
 * (created on first use), or null when this SQLite has no `fts5vocab`.
 */
export function chunkVocabTable(db: Db): string | null {
  try {
    db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.cruxe_chunks_vocab USING fts5vocab(main, chunks_fts, row)");
    return "temp.cruxe_chunks_vocab";
  } catch {
    return null;
  }
}

/**
 * Records every term of `chunks_fts` found in at least RECORDED_SHARE of the
 * chunks, with its count, in place of what was recorded, and sets the
 * deletion count to zero. Reads the whole vocabulary (on the kernel 2.4 s
 * with its pages cached): call it where the full-text table was loaded
 * whole. Without `fts5vocab`, records that nothing is known.
 */
export function recordCommonTerms(db: Db): void {
  db.exec("DELETE FROM common_terms");
  const vocab = chunkVocabTable(db);
  if (!vocab) {
    db.prepare("DELETE FROM meta WHERE key = ?").run(DELETED_KEY);
    return;
  }
  const chunks = Number(oneRow<{ n: number }>(db, "SELECT count(*) AS n FROM chunk_rows")?.n ?? 0);
  db.prepare(`INSERT INTO common_terms(term, docs) SELECT term, doc FROM ${vocab} WHERE doc >= ?`)
    .run(Math.max(1, Math.ceil(chunks * RECORDED_SHARE)));
  setMeta(db, DELETED_KEY, "0");
}

/** What a store knows of its common terms: counts when recorded, and chunk rows deleted since. */
export interface CommonTerms {
  /** Recorded terms and the chunks each was in when recorded. */
  docs: Map<string, number>;
  /** Chunk rows deleted since they were recorded. */
  deleted: number;
}

/** The store's recorded common terms, or null when none were ever recorded (an older store, or no `fts5vocab`). */
export function readCommonTerms(db: Db): CommonTerms | null {
  let deleted: string | null;
  try {
    deleted = getMeta(db, DELETED_KEY);
  } catch {
    return null;
  }
  if (deleted === null) return null;
  const rows = statementOf(db, "SELECT term, docs FROM common_terms").all() as { term: string; docs: number }[];
  return { docs: new Map(rows.map((r) => [r.term, Number(r.docs)])), deleted: Number(deleted) };
}
