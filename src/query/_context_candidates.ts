/**
 * Candidate definitions for get_code_context: search_code's own ranking, so
 * the context opens with the results a search shows first. A result inside
 * a symbol stands for that symbol (its body is the block); a result outside
 * any symbol (a chunk, a whole file) stands for its own lines.
 */
import type { Db } from "../state/db.ts";
import { searchCode } from "./search_code.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { symbolMapByIds } from "../state/read/symbols.ts";

/** A ranked candidate: a symbol, or lines of code outside any symbol. */
export type ContextCandidate =
  | { type: "symbol"; row: SymbolRow; score: number }
  | { type: "chunk"; path: string; language: string; line_start: number; line_end: number; score: number };

/**
 * Up to `n` candidates for `query`, in search_code's order, each symbol or
 * range once; `partial` carries search_code's note when its reads stopped at a cap.
 */
export function contextCandidates(
  db: Db,
  query: string,
  n: number,
): { candidates: ContextCandidate[]; partial?: string } {
  const out: ContextCandidate[] = [];
  const seen = new Set<string>();
  const found = searchCode(db, { query, limit: n });
  const results = found.results;
  // One read for every candidate's symbol row.
  const rows = symbolMapByIds(
    db,
    results.filter((r) => r.symbol_id && r.result_type !== "file").map((r) => r.symbol_id!),
  );
  for (const r of results) {
    const row = r.symbol_id && r.result_type !== "file" ? rows.get(r.symbol_id) : undefined;
    const key = row ? `s${row.id}` : `c${r.path}:${r.line_start}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(
      row ? { type: "symbol", row, score: r.score } : {
        type: "chunk",
        path: r.path,
        language: r.language,
        line_start: r.line_start,
        line_end: r.line_end,
        score: r.score,
      },
    );
  }
  return found.meta ? { candidates: out, partial: found.meta.note } : { candidates: out };
}
