/**
 * The rows one file becomes in the index, computed off the writer thread:
 * stable ids, full-text strings (identifier parts, path words) and
 * de-duplicated edges. The writer only inserts them.
 */
import type { ExtractedOccurrence, ExtractedRef, ExtractedSymbol } from "../core/types.ts";
import { compoundTerms, pathTerms, splitIdentifier } from "../core/identifiers.ts";
import { symbolId, symbolStableId } from "../core/ids.ts";

/**
 * Most lines one chunk spans. Chunks of a file never overlap, so the chunks
 * touching lines A..B start within A - MAX_CHUNK_LINES + 1 .. B: readers rely
 * on it to read a bounded range of a large file's chunks.
 */
export const MAX_CHUNK_LINES = 120;

/** Most characters of a chunk's text: a longer piece is cut there (readers of a file's text cut it the same way). */
export const MAX_CHUNK_CHARS = 24_000;

/** A searchable piece of a file (at most MAX_CHUNK_LINES lines). `symbol` indexes the file's symbol list. */
export interface ChunkRecord {
  lineStart: number;
  lineEnd: number;
  symbol: number | null;
  content: string;
}

/** Facts about a file known before parsing. */
export interface FileFacts {
  path: string;
  hash: string;
  size: number;
  mtimeMs: number;
  language: string;
  lineCount: number;
  parseError: string | null;
  /** A generator wrote the file (known suffix or a `DO NOT EDIT` / `@generated` marker); set by the parser. */
  generated?: boolean;
  /**
   * False above the full-text size limit: the file gives symbols, edges and
   * references, but no chunks and no full-text rows (its path is still searchable).
   */
  fullText?: boolean;
}

/** Everything the writer inserts for one file. */
export interface FileRows extends FileFacts {
  fileFts: { path: string; names: string };
  /** `fts`: the symbol's full-text columns, null for a file without full text. */
  symbols: (ExtractedSymbol & { stableId: string; symbolId: string; fts: [string, string, string] | null })[];
  edges: { kind: string; from: number | null; target: string; line: number }[];
  /** Identifier occurrences (the reference index); `from` indexes `symbols`. */
  occurrences: ExtractedOccurrence[];
  /** `ftsExtra`: identifier parts added to the chunk's text in the full-text index (not a second copy of it). */
  chunks: (ChunkRecord & { ftsExtra: string })[];
}

/** Builds a file's rows from its extraction and chunks. */
export function buildFileRows(
  facts: FileFacts,
  symbols: ExtractedSymbol[],
  refs: ExtractedRef[],
  chunks: ChunkRecord[],
  occurrences: ExtractedOccurrence[] = [],
): FileRows {
  const pTerms = pathTerms(facts.path);
  const names = symbols.map((x) => x.name);
  const seen = new Set<string>();
  const edges: FileRows["edges"] = [];
  for (const r of refs) {
    // One edge per (kind, enclosing symbol, target): repeated calls add nothing to relations.
    const key = `${r.kind}\0${r.from}\0${r.target}`;
    if (seen.has(key)) continue;
    seen.add(key);
    edges.push({ kind: r.kind, from: r.from, target: r.target, line: r.line });
  }
  const fullText = facts.fullText !== false;
  return {
    ...facts,
    fileFts: {
      path: pTerms,
      names: fullText ? names.join(" ") + " " + names.flatMap((n) => splitIdentifier(n)).join(" ") : "",
    },
    symbols: symbols.map((s) => {
      const stableId = symbolStableId(facts.language, s.kind, s.qualifiedName, s.signature);
      return {
        ...s,
        stableId,
        symbolId: symbolId(facts.path, stableId, s.lineStart),
        fts: fullText
          ? [
            `${s.name} ${splitIdentifier(s.name).join(" ")}`,
            splitIdentifier(s.qualifiedName).join(" "),
            `${s.kind} ${s.signature} ${s.doc ?? ""}`,
          ] as [string, string, string]
          : null,
      };
    }),
    edges,
    occurrences,
    chunks: fullText ? chunks.map((c) => ({ ...c, ftsExtra: compoundTerms(c.content) })) : [],
  };
}
