/**
 * locate_symbol: definitions by name. Exact name beats case-insensitive
 * beats prefix; a qualified query narrows by qualified name.
 */
import type { Db } from "../state/db.ts";
import { normalizeKind } from "../core/types.ts";
import { CruxeError } from "../core/errors.ts";

/** Inputs of locate_symbol. */
export interface LocateInput {
  name: string;
  kind?: string;
  language?: string;
  limit?: number;
}

/** One located symbol. */
export interface LocatedSymbol {
  symbol_id: string;
  symbol_stable_id: string;
  path: string;
  line_start: number;
  line_end: number;
  kind: string;
  name: string;
  qualified_name: string;
  signature: string;
  language: string;
  score: number;
}

interface Row {
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
}

/** Finds definitions of `name`, best first, with the number of candidates. */
export function locateSymbol(db: Db, input: LocateInput): { results: LocatedSymbol[]; total_candidates: number } {
  const raw = input.name.trim();
  if (!raw) throw new CruxeError("invalid_input", "name must not be empty");
  const parts = raw.split(/::|\.|#|\//).filter(Boolean);
  const leaf = parts[parts.length - 1] ?? raw;
  const qualifiers = parts.slice(0, -1).map((p) => p.toLowerCase());
  const kind = input.kind ? normalizeKind(input.kind) : undefined;
  if (input.kind && !kind) throw new CruxeError("invalid_input", `Unknown kind ${input.kind}`);
  const limit = Math.max(1, Math.min(input.limit ?? 10, 200));
  const rows = db.prepare(
    `SELECT symbol_id, stable_id, path, line_start, line_end, kind, name, qualified_name, signature, language
     FROM symbols WHERE name_lower >= ? AND name_lower < ? LIMIT 5000`,
  ).all(leaf.toLowerCase(), leaf.toLowerCase() + "\uffff") as unknown as Row[];
  const scored: LocatedSymbol[] = [];
  for (const r of rows) {
    if (kind && r.kind !== kind) continue;
    if (input.language && r.language !== input.language.toLowerCase()) continue;
    const q = r.qualified_name.toLowerCase();
    if (qualifiers.length && !qualifiers.every((p) => q.includes(p))) continue;
    let score = r.name === leaf ? 1 : r.name.toLowerCase() === leaf.toLowerCase() ? 0.8 : 0.5;
    if (qualifiers.length) score += 0.05;
    scored.push({
      symbol_id: r.symbol_id,
      symbol_stable_id: r.stable_id,
      path: r.path,
      line_start: r.line_start,
      line_end: r.line_end,
      kind: r.kind,
      name: r.name,
      qualified_name: r.qualified_name,
      signature: r.signature,
      language: r.language,
      score: Math.min(1, score),
    });
  }
  scored.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.line_start - b.line_start);
  return { results: scored.slice(0, limit), total_candidates: scored.length };
}
