/**
 * The reads behind search: BM25-ranked rows of the full-text tables
 * (`symbols_fts`, `chunks_fts`, `files_fts`), exact-name and literal
 * lookups, and the chunk vocabulary. MATCH expressions come from the caller,
 * already made safe (`src/query/search/fts_query.ts`); filters are bound
 * parameters, never spliced text.
 */
import type { Db } from "../db.ts";
import { isRefScoped } from "../ref_stores.ts";
import { commitRowsJoin } from "../schema.ts";
import { namesArgs, namesInSql } from "../name_key.ts";
import {
  allRows,
  allRowsOnce,
  chunkColumns,
  type ChunkRow,
  type FileRow,
  likeEscape,
  likePrefix,
  oneRow,
  statementOf,
  type StoredChunkRow,
  symbolColumns,
  type SymbolRow,
} from "./rows.ts";
import { withChunkText } from "./chunk_text.ts";
import { chunkVocabTable, type CommonTerms, readCommonTerms } from "../common_terms.ts";

/** Filters every search source applies, and where a bounded read records that it stopped early. */
export interface SourceFilter {
  language?: string;
  pathPrefix?: string;
  /** Set to `capped: true` by a read that stopped at its row cap (the answer is then partial). */
  bounds?: { capped: boolean };
}

/**
 * Matching rows one BM25 ranking reads at most. BM25 costs one to two
 * microseconds a row (it reads each row's column sizes), so a term found in a
 * million chunks would take seconds; past this cap the best of the first
 * CAPPED_SCAN_ROWS matches (in index order) are returned and the read records
 * that it was capped. The term planner keeps an expression under it
 * whenever the query's two rarest terms allow (its `ROW_BUDGET` is this
 * figure); no query of the retrieval benchmark reaches it.
 */
export const RANK_SCAN_ROWS = 12_000;

/**
 * Matches one BM25 ranking scores when there are more than RANK_SCAN_ROWS
 * (the read is then capped and the answer partial whatever is scored): the
 * first CAPPED_SCAN_ROWS in index order, a third of the work for the same
 * partial promise. A list within RANK_SCAN_ROWS is always scored whole.
 */
export const CAPPED_SCAN_ROWS = 4_000;

/**
 * What the caller knows of how many rows a MATCH expression matches in the
 * whole table (no filter, every commit): at most `atMost`, at least
 * `atLeast`. A ranking then need not step over the matches to learn whether
 * there are more than RANK_SCAN_ROWS.
 */
export interface MatchCount {
  atMost?: number;
  atLeast?: number;
}

/** The part of a file row search results use. */
export type FileHit = Pick<FileRow, "path" | "language" | "line_count">;

/** A row ranked by BM25: `r` is the rank value (more negative is better). */
export type Ranked<T> = T & { r: number };

const SYMBOL_COLS = symbolColumns("s");
const CHUNK_COLS = chunkColumns("c");

function filterSql(alias: string, f: SourceFilter): { sql: string; args: string[] } {
  const parts: string[] = [];
  const args: string[] = [];
  if (f.language) parts.push(`${alias}.language = ?`), args.push(f.language);
  if (f.pathPrefix) parts.push(`${alias}.path LIKE ? ESCAPE '\\'`), args.push(likePrefix(f.pathPrefix));
  return { sql: parts.length ? " AND " + parts.join(" AND ") : "", args };
}

/** Most rows that tie the score at a ranked list's cut and are ordered by place (beyond it, row order decides). */
const TIE_CAP = 2000;

/** A full-text table, the row table it indexes, and the columns a ranked read returns. */
interface RankedSource {
  fts: "chunks_fts" | "symbols_fts" | "files_fts";
  /** BM25 column weights. */
  weights: string;
  table: string;
  alias: string;
  /** Row columns returned, qualified by `alias`. */
  columns: string;
}

/**
 * Rows of an FTS table ranked by BM25, best first (`byPlace`), at most
 * `limit`, each with its rank value as `r`. One pass scores the matches;
 * the best `limit` ids are read from it, and past them only the ids that tie
 * the last kept score (up to TIE_CAP more), so which tied rows survive is
 * decided by their place (path, then line) rather than by row id, which
 * follows the order files were written. Only those rows are loaded, by one
 * statement prepared once. Ranking joins the row table only when a filter
 * needs it.
 */
function rankedRows<T extends { path: string; line_start?: number }>(
  db: Db,
  src: RankedSource,
  match: string,
  f: SourceFilter,
  limit: number,
  known: MatchCount = {},
): Ranked<T>[] {
  const { fts, alias } = src;
  const w = filterSql(alias, f);
  // The row table is joined while ranking when a filter needs it. On one commit of a refs store, whose full
  // text holds other commits' versions too, only the commit's rows may take the ranked places.
  const from = f.language || f.pathPrefix
    ? `${fts} JOIN ${src.table} ${alias} ON ${alias}.id = ${fts}.rowid`
    : isRefScoped(db)
    ? fts + commitRowsJoin(fts)
    : fts;
  // Whether a match lies past the first RANK_SCAN_ROWS decides whether the ranking stops early. A known count
  // says so (more than that many in the whole table counts only without a filter or a commit's restriction; at
  // most that many holds for any part of it); else the matches are stepped over (no count is kept, and nothing
  // past that one row is read), which for common words costs a read of their whole postings.
  const whole = from === fts;
  const past = whole && (known.atLeast ?? 0) > RANK_SCAN_ROWS
    ? true
    : (known.atMost ?? Infinity) <= RANK_SCAN_ROWS
    ? false
    : !!oneRow<{ one: number }>(
      db,
      `SELECT 1 AS one FROM ${from} WHERE ${fts} MATCH ?${w.sql} LIMIT 1 OFFSET ${RANK_SCAN_ROWS}`,
      match,
      ...w.args,
    );
  if (past && f.bounds) f.bounds.capped = true;
  // Every match is scored when there are at most RANK_SCAN_ROWS, else the first CAPPED_SCAN_ROWS; once: the rows
  // that tie the cut are among the best `limit + TIE_CAP`, read in score order until the score passes the cut's.
  const ranking = statementOf(
    db,
    `SELECT id, r FROM (SELECT ${fts}.rowid AS id, bm25(${fts}, ${src.weights}) AS r FROM ${from}
       WHERE ${fts} MATCH ?${w.sql} LIMIT ${past ? CAPPED_SCAN_ROWS : RANK_SCAN_ROWS}) ORDER BY r LIMIT ?`,
  );
  const score = new Map<number, number>();
  let cut = Infinity;
  for (const x of ranking.iterate(match, ...w.args, limit + TIE_CAP) as Iterable<{ id: number; r: number }>) {
    if (x.r > cut) break;
    score.set(Number(x.id), x.r);
    if (score.size === limit) cut = x.r;
  }
  if (!score.size) return [];
  const rows = allRows<T & { _id: number }>(
    db,
    `SELECT ${src.columns}, ${alias}.id AS _id FROM json_each(?) AS j JOIN ${src.table} ${alias} ON ${alias}.id = j.value`,
    JSON.stringify([...score.keys()]),
  );
  const out: Ranked<T>[] = [];
  for (const row of rows) {
    const { _id, ...rest } = row;
    out.push({ ...(rest as unknown as T), r: score.get(Number(_id))! });
  }
  return out.sort(byPlace).slice(0, limit);
}

/** Best BM25 first; equal scores by path, then first line: the same order whatever the row ids. */
function byPlace(a: { r: number; path: string; line_start?: number }, b: typeof a): number {
  return a.r - b.r || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || (a.line_start ?? 0) - (b.line_start ?? 0);
}

const SYMBOLS_RANKED: RankedSource = {
  fts: "symbols_fts",
  weights: "8.0, 3.0, 1.0",
  table: "symbols",
  alias: "s",
  columns: SYMBOL_COLS,
};
const CHUNKS_RANKED: RankedSource = {
  fts: "chunks_fts",
  weights: "1.0, 0.2",
  table: "chunks",
  alias: "c",
  columns: CHUNK_COLS,
};
const FILES_RANKED: RankedSource = {
  fts: "files_fts",
  weights: "4.0, 1.0",
  table: "files",
  alias: "fl",
  columns: "fl.path, fl.language, fl.line_count",
};

/** Symbols ranked by BM25 over name (weighted most), qualified name and detail. */
export function symbolsRanked(db: Db, match: string, f: SourceFilter, limit: number): Ranked<SymbolRow>[] {
  return rankedRows<SymbolRow>(db, SYMBOLS_RANKED, match, f, limit);
}

/** Chunks ranked by BM25 over body and path (`known`: what is known of how many chunks `match` matches). */
export function chunksRanked(
  db: Db,
  match: string,
  f: SourceFilter,
  limit: number,
  known?: MatchCount,
): Ranked<ChunkRow>[] {
  return withChunkText(db, rankedRows<StoredChunkRow>(db, CHUNKS_RANKED, match, f, limit, known));
}

/** Files ranked by BM25 over path words and the names they define. */
export function filesRanked(db: Db, match: string, f: SourceFilter, limit: number): Ranked<FileHit>[] {
  return rankedRows<FileHit>(db, FILES_RANKED, match, f, limit);
}

/**
 * Symbols whose name is one of `names` case-insensitively: definitions
 * before impl blocks of the same name, top-level before nested, larger
 * before smaller. With `qualifier`, only those whose qualified name or path
 * contains it.
 */
export function symbolsNamedAny(
  db: Db,
  names: readonly string[],
  f: SourceFilter,
  limit: number,
  qualifier?: string,
): SymbolRow[] {
  const w = filterSql("s", f);
  const named = namesInSql("s.name_key", "s.name_lower", names.length);
  const byName = namesArgs(names.map((n) => n.toLowerCase()));
  const order =
    "ORDER BY (s.kind = 'impl'), (s.parent_id IS NULL) DESC, s.line_end - s.line_start DESC, s.path, s.line_start LIMIT ?";
  if (qualifier === undefined) {
    return allRowsOnce<SymbolRow>(
      db,
      `SELECT ${SYMBOL_COLS} FROM symbols s WHERE ${named}${w.sql} ${order}`,
      ...byName,
      ...w.args,
      limit,
    );
  }
  const pat = "%" + likeEscape(qualifier) + "%";
  return allRowsOnce<SymbolRow>(
    db,
    `SELECT ${SYMBOL_COLS} FROM symbols s WHERE ${named}
       AND (s.qualified_name LIKE ? ESCAPE '\\' OR s.path LIKE ? ESCAPE '\\')${w.sql} ${order}`,
    ...byName,
    pat,
    pat,
    ...w.args,
    limit,
  );
}

/** Files whose path ends with `suffix` at a `/` (or equals it), the exact path first, then shortest. */
export function filesWithPathSuffix(db: Db, suffix: string, f: SourceFilter, limit: number): FileHit[] {
  const w = filterSql("fl", f);
  return allRows<FileHit>(
    db,
    `SELECT fl.path, fl.language, fl.line_count FROM files fl
     WHERE (fl.path = ? OR fl.path LIKE ? ESCAPE '\\' OR fl.path LIKE ? ESCAPE '\\')${w.sql}
     ORDER BY (fl.path = ?) DESC, length(fl.path), fl.path LIMIT ?`,
    suffix,
    "%/" + likeEscape(suffix),
    "%" + likePrefix(suffix),
    ...w.args,
    suffix,
    limit,
  );
}

/** Chunks matching the FTS `phrase` (unranked), at most `limit`. */
export function chunksMatching(db: Db, phrase: string, f: SourceFilter, limit: number): ChunkRow[] {
  const w = filterSql("c", f);
  return withChunkText(
    db,
    allRows<StoredChunkRow>(
      db,
      `SELECT ${CHUNK_COLS} FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
         WHERE chunks_fts MATCH ?${w.sql} LIMIT ?`,
      phrase,
      ...w.args,
      limit,
    ),
  );
}

/**
 * Chunks whose text contains `needleLower` (the text lower-cased as SQLite's
 * `lower` does: ASCII letters only), in path and line order, at most
 * `limit`: a scan of the chunks that stops at the limit.
 */
export function chunksContaining(db: Db, needleLower: string, f: SourceFilter, limit: number): ChunkRow[] {
  const w = filterSql("c", f);
  const out: ChunkRow[] = [];
  let file: StoredChunkRow[] = [];
  const flush = () => {
    for (const r of withChunkText(db, file)) {
      if (out.length < limit && asciiLower(r.content).includes(needleLower)) out.push(r);
    }
    file = [];
  };
  const rows = statementOf(db, `SELECT ${CHUNK_COLS} FROM chunks c WHERE 1${w.sql} ORDER BY c.path, c.line_start`)
    .iterate(...w.args) as Iterable<StoredChunkRow>;
  for (const r of rows) {
    if (file.length && file[0].path !== r.path) flush();
    if (out.length >= limit) break;
    file.push(r);
  }
  flush();
  return out;
}

/** `text` with ASCII letters lower-cased (what SQLite's `lower` does without ICU). */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** Symbols matching `match` by BM25 with the given column weights (name, qualified name, detail), best first. */
function symbolsByBm25(db: Db, weights: string, match: string, limit: number): SymbolRow[] {
  const from = isRefScoped(db) ? "symbols_fts" + commitRowsJoin("symbols_fts") : "symbols_fts";
  return allRows<SymbolRow>(
    db,
    // Suggestions need no completeness: the best of the first RANK_SCAN_ROWS matches will do.
    `SELECT ${symbolColumns()} FROM (SELECT rid, rank FROM (SELECT symbols_fts.rowid AS rid,
       bm25(symbols_fts, ${weights}) AS rank FROM ${from} WHERE symbols_fts MATCH ? LIMIT ${RANK_SCAN_ROWS})
       ORDER BY rank LIMIT ?) AS hit
       JOIN symbols ON symbols.id = hit.rid ORDER BY hit.rank`,
    match,
    limit,
  );
}

/**
 * Symbols sharing words with a misspelt name: BM25 over name, qualified name and detail (5/2/0.5), among
 * the first RANK_SCAN_ROWS matches.
 */
export function symbolsForWords(db: Db, match: string, limit: number): SymbolRow[] {
  return symbolsByBm25(db, "5.0, 2.0, 0.5", match, limit);
}

/**
 * How many symbols carry the word `word` (one token of letters and digits)
 * in a searched column, counted up to `cap` (then `cap`): bounded however
 * common the word is.
 */
export function symbolsWithWordAtMost(db: Db, word: string, cap: number): number {
  return rowsWithTermAtMost(db, "symbols_fts", word, cap);
}

/** Rows of a full-text table holding the token `term`, counted up to `cap` (then `cap`). */
function rowsWithTermAtMost(db: Db, fts: "chunks_fts" | "symbols_fts", term: string, cap: number): number {
  return Number(
    oneRow<{ n: number }>(
      db,
      `SELECT count(*) AS n FROM (SELECT 1 FROM ${fts} WHERE ${fts} MATCH ? LIMIT ?)`,
      `"${term.replace(/"/g, '""')}"`,
      Math.floor(cap),
    )?.n ?? 0,
  );
}

/** Indexed paths whose path words match `match` (BM25 over the path column only, first RANK_SCAN_ROWS matches), best first. */
export function pathsForWords(db: Db, match: string, limit: number): string[] {
  const from = isRefScoped(db) ? "files_fts" + commitRowsJoin("files_fts") : "files_fts";
  return allRows<Pick<FileRow, "path">>(
    db,
    `SELECT files.path FROM (SELECT rid, rank FROM (SELECT files_fts.rowid AS rid, bm25(files_fts, 1.0, 0.0) AS rank
       FROM ${from} WHERE files_fts MATCH ? LIMIT ${RANK_SCAN_ROWS}) ORDER BY rank LIMIT ?) AS hit
       JOIN files ON files.id = hit.rid ORDER BY hit.rank`,
    `{path} : (${match})`,
    limit,
  ).map((r) => r.path);
}

/** Document frequencies from the chunk index's FTS vocabulary. */
export interface ChunkVocabulary {
  /** Chunks containing `term` (reads the term's whole posting list). */
  df(term: string): number;
  /** Chunks matching `term`, counted up to `cap` (then `cap`): bounded however common the term is. */
  dfAtMost(term: string, cap: number): number;
  /**
   * Sum over terms starting with `prefix` of the chunks containing them; with
   * `stopAbove`, the sum stops growing once past it (fewer posting lists read).
   */
  dfPrefix(prefix: string, stopAbove?: number): number;
  /**
   * Chunks that surely match `prefix*`: the most any one recorded common term
   * starting with it is still in (`recorded - deleted`, see `common_terms.ts`),
   * and with `withCounted`, any term `dfPrefix` already counted for this
   * prefix. 0 when nothing is known. Reads no postings.
   */
  prefixAtLeast(prefix: string, withCounted?: boolean): number;
}

/** A term the tokenizer keeps as it is (ASCII letters and digits, lower case): its vocabulary entry is its match. */
const PLAIN_TOKEN = /^[a-z0-9]+$/;

/**
 * For each recorded common term starting with `prefix`, the chunks it is
 * still in at least (`recorded - deleted`, see `common_terms.ts`); none when
 * nothing is recorded or the prefix is not a plain token (`common` is then
 * not read).
 */
function surelyIn(common: () => CommonTerms | null, prefix: string): number[] {
  const known = PLAIN_TOKEN.test(prefix) ? common() : null;
  if (!known) return [];
  const out: number[] = [];
  for (const [term, recorded] of known.docs) {
    if (term.startsWith(prefix)) out.push(Math.max(0, recorded - known.deleted));
  }
  return out;
}

/** The chunk vocabulary of `db`, or null when this SQLite cannot expose it (no `fts5vocab`). */
export function chunkVocabulary(db: Db): ChunkVocabulary | null {
  const vocab = chunkVocabTable(db);
  if (!vocab) return null;
  let known: CommonTerms | null | undefined;
  const common = () => known === undefined ? (known = readCommonTerms(db)) : known;
  /** Per prefix, the most chunks one vocabulary term with it was counted in (by `dfPrefix`): a lower bound. */
  const counted = new Map<string, number>();
  const df = (term: string) =>
    Number(oneRow<{ doc?: number }>(db, `SELECT doc FROM ${vocab} WHERE term = ?`, term)?.doc ?? 0);
  return {
    df,
    dfAtMost: (term, cap) => {
      const at = Math.floor(cap);
      const k = PLAIN_TOKEN.test(term) ? common() : null;
      // Without recorded counts, the postings are stepped over up to the cap (however common the term is).
      if (!k) return rowsWithTermAtMost(db, "chunks_fts", term, at);
      const recorded = k.docs.get(term);
      if (recorded === undefined || recorded < at) return Math.min(df(term), at);
      // Still in at least `recorded - deleted` chunks (see common_terms.ts).
      if (recorded - k.deleted >= at) return at;
      return rowsWithTermAtMost(db, "chunks_fts", term, at);
    },
    prefixAtLeast: (prefix, withCounted = false) =>
      Math.max(0, withCounted ? counted.get(prefix) ?? 0 : 0, ...surelyIn(common, prefix)),
    dfPrefix: (prefix, stopAbove = Infinity) => {
      if (stopAbove === Infinity) {
        return Number(
          oneRow<{ d: number | null }>(
            db,
            `SELECT sum(doc) AS d FROM ${vocab} WHERE term >= ? AND term < ?`,
            prefix,
            prefix + "\uffff",
          )?.d ?? 0,
        );
      }
      // The recorded terms with the prefix may settle it.
      const sure = surelyIn(common, prefix).reduce((n, d) => n + d, 0);
      if (sure > stopAbove) return sure;
      // Term by term: the vocabulary counts each term's postings as it steps, so stopping early reads less.
      let sum = 0;
      let most = 0;
      for (
        const r of statementOf(db, `SELECT doc FROM ${vocab} WHERE term >= ? AND term < ?`)
          .iterate(prefix, prefix + "\uffff") as Iterable<{ doc: number }>
      ) {
        sum += Number(r.doc);
        most = Math.max(most, Number(r.doc));
        if (sum > stopAbove) break;
      }
      counted.set(prefix, most);
      return sum;
    },
  };
}
