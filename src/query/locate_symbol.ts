/**
 * locate_symbol: where a name is defined. Definitions come first, ranked by
 * tier (exact name > case-insensitive > prefix > fuzzy spelling), then by a
 * few bounded signals (qualifier match, kind, not a test file); references to
 * the exact name follow when there is room. A qualified query
 * (`jwt::validate_token`, `Reader.Read`, `django.db.models.Model`) narrows by
 * qualified name and path. Reads only the open index.
 */
import type { Db } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import { resultId } from "../core/ids.ts";
import { definitionsNamed, definitionsWithPrefix, fuzzyNames, type NameEntry } from "./symbol_name_index.ts";
import { type KnownSpellings, suggestSymbols } from "./_suggest_symbols.ts";
import { prefixedRows, spelledAs } from "./_prefixed_names.ts";
import { byCodeUnits, type SymbolFields, symbolFields } from "./_symbol_row.ts";
import { symbolMapByRowIds } from "../state/read/symbols.ts";
import { referenceCount, referencesOf } from "../state/read/edges.ts";
import { generatedPaths } from "../state/read/file_flags.ts";
import { parseKind, parseLanguage, parseLimit, requireName } from "./_input_rules.ts";
import { isTestPath } from "../core/test_paths.ts";
import { LIMITS } from "./limits.ts";

export { warmSymbolIndex } from "./symbol_name_index.ts";

/** Inputs of locate_symbol. */
export interface LocateInput {
  name: string;
  kind?: string;
  language?: string;
  limit?: number;
}

/** How a result matched the query. */
export type MatchTier = "exact" | "case_insensitive" | "prefix" | "fuzzy";

/**
 * One located symbol. `match` is `definition` for a symbol row, `reference`
 * for a use of the exact name (then `symbol_id` is the enclosing symbol's
 * handle, or a `snip_` result id at file level, and `kind` is `reference`).
 */
export interface LocatedSymbol extends SymbolFields {
  score: number;
  match: "definition" | "reference";
  match_tier: MatchTier;
  reference_kind?: string;
  /** Present (true) when a generator wrote the file. */
  generated?: boolean;
}

/** The answer of locate_symbol (without the protocol metadata). */
export interface LocateResult {
  results: LocatedSymbol[];
  total_candidates: number;
  truncated: boolean;
}

/** Default and maximum `limit`. */
export const LOCATE_DEFAULT_LIMIT = LIMITS.locate.default;
export const LOCATE_MAX_LIMIT = LIMITS.locate.max;
/** Rows read per tier at most: bounds the work for names like `String` or `init`. */
const TIER_ROWS = 5000;
const PREFIX_ROWS = 1000;
/** Close spellings whose definitions are read when nothing is named exactly so. */
const FUZZY_NAMES = 20;

/** The `$` of a JVM nested class name (`HashMap$Node`, as stack traces print it); `$scope`, `$.ajax` are names. */
const JVM_NESTED = /(?<=[A-Za-z0-9_])\$(?=[A-Z])/g;

/** A Go method expression's receiver, `(*T).` or `(T).` first or after a dot: the type's name is the qualifier. */
const GO_RECEIVER = /(?<=^|\.)\(\*?([A-Za-z_]\w*)\)(?=\.)/g;

/**
 * `name` with generic arguments dropped (`Vec<T>::push`, `List<String>.add`,
 * `std::vector<int>::push_back`) and a Rust qualified path read as its type's
 * (`<Vec<T> as Extend<T>>::extend` is `Vec::extend`: an impl's methods are
 * named by the type), as compilers, backtraces and docs print them.
 */
function plainPath(name: string): string {
  let s = name;
  // Innermost brackets first: each round removes one level of nesting.
  for (let round = 0; round < 8 && /<[^<>]*>/.test(s); round++) {
    s = s.replace(
      /<\s*([^<>]*?)\s+as\s+[^<>]*>(?=::)/g,
      (_, type: string) => type.replace(/^(?:[&*]\s*(?:mut\s+|const\s+)?|dyn\s+)/, ""),
    )
      .replace(/(?<!operator\s*)<[^<>]*>/g, ""); // C++'s `operator<=>` is a name, not arguments
  }
  return s;
}

/** A query split into its leaf name and the qualifiers before it. */
export interface ParsedName {
  leaf: string;
  qualifiers: string[]; // lower-case
  normalized: string; // lower-case, separators as "."
}

/**
 * Splits `a::b.c#d` / `pkg/mod.Name` / `pkg.mod:name` / `name()` into leaf and qualifiers; a Go
 * method expression's receiver (`(*Writer).Write`, `bufio.(T).M`, as stack
 * traces and profiles print them) qualifies by its type's name, a JVM nested
 * class (`HashMap$Node`) by its outer class, and generic arguments are
 * dropped (`plainPath`).
 */
export function parseSymbolName(raw: string): ParsedName {
  const s = plainPath(raw.trim().replace(/^[`'"]+|[`'"]+$/g, "")).replace(GO_RECEIVER, "$1")
    .replace(JVM_NESTED, ".").replace(/\(.*\)\s*$/, "").trim();
  // `:` alone too: Python entry points and app specs (`pkg.module:main`, `app.main:app`), `file.c:func`.
  const parts = s.split(/->|[.#/\\\s:]+/).filter(Boolean);
  const leaf = parts.length ? parts[parts.length - 1] : s;
  const qualifiers = parts.slice(0, -1).map((p) => p.toLowerCase());
  return { leaf, qualifiers, normalized: parts.map((p) => p.toLowerCase()).join(".") };
}

/** What ranking reads of a definition (from the on-disk name lookup). */
type RankRow = NameEntry;

/** Segments a qualifier can match: the qualified name's parts and the path's directories and stem. */
function segmentsOf(r: { qualified_name: string; path: string }): string[] {
  const q = r.qualified_name.toLowerCase().split(/::|[.#/\\]+/);
  q.pop();
  return q.concat(r.path.toLowerCase().replace(/\.[^./]+$/, "").split("/"));
}

/**
 * How well a candidate honours the qualifiers (0..1): 1 when its qualified
 * name ends with the whole query, else the share of qualifiers found among
 * its segments.
 */
export function qualifierMatch(r: { qualified_name: string; path: string }, parsed: ParsedName): number {
  if (!parsed.qualifiers.length) return 0;
  const qn = r.qualified_name.toLowerCase().split(/::|[#/\\]+/).join(".");
  if (qn === parsed.normalized || qn.endsWith("." + parsed.normalized)) return 1;
  const segs = segmentsOf(r);
  let hit = 0;
  for (const q of parsed.qualifiers) if (segs.includes(q)) hit++;
  return 0.9 * hit / parsed.qualifiers.length;
}

const KIND_BONUS: Record<string, number> = {
  class: 0.02,
  struct: 0.02,
  interface: 0.02,
  trait: 0.02,
  enum: 0.018,
  type: 0.018,
  function: 0.02,
  method: 0.015,
  constructor: 0.012,
  module: 0.012,
  namespace: 0.012,
  constant: 0.01,
  variable: 0.008,
  macro: 0.01,
};

const TIER_BASE: Record<MatchTier, number> = { exact: 0.9, case_insensitive: 0.8, prefix: 0.55, fuzzy: 0.45 };

const pathSignals = new Map<string, number>();

/** Path-only part of the signals, memoized (paths repeat across thousands of candidates). */
function pathSignal(path: string): number {
  let s = pathSignals.get(path);
  if (s === undefined) {
    s = isTestPath(path) ? -0.03 : 0;
    // Shallower files are more often the public home of a name (Go: `io/io.go` before `cmd/internal/...`).
    s -= 0.002 * Math.min(5, path.split("/").length - 1);
    if (pathSignals.size > 100_000) pathSignals.clear();
    pathSignals.set(path, s);
  }
  return s;
}

/** Bounded adjustments within a tier (never more than 0.09, so tiers never cross). */
function signals(r: RankRow, qualifier: number): number {
  let s = KIND_BONUS[r.kind] ?? 0;
  if (r.top) s += 0.005;
  if (r.visibility === "public") s += 0.005;
  return s + pathSignal(r.path) + 0.05 * qualifier;
}

interface Candidate {
  row: RankRow;
  tier: MatchTier;
  score: number;
}

function filterRows(rows: RankRow[], kind: string | undefined, language: string | undefined): RankRow[] {
  return rows.filter((r) => (!kind || r.kind === kind) && (!language || r.language === language));
}

/**
 * Finds definitions of `name`, best first, then references when there is
 * room. Throws `invalid_input` for bad input and `symbol_not_found` (with
 * `data.suggestions`) when nothing matches, not even by spelling.
 */
export function locateSymbol(db: Db, input: LocateInput): LocateResult {
  const raw = requireName(input?.name, "name");
  const kind = parseKind(input.kind);
  const language = parseLanguage(input.language);
  const limit = parseLimit(input.limit, LOCATE_DEFAULT_LIMIT, LOCATE_MAX_LIMIT);
  const parsed = parseSymbolName(raw);
  if (!parsed.leaf) throw new CruxeError("invalid_input", "name has no identifier in it", { field: "name" });
  const leafLower = parsed.leaf.toLowerCase();

  const { candidates, uncounted, bounds, spellings } = definitionCandidates(db, parsed, { kind, language, limit });
  const kept = rankCandidates(candidates, parsed);

  const shown = kept.slice(0, limit);
  const full = symbolMapByRowIds(db, shown.map((c) => c.row.id));
  const generated = generatedPaths(db, shown.map((c) => c.row.path));
  const results: LocatedSymbol[] = shown.map((c) => ({
    ...symbolFields(full.get(c.row.id)!),
    score: round(c.score),
    match: "definition",
    match_tier: c.tier,
    ...(generated.has(c.row.path) ? { generated: true } : {}),
  }));
  let total = kept.length + uncounted;

  // References to the exact name, for unqualified, unkinded queries only: a kind or a
  // qualifier describes a definition, and a reference to a misspelling means nothing.
  if (!kind && !parsed.qualifiers.length) {
    const refTotal = referenceCount(db, leafLower, language);
    total += refTotal;
    if (results.length < limit && refTotal > 0) {
      results.push(...references(db, parsed.leaf, language, limit - results.length));
    }
  }

  if (results.length === 0) {
    const suggestions = suggestSymbols(db, raw, undefined, spellings);
    const filtered = kind || language ? " with the given filters" : "";
    throw new CruxeError("symbol_not_found", `No symbol named "${raw.slice(0, 200)}"${filtered} in the index`, {
      name: raw.slice(0, 200),
      suggestions,
    });
  }
  return { results, total_candidates: total, truncated: total > results.length || bounds.capped };
}

/**
 * The definitions `parsed` may mean, by tier: exact names, then prefix
 * completions when they can be shown, then close spellings when nothing is
 * named exactly so. `uncounted` is how many unread completions still count
 * towards `total_candidates`; `bounds.capped` is set when a bounded read
 * stopped at its cap; `spellings` are the close spellings looked up (when
 * they were), for the suggestions of an empty answer.
 */
function definitionCandidates(
  db: Db,
  parsed: ParsedName,
  o: { kind: string | undefined; language: string | undefined; limit: number },
): { candidates: Candidate[]; uncounted: number; bounds: { capped: boolean }; spellings?: KnownSpellings } {
  const { kind, language, limit } = o;
  const leafLower = parsed.leaf.toLowerCase();
  const candidates: Candidate[] = [];
  const push = (rows: RankRow[], tierOf: (r: RankRow) => MatchTier, extra: (r: RankRow) => number) => {
    for (const row of rows) {
      const tier = tierOf(row);
      candidates.push({ row, tier, score: TIER_BASE[tier] + extra(row) });
    }
  };

  // A prefixed spelling (`CONFIG_FOO`) is also exactly the symbol it names (Kconfig's `FOO`).
  const exactRows = [
    ...filterRows(definitionsNamed(db, leafLower, TIER_ROWS), kind, language),
    ...prefixedRows(
      parsed.leaf,
      (n) => filterRows(definitionsNamed(db, n.toLowerCase(), TIER_ROWS), kind, undefined),
      language,
    ),
  ];
  push(exactRows, (r) => spelledAs(r, parsed.leaf) ? "exact" : "case_insensitive", () => 0);

  // Prefix completions rank below every exact match, so they are read only when they can be
  // shown; otherwise only counted for total_candidates. One- and two-letter prefixes complete
  // to half the index: no signal, only cost.
  let uncounted = 0;
  const shownExact = parsed.qualifiers.length
    ? exactRows.filter((r) => qualifierMatch(r, parsed) > 0).length
    : exactRows.length;
  const showPrefix = shownExact < limit && (parsed.leaf.length >= 3 || exactRows.length === 0);
  const prefix = definitionsWithPrefix(db, leafLower, showPrefix ? PREFIX_ROWS : 0);
  // A bounded read that stopped at its cap makes the answer truncated, whatever the counts say.
  const bounds = { capped: prefix.capped };
  if (showPrefix) {
    // A longer completion is a weaker guess: up to 0.15 off for doubling the length.
    push(
      filterRows(prefix.rows, kind, language),
      () => "prefix",
      (r) => -0.15 * Math.min(1, (r.name.length - parsed.leaf.length) / parsed.leaf.length),
    );
    if (!kind && !language && !parsed.qualifiers.length) uncounted = prefix.total - prefix.rows.length;
  } else if (!kind && !language && !parsed.qualifiers.length) {
    uncounted = prefix.total;
  }

  let spellings: KnownSpellings | undefined;
  if (exactRows.length === 0) {
    const seen = new Set(candidates.map((c) => c.row.id));
    // Comparing a short name with every name of its length is for when nothing else answers.
    const lastResort = candidates.length === 0;
    const names = fuzzyNames(db, parsed.leaf, FUZZY_NAMES, bounds, lastResort);
    // Suggestions reuse only a lookup that went as far as their own would.
    if (lastResort) spellings = { leaf: parsed.leaf, names };
    for (const f of names) {
      const rows = filterRows(definitionsNamed(db, f.name_lower, TIER_ROWS), kind, language).filter((r) =>
        !seen.has(r.id)
      );
      // Each edit costs more than all signals together, so the closest spelling wins.
      push(rows, () => "fuzzy", () => -0.1 * f.distance);
    }
  }
  return { candidates, uncounted, bounds, spellings };
}

/** The candidates best first, after the qualifiers narrowed them (when some honour them) and signals adjusted. */
function rankCandidates(candidates: Candidate[], parsed: ParsedName): Candidate[] {
  let kept = candidates;
  if (parsed.qualifiers.length) {
    const q = new Map(candidates.map((c) => [c, qualifierMatch(c.row, parsed)]));
    const best = Math.max(0, ...q.values());
    if (best > 0) kept = candidates.filter((c) => q.get(c)! > 0);
    for (const c of kept) c.score += signals(c.row, q.get(c)!);
  } else {
    for (const c of kept) c.score += signals(c.row, 0);
  }
  kept.sort((a, b) => b.score - a.score || byCodeUnits(a.row.path, b.row.path) || a.row.line_start - b.row.line_start);
  return kept;
}

/** Full rows by id, for the few results shown. */
function round(x: number): number {
  return Math.round(Math.max(0, Math.min(1, x)) * 1000) / 1000;
}

function references(db: Db, leaf: string, language: string | undefined, n: number): LocatedSymbol[] {
  const rows = referencesOf(db, leaf, language, n);
  return rows.map((r) => ({
    symbol_id: r.symbol_id ?? resultId("snip", r.path, r.line, r.line),
    symbol_stable_id: r.stable_id ?? "",
    path: r.path,
    line_start: r.line,
    line_end: r.line,
    kind: "reference",
    name: r.target,
    qualified_name: r.qualified_name ?? "",
    signature: "",
    language: r.language,
    score: r.target === leaf ? 0.15 : 0.12,
    match: "reference" as const,
    match_tier: r.target === leaf ? "exact" as const : "case_insensitive" as const,
    reference_kind: r.kind,
  }));
}
