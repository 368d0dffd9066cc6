/**
 * Weighted reciprocal-rank fusion: every source's ranked list votes
 * `weight / (k + rank)` for each unit it contains. A unit is one thing an
 * agent can open: a symbol (its body chunks fold into it), a chunk outside
 * any symbol, or a whole file.
 */
import type { ChunkHit, FileHit, SymbolHit } from "./candidates.ts";

/** RRF damping constant: small k lets the first ranks of a source dominate. */
export const RRF_K = 10;

/** One fused candidate. */
export interface Unit {
  key: string;
  path: string;
  language: string;
  symbol?: SymbolHit;
  /** Symbol row id this unit stands for (before the row is loaded). */
  symbolRow?: number;
  chunk?: ChunkHit;
  file?: FileHit;
  /** Exact lines a literal matched, when a literal source found this unit. */
  focus?: [number, number];
  /** Best (0-based) rank per source. */
  ranks: Record<string, number>;
  fused: number;
  score: number;
  reasons: Record<string, number>;
}

/** A ranked list in the shape fusion needs. */
export interface RankedList {
  source: string;
  weight: number;
  items: ({ kind: "symbol"; hit: SymbolHit } | { kind: "chunk"; hit: ChunkHit } | { kind: "file"; hit: FileHit })[];
}

function keyOf(item: RankedList["items"][number]): string {
  if (item.kind === "symbol") return "s:" + item.hit.id;
  // A literal match is its own unit (the line that says it), still tied to its symbol by row id.
  if (item.kind === "chunk" && item.hit.match) return "l:" + item.hit.path + ":" + item.hit.match[0];
  if (item.kind === "chunk") return item.hit.symbol_row !== null ? "s:" + item.hit.symbol_row : "c:" + item.hit.id;
  return "f:" + item.hit.path;
}

/** Fuses ranked lists into units keyed by what they point at. */
export function fuse(lists: RankedList[], k = RRF_K): Map<string, Unit> {
  const units = new Map<string, Unit>();
  for (const list of lists) {
    const seen = new Set<string>();
    list.items.forEach((item, rank) => {
      const key = keyOf(item);
      if (seen.has(key)) return; // a source votes once per unit, with its best rank
      seen.add(key);
      let u = units.get(key);
      if (!u) {
        u = {
          key,
          path: item.hit.path,
          language: item.hit.language,
          ranks: {},
          fused: 0,
          score: 0,
          reasons: {},
        };
        units.set(key, u);
      }
      if (item.kind === "symbol") u.symbol = item.hit;
      else if (item.kind === "chunk") {
        if (!u.chunk) u.chunk = item.hit;
        if (item.hit.symbol_row !== null) u.symbolRow = item.hit.symbol_row;
        if (item.hit.match) u.focus = item.hit.match;
      } else u.file = item.hit;
      if (item.kind === "symbol") u.symbolRow = item.hit.id;
      u.ranks[list.source] = rank;
      const vote = list.weight / (k + rank + 1);
      u.fused += vote;
      u.reasons["source:" + list.source] = vote;
    });
  }
  return units;
}

/** The lines a unit stands for: a literal's matched lines, else its symbol's, chunk's or whole file's. */
export function unitLines(u: Unit): [number, number] {
  if (u.focus) return u.focus;
  if (u.symbol) return [u.symbol.line_start, u.symbol.line_end];
  if (u.chunk) return [u.chunk.line_start, u.chunk.line_end];
  return [1, Math.max(1, u.file?.line_count ?? 1)];
}

/**
 * Best score first; equal scores by path, then first line, then last line,
 * so equal results come out in the same order whatever the index's row ids.
 */
export function byScore(a: Unit, b: Unit): number {
  if (b.score !== a.score) return b.score - a.score;
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  const la = unitLines(a);
  const lb = unitLines(b);
  return la[0] - lb[0] || la[1] - lb[1] || Number(!a.file) - Number(!b.file);
}

/** The vote of rank 1 in a source of weight `w`, the unit that scores map against. */
export function topVote(w: number, k = RRF_K): number {
  return w / (k + 1);
}
