/**
 * From ranked units to the results an agent reads: overlapping hits merged,
 * files aggregated (and diversified for prose queries), each result given its
 * handles, lines, a short snippet and a 0..1 score.
 */
import { splitIdentifier } from "../../core/identifiers.ts";
import type { Db } from "../../state/db.ts";
import { resultId } from "../../core/ids.ts";
import { byScore, type Unit, unitLines as lines } from "./fuse.ts";
import { symbolMapByRowIds } from "../../state/read/symbols.ts";
import { storedLines } from "../_file_lines.ts";
import { type MatchLine, shownLines } from "./snippet.ts";

/** One search result (one item of `search_code`'s `results`). */
export interface SearchResult {
  result_id: string;
  result_type: "symbol" | "snippet" | "file";
  symbol_id?: string;
  symbol_stable_id?: string;
  path: string;
  line_start: number;
  line_end: number;
  kind: string | null;
  name: string | null;
  qualified_name: string | null;
  language: string;
  score: number;
  /** At most SNIPPET_LINES lines of the file, all inside `[line_start, line_end]`. */
  snippet: string;
  /** The lines holding the query's words, best first, with their numbers (see `shownLines`). */
  match_lines: MatchLine[];
  ranking_reasons?: Record<string, number | string>;
  /** Present (true) when a generator wrote the file. */
  generated?: boolean;
  /** With `debug: true`: whether the result joined its symbol's row (`hit`) or has none (`miss`). */
  join_status?: "hit" | "miss";
}

/** Fused score that maps to 0.5: a first place in a weight-1 source. */
const SCORE_HALF = 0.09;

/** Loads the symbol rows units refer to (chunks of a symbol body carry only its row id). */
export function attachSymbols(db: Db, units: Unit[]): void {
  const need = units.filter((u) => !u.symbol && u.symbolRow !== undefined).map((u) => u.symbolRow!);
  if (!need.length) return;
  const rows = symbolMapByRowIds(db, need);
  for (const u of units) if (!u.symbol && u.symbolRow !== undefined) u.symbol = rows.get(u.symbolRow);
}

function overlaps(a: [number, number], b: [number, number]): boolean {
  return a[0] <= b[1] && b[0] <= a[1];
}

/**
 * Merges units of one file whose line ranges overlap (a window chunk inside
 * a symbol, a symbol and its enclosing class's chunk): the better one keeps
 * its place and gains a share of the other's evidence. Input sorted best first.
 */
export function mergeOverlaps(units: Unit[]): Unit[] {
  const kept: Unit[] = [];
  const byPath = new Map<string, Unit[]>();
  for (const u of units) {
    const same = byPath.get(u.path) ?? [];
    const r = lines(u);
    // A definition the query names keeps its own place (a class is not folded into one of its methods).
    const host = u.file || u.reasons.name_in_query
      ? undefined
      : same.find((k) => !k.file && overlaps(lines(k), r) && nested(lines(k), r));
    if (host) {
      host.score += 0.25 * u.score;
      host.reasons.merged_overlap = (Number(host.reasons.merged_overlap) || 0) + 1;
      continue;
    }
    same.push(u);
    byPath.set(u.path, same);
    kept.push(u);
  }
  return kept.sort(byScore);
}

/** One range inside the other. */
function nested(a: [number, number], b: [number, number]): boolean {
  return (a[0] <= b[0] && a[1] >= b[1]) || (b[0] <= a[0] && b[1] >= a[1]);
}

/**
 * File-level aggregation: every unit of a file lends weight to the file's
 * best unit (a file that matches in many places is more likely the answer).
 * With `onePerFile`, only that best unit stays (prose queries: the ranks
 * are better spent on other files). `share` of the second unit's score is
 * added (half of it for the third, a sixth for the rest). Input sorted best first.
 * `pick`, when given, chooses a prose file's representative among its units
 * (`representative.ts`) unless a definition the query names word for word does.
 */
export function aggregateFiles(
  units: Unit[],
  onePerFile: boolean,
  perFileMax: number,
  preferFiles = false,
  share = 0.3,
  pick?: (g: Unit[]) => Unit | undefined,
): Unit[] {
  const groups = new Map<string, Unit[]>();
  for (const u of units) {
    const g = groups.get(u.path);
    if (g) g.push(u);
    else groups.set(u.path, [u]);
  }
  const out: Unit[] = [];
  for (const g of groups.values()) {
    const extra = g.slice(1).reduce(
      (acc, u, i) => acc + u.score * (i === 0 ? share : i === 1 ? share / 2 : share / 6),
      0,
    );
    if (onePerFile) {
      // Prefer a unit with lines (symbol or chunk) as the file's representative.
      // A definition the query names word for word (`workspace router` → `WorkspaceRouter`) represents its
      // file rather than a passage that merely matches; a one-word name only when it scores close.
      const named = preferFiles ? undefined : g.find((u) =>
        u.symbol && u.reasons.name_in_query &&
        (new Set(splitIdentifier(u.symbol.name)).size >= 2 || u.score >= 0.5 * g[0].score)
      );
      const picked = preferFiles || named ? undefined : pick?.(g);
      const rep = named ?? picked ?? (preferFiles ? g.find((u) => u.file) : g.find((u) => !u.file)) ?? g[0];
      const best = g[0].score;
      if (extra) rep.reasons.file_aggregate = Math.round(extra * 1e4) / 1e4;
      rep.score = best + extra;
      out.push(rep);
    } else {
      out.push(...g.filter((u) => !(u.file && g.length > 1)).slice(0, perFileMax));
    }
  }
  return out.sort(byScore);
}

/** Lines read from the start of a long result when looking for the lines that match. */
const SCAN_LINES = 400;

/**
 * The stored lines of `u`'s range `[ls, le]` worth showing: its first
 * SCAN_LINES lines, and the lines of the chunk that matched when it lies
 * further down (a long symbol matched in its middle).
 */
function linesOf(db: Db, u: Unit, ls: number, le: number): Map<number, string> {
  const out = new Map<number, string>();
  const read = (from: number, to: number) => {
    if (to < from) return;
    storedLines(db, u.path, from, to).lines.forEach((l, i) => out.set(from + i, l));
  };
  read(ls, Math.min(le, ls + SCAN_LINES - 1));
  const c = u.chunk;
  if (c && c.line_end >= ls + SCAN_LINES) read(Math.max(ls, c.line_start), Math.min(le, c.line_end));
  return out;
}

/** Builds the result object of a unit (loading its snippet text). */
export function toResult(db: Db, u: Unit, terms: string[], explain: "off" | "basic" | "full"): SearchResult {
  const [ls, le] = lines(u);
  const sym = u.symbol;
  const shown = shownLines(linesOf(db, u, ls, le), terms);
  const fromSymbolSource = Object.keys(u.ranks).some((s) => s.startsWith("symbol") || s === "exact_name");
  const type: SearchResult["result_type"] = u.file
    ? "file"
    : sym && fromSymbolSource && !u.focus
    ? "symbol"
    : "snippet";
  const r: SearchResult = {
    result_id: type === "symbol" && sym
      ? sym.symbol_id
      : resultId(type === "file" ? "file" : "snip", u.path, type === "file" ? 0 : ls, type === "file" ? 0 : le),
    result_type: type,
    ...(sym ? { symbol_id: sym.symbol_id, symbol_stable_id: sym.stable_id } : {}),
    path: u.path,
    line_start: ls,
    line_end: le,
    kind: sym?.kind ?? null,
    name: sym?.name ?? null,
    qualified_name: sym?.qualified_name ?? null,
    language: sym?.language ?? u.language,
    score: normalizedScore(u.score),
    snippet: shown.snippet,
    match_lines: shown.match_lines,
  };
  if (explain !== "off") r.ranking_reasons = reasonsFor(u, explain);
  return r;
}

/** Maps a fused-and-adjusted score to 0..1 (monotonic; 0.5 = first place in one weight-1 source). */
export function normalizedScore(s: number): number {
  return Math.round((s / (s + SCORE_HALF)) * 1000) / 1000;
}

function reasonsFor(u: Unit, level: "basic" | "full"): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const [k, v] of Object.entries(u.reasons)) {
    if (level === "basic" && k.startsWith("source:")) continue;
    out[k] = typeof v === "number" ? Math.round(v * 1e4) / 1e4 : v;
  }
  if (level === "full") {
    for (const [s, rank] of Object.entries(u.ranks)) out["rank:" + s] = rank + 1;
    out.fused = Math.round(u.fused * 1e4) / 1e4;
  }
  out.final = Math.round(u.score * 1e4) / 1e4;
  return out;
}
