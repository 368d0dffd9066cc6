/**
 * Candidate sources: each asks one table of the index for its best rows,
 * ranked by FTS5 BM25 (or by exact lookup / literal match). Sources never
 * see raw user text: they take MATCH expressions built by `fts_query.ts`.
 */
import type { Db } from "../../state/db.ts";

/** Filters every source applies. */
export interface SourceFilter {
  language?: string;
  pathPrefix?: string;
}

/** A symbol row as the sources return it. */
export interface SymbolHit {
  id: number;
  path: string;
  name: string;
  qualified_name: string;
  kind: string;
  language: string;
  line_start: number;
  line_end: number;
  signature: string;
  symbol_id: string;
  stable_id: string;
  parent_id: number | null;
}

/** A chunk row as the sources return it. */
export interface ChunkHit {
  id: number;
  path: string;
  line_start: number;
  line_end: number;
  symbol_row: number | null;
  language: string;
  content: string;
  /** BM25 rank value (more negative is better), when the source ranked by BM25. */
  r?: number;
  /** Lines that matched a literal search (set by `literalSource` only). */
  match?: [number, number];
}

/** A file row as the sources return it. */
export interface FileHit {
  path: string;
  language: string;
  line_count: number;
}

/** One ranked list from one source. */
export interface SourceList<T> {
  source: string;
  hits: T[];
}

const SYMBOL_COLS =
  "s.id, s.path, s.name, s.qualified_name, s.kind, s.language, s.line_start, s.line_end, s.signature, s.symbol_id, " +
  "s.stable_id, s.parent_id";
const CHUNK_COLS = "c.id, c.path, c.line_start, c.line_end, c.symbol_row, c.language, c.content";

/** `LIKE` pattern for a path prefix (escaping `%`, `_` and `\`). */
function likePrefix(prefix: string): string {
  return prefix.replace(/[\\%_]/g, (c) => "\\" + c) + "%";
}

function filterSql(alias: string, f: SourceFilter): { sql: string; args: string[] } {
  const parts: string[] = [];
  const args: string[] = [];
  if (f.language) parts.push(`${alias}.language = ?`), args.push(f.language);
  if (f.pathPrefix) parts.push(`${alias}.path LIKE ? ESCAPE '\\'`), args.push(likePrefix(f.pathPrefix));
  return { sql: parts.length ? " AND " + parts.join(" AND ") : "", args };
}

/**
 * Rows of an FTS table ranked by BM25, best first, as `{id, r}`. Ranking
 * selects ids and scores only (joining the row tables only when a filter
 * needs them), so sorting many matches never drags their content along.
 */
function rankIds(
  db: Db,
  fts: string,
  weights: string,
  join: { table: string; alias: string; key: string } | null,
  match: string,
  f: SourceFilter,
  limit: number,
): { id: number; r: number }[] {
  if (!join || (!f.language && !f.pathPrefix)) {
    return db.prepare(
      `SELECT rowid AS id, bm25(${fts}, ${weights}) AS r FROM ${fts} WHERE ${fts} MATCH ? ORDER BY r LIMIT ?`,
    ).all(match, limit) as unknown as { id: number; r: number }[];
  }
  const w = filterSql(join.alias, f);
  return db.prepare(
    `SELECT ${fts}.rowid AS id, bm25(${fts}, ${weights}) AS r
     FROM ${fts} JOIN ${join.table} ${join.alias} ON ${join.alias}.${join.key} = ${fts}.rowid
     WHERE ${fts} MATCH ?${w.sql} ORDER BY r LIMIT ?`,
  ).all(match, ...w.args, limit) as unknown as { id: number; r: number }[];
}

/** Loads rows by id in the order of `ranked`, attaching each row's BM25 value as `r`. */
function loadRanked<T>(db: Db, sql: string, ranked: { id: number; r: number }[]): (T & { r: number })[] {
  if (!ranked.length) return [];
  const rows = db.prepare(`${sql} IN (${ranked.map(() => "?").join(",")})`).all(
    ...ranked.map((x) => x.id),
  ) as unknown as (T & { _id: number })[];
  const byId = new Map(rows.map((row) => [Number(row._id), row]));
  const out: (T & { r: number })[] = [];
  for (const x of ranked) {
    const row = byId.get(x.id);
    if (row) out.push({ ...row, r: x.r });
  }
  return out;
}

/** Symbols ranked by BM25 over name (weighted most), qualified name and detail. */
export function symbolSource(db: Db, match: string, f: SourceFilter, limit: number): SymbolHit[] {
  const ranked = rankIds(
    db,
    "symbols_fts",
    "8.0, 3.0, 1.0",
    { table: "symbols", alias: "s", key: "id" },
    match,
    f,
    limit,
  );
  return loadRanked<SymbolHit>(db, `SELECT ${SYMBOL_COLS}, s.id AS _id FROM symbols s WHERE s.id`, ranked);
}

/**
 * Symbols whose name equals one of `names` case-insensitively, top-level
 * and larger definitions first. With a `qualifier` (`json` of
 * `json.Unmarshal`), definitions whose qualified name contains it come first.
 */
export function exactNameSource(
  db: Db,
  names: string[],
  f: SourceFilter,
  limit: number,
  qualifier?: string,
): SymbolHit[] {
  if (!names.length) return [];
  const w = filterSql("s", f);
  const qs = names.map(() => "?").join(", ");
  const lower = names.map((n) => n.toLowerCase());
  // Definitions before impl blocks of the same name, top-level before nested, larger before smaller.
  const order = "ORDER BY (s.kind = 'impl'), (s.parent_id IS NULL) DESC, s.line_end - s.line_start DESC LIMIT ?";
  const plain = () =>
    db.prepare(`SELECT ${SYMBOL_COLS} FROM symbols s WHERE s.name_lower IN (${qs})${w.sql} ${order}`)
      .all(...lower, ...w.args, limit) as unknown as SymbolHit[];
  if (!qualifier) return plain();
  const pat = "%" + qualifier.replace(/[\\%_]/g, (c) => "\\" + c) + "%";
  const qualified = db.prepare(
    `SELECT ${SYMBOL_COLS} FROM symbols s WHERE s.name_lower IN (${qs})
       AND (s.qualified_name LIKE ? ESCAPE '\\' OR s.path LIKE ? ESCAPE '\\')${w.sql} ${order}`,
  ).all(...lower, pat, pat, ...w.args, limit) as unknown as SymbolHit[];
  const seen = new Set(qualified.map((r) => r.id));
  return qualified.concat(plain().filter((r) => !seen.has(r.id))).slice(0, limit);
}

/** Chunks ranked by BM25 over body and path. */
export function chunkSource(db: Db, match: string, f: SourceFilter, limit: number): ChunkHit[] {
  const ranked = rankIds(db, "chunks_fts", "1.0, 0.2", { table: "chunks", alias: "c", key: "id" }, match, f, limit);
  return loadRanked<ChunkHit>(db, `SELECT ${CHUNK_COLS}, c.id AS _id FROM chunks c WHERE c.id`, ranked);
}

/** Files ranked by BM25 over path words and the names they define. */
export function fileSource(db: Db, match: string, f: SourceFilter, limit: number): FileHit[] {
  const ranked = rankIds(db, "files_fts", "4.0, 1.0", { table: "files", alias: "fl", key: "rowid" }, match, f, limit);
  return loadRanked<FileHit>(
    db,
    "SELECT fl.path, fl.language, fl.line_count, fl.rowid AS _id FROM files fl WHERE fl.rowid",
    ranked,
  );
}

/**
 * Files ranked by the BM25 evidence of their chunks: the best few chunk
 * scores of each file summed with decaying weights, so a file that answers
 * the query in several places beats one lucky chunk.
 */
export function filesFromChunks(hits: ChunkHit[], perFile = 3): FileHit[] {
  const byPath = new Map<string, { hit: ChunkHit; scores: number[] }>();
  for (const h of hits) {
    const e = byPath.get(h.path) ?? { hit: h, scores: [] };
    if (e.scores.length < perFile) e.scores.push(-(h.r ?? 0));
    byPath.set(h.path, e);
  }
  const ranked = [...byPath.entries()].map(([path, e]) => ({
    path,
    language: e.hit.language,
    line_count: 0,
    total: e.scores.reduce((acc, s, i) => acc + s / (1 << i), 0),
  }));
  ranked.sort((a, b) => b.total - a.total || a.path.localeCompare(b.path));
  return ranked.map(({ path, language, line_count }) => ({ path, language, line_count }));
}

/** Files whose path ends with `suffix` (or equals it), shortest path first. */
export function pathSuffixSource(db: Db, suffix: string, f: SourceFilter, limit: number): FileHit[] {
  const w = filterSql("fl", f);
  const s = suffix.replace(/^\.?\//, "");
  return db.prepare(
    `SELECT fl.path, fl.language, fl.line_count FROM files fl
     WHERE (fl.path = ? OR fl.path LIKE ? ESCAPE '\\' OR fl.path LIKE ? ESCAPE '\\')${w.sql}
     ORDER BY (fl.path = ?) DESC, length(fl.path) LIMIT ?`,
  ).all(s, "%/" + likePrefix(s).slice(0, -1), "%" + likePrefix(s), ...w.args, s, limit) as unknown as FileHit[];
}

/**
 * Chunks containing `literal` verbatim (case-insensitive). The FTS phrase of
 * the literal's words narrows the rows first; `instr` then checks the exact
 * text, so the scan stays bounded by `scanLimit` rows.
 */
export function literalSource(
  db: Db,
  literal: string,
  phrase: string | null,
  f: SourceFilter,
  limit: number,
  scanLimit = 2000,
): ChunkHit[] {
  const w = filterSql("c", f);
  const needle = literal.toLowerCase();
  if (phrase) {
    const rows = db.prepare(
      `SELECT ${CHUNK_COLS} FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
       WHERE chunks_fts MATCH ?${w.sql} LIMIT ?`,
    ).all(phrase, ...w.args, scanLimit) as unknown as ChunkHit[];
    return withMatch(rows.filter((r) => r.content.toLowerCase().includes(needle)).slice(0, limit), needle);
  }
  // No word characters at all (e.g. `"=>"`): a bounded scan of the chunk text.
  return withMatch(
    db.prepare(
      `SELECT ${CHUNK_COLS} FROM chunks c WHERE instr(lower(c.content), ?) > 0${w.sql} LIMIT ?`,
    ).all(needle, ...w.args, limit) as unknown as ChunkHit[],
    needle,
  );
}

/** Sets each hit's `match` to the lines where `needle` (lower case) occurs first. */
function withMatch(hits: ChunkHit[], needle: string): ChunkHit[] {
  for (const h of hits) {
    const at = h.content.toLowerCase().indexOf(needle);
    if (at < 0) continue;
    const first = h.line_start + (h.content.slice(0, at).match(/\n/g)?.length ?? 0);
    h.match = [first, first + (needle.match(/\n/g)?.length ?? 0)];
  }
  return hits;
}

/** Symbols by row ids. */
export function symbolsByIds(db: Db, ids: number[]): Map<number, SymbolHit> {
  const out = new Map<number, SymbolHit>();
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    const rows = db.prepare(`SELECT ${SYMBOL_COLS} FROM symbols s WHERE s.id IN (${part.map(() => "?").join(",")})`)
      .all(...part) as unknown as SymbolHit[];
    for (const r of rows) out.set(r.id, r);
  }
  return out;
}

/** The chunk of `path` covering `line`, preferring the one that belongs to `symbolRow`. */
export function chunkAt(db: Db, path: string, line: number, symbolRow: number | null): ChunkHit | undefined {
  return db.prepare(
    `SELECT ${CHUNK_COLS} FROM chunks c WHERE c.path = ? AND c.line_start <= ? AND c.line_end >= ?
     ORDER BY (c.symbol_row IS ?) DESC, c.line_start LIMIT 1`,
  ).get(path, line, line, symbolRow) as unknown as ChunkHit | undefined;
}

/** The first chunk of a file. */
export function firstChunk(db: Db, path: string): ChunkHit | undefined {
  return db.prepare(`SELECT ${CHUNK_COLS} FROM chunks c WHERE c.path = ? ORDER BY c.line_start LIMIT 1`)
    .get(path) as unknown as ChunkHit | undefined;
}

/** Languages present in the index. */
export function indexedLanguages(db: Db): string[] {
  return (db.prepare("SELECT DISTINCT language FROM files").all() as { language: string }[]).map((r) => r.language);
}
