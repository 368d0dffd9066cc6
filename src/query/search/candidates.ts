/**
 * Candidate sources: each asks one table of the index for its best rows,
 * ranked by FTS5 BM25 (or by exact lookup / literal match). Sources never
 * see raw user text: they take MATCH expressions built by `fts_query.ts`.
 */
import type { Db } from "../../state/db.ts";
import type { ChunkRow, SymbolRow } from "../../state/read/rows.ts";
import {
  chunksContaining,
  chunksMatching,
  chunksRanked,
  type FileHit,
  filesRanked,
  filesWithPathSuffix,
  type MatchCount,
  type SourceFilter,
  symbolsNamedAny,
  symbolsRanked,
} from "../../state/read/search.ts";

export type { FileHit, SourceFilter } from "../../state/read/search.ts";

/** A symbol row as the sources return it. */
export type SymbolHit = SymbolRow;

/** A chunk row as the sources return it. */
export interface ChunkHit extends ChunkRow {
  /** BM25 rank value (more negative is better), when the source ranked by BM25. */
  r?: number;
  /** Lines that matched a literal search (set by `literalSource` only). */
  match?: [number, number];
}

/** One ranked list from one source. */
export interface SourceList<T> {
  source: string;
  hits: T[];
}

/** Symbols ranked by BM25 over name (weighted most), qualified name and detail. */
export function symbolSource(db: Db, match: string, f: SourceFilter, limit: number): SymbolHit[] {
  return symbolsRanked(db, match, f, limit);
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
  if (!qualifier) return symbolsNamedAny(db, names, f, limit);
  const qualified = symbolsNamedAny(db, names, f, limit, qualifier);
  const seen = new Set(qualified.map((r) => r.id));
  return qualified.concat(symbolsNamedAny(db, names, f, limit).filter((r) => !seen.has(r.id))).slice(0, limit);
}

/** Chunks ranked by BM25 over body and path (`known`: what the planner knows of how many chunks match). */
export function chunkSource(db: Db, match: string, f: SourceFilter, limit: number, known?: MatchCount): ChunkHit[] {
  return chunksRanked(db, match, f, limit, known);
}

/** Files ranked by BM25 over path words and the names they define. */
export function fileSource(db: Db, match: string, f: SourceFilter, limit: number): FileHit[] {
  return filesRanked(db, match, f, limit);
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
  return filesWithPathSuffix(db, suffix.replace(/^\.?\//, ""), f, limit);
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
  const needle = literal.toLowerCase();
  if (phrase) {
    const rows = chunksMatching(db, phrase, f, scanLimit).filter((r) => r.content.toLowerCase().includes(needle));
    // Which rows are kept must not depend on row ids (the order files were written): by place.
    rows.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line_start - b.line_start));
    return withMatch(rows.slice(0, limit), needle);
  }
  // No word characters at all (e.g. `"=>"`): a bounded scan of the chunk text.
  return withMatch(chunksContaining(db, needle, f, limit), needle);
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
