/**
 * Cutting a file into searchable chunks: the bodies of functions and methods
 * (and of small types), and line windows for the code outside them.
 */
import type { ExtractedSymbol } from "../core/types.ts";
import { type ChunkRecord, MAX_CHUNK_CHARS, MAX_CHUNK_LINES } from "../state/file_rows.ts";

const CALLABLE = new Set(["function", "method", "constructor", "macro"]);
const TYPELIKE = new Set(["class", "struct", "interface", "trait", "enum", "type", "impl", "module", "namespace"]);
const WINDOW_LINES = 60;

function piece(lines: string[], start: number, end: number, symbol: number | null): ChunkRecord | null {
  const content = lines.slice(start - 1, end).join("\n");
  if (!content.trim()) return null;
  return {
    lineStart: start,
    lineEnd: end,
    symbol,
    content: content.length > MAX_CHUNK_CHARS ? content.slice(0, MAX_CHUNK_CHARS) : content,
  };
}

/** Splits [start, end] into windows of at most `size` lines. */
function windows(start: number, end: number, size: number): [number, number][] {
  const out: [number, number][] = [];
  for (let s = start; s <= end; s += size) out.push([s, Math.min(end, s + size - 1)]);
  return out;
}

/** Chunks of one file, in line order, covering every non-blank line once. */
export function chunkFile(source: string, symbols: ExtractedSymbol[]): ChunkRecord[] {
  const lines = source.split("\n");
  // A final newline ends the last line; it does not start one more.
  const total = source.endsWith("\n") ? lines.length - 1 : lines.length;
  const chosen: { start: number; end: number; symbol: number }[] = [];
  const hasCallableChild = new Set<number>();
  symbols.forEach((s) => {
    if (s.parent !== null && CALLABLE.has(s.kind)) hasCallableChild.add(s.parent);
  });
  const order = symbols.map((_, i) => i).sort((a, b) => symbols[a].lineStart - symbols[b].lineStart);
  let coveredTo = 0;
  for (const i of order) {
    const s = symbols[i];
    if (s.lineStart <= coveredTo) continue;
    const take = CALLABLE.has(s.kind) || (TYPELIKE.has(s.kind) && !hasCallableChild.has(i));
    if (!take) continue;
    chosen.push({ start: s.lineStart, end: Math.min(s.lineEnd, total), symbol: i });
    coveredTo = s.lineEnd;
  }
  const out: ChunkRecord[] = [];
  let line = 1;
  const gap = (from: number, to: number) => {
    for (const [a, b] of windows(from, to, WINDOW_LINES)) {
      const c = piece(lines, a, b, null);
      if (c) out.push(c);
    }
  };
  for (const c of chosen) {
    if (c.start > line) gap(line, c.start - 1);
    const size = c.end - c.start + 1;
    const parts = size > MAX_CHUNK_LINES ? windows(c.start, c.end, MAX_CHUNK_LINES) : [[c.start, c.end]];
    for (const [a, b] of parts) {
      const p = piece(lines, a, b, c.symbol);
      if (p) out.push(p);
    }
    line = c.end + 1;
  }
  if (line <= total) gap(line, total);
  return out;
}
