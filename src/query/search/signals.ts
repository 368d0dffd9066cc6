/**
 * Bounded, explainable adjustments applied after fusion. Each signal is a
 * multiplier in a fixed range and is recorded under its name, so a ranking
 * can always be explained as fused evidence × named factors.
 */
import type { QueryIntent } from "./intent.ts";
import { byScore, type Unit } from "./fuse.ts";
import { splitIdentifier } from "../../core/identifiers.ts";
import { lightStem } from "./fts_query.ts";
import { isErrorSite } from "./error_text.ts";
import { isTestPath } from "../../core/test_paths.ts";
import { DEFAULT_RANKING, type RankingParams } from "./ranking_params.ts";
import { fileRole, queryNamesRole } from "./file_role.ts";
import { spelledAs } from "../_prefixed_names.ts";

/** What signals know about the query. */
export interface QueryFacts {
  intent: QueryIntent;
  /** Content terms (lower case, stop words removed). */
  terms: string[];
  /** The identifier the query names, for symbol intent (leaf of a qualified name). */
  identifier?: string;
  /** Qualifier parts of a qualified symbol query (`jwt` in `jwt::validate`). */
  qualifiers: string[];
  /** The qualified text as written (`Iterator::fold`), when there are qualifiers. */
  qualifiedText?: string;
  /** Kinds the query mentions (`class`, `function` ...). */
  kinds: Set<string>;
  mentionsTests: boolean;
}

const KIND_WORDS: Record<string, string[]> = {
  class: ["class"],
  struct: ["struct"],
  interface: ["interface", "protocol"],
  trait: ["trait"],
  enum: ["enum"],
  function: ["function", "func", "fn", "def"],
  method: ["method"],
  constructor: ["constructor", "ctor", "init"],
  type: ["type", "typedef", "alias"],
  macro: ["macro"],
  module: ["module", "package", "namespace"],
  constant: ["constant", "const"],
};

/** A qualified name with every separator as `.` and lower case, for suffix comparison. */
function normQualified(s: string): string {
  return "." + s.toLowerCase().replace(/::|#|->|\//g, ".").replace(/\(\)$/, "");
}

/** Kinds named by words of the query. */
export function kindsMentioned(words: string[]): Set<string> {
  const out = new Set<string>();
  for (const [kind, ws] of Object.entries(KIND_WORDS)) if (ws.some((w) => words.includes(w))) out.add(kind);
  return out;
}

const NON_CODE =
  /\.(md|rst|txt|adoc|json|ya?ml|toml|lock|csv|svg|html?)$|(^|\/)(docs?|_?examples?|samples?|vendor|third_?party|external|deps|benchmarks?)\//i;
const LEGACY = /(^|\/)(deprecated|legacy|obsolete)(\/|$)/i;
const DECLARATION_KINDS = new Set(["interface", "trait"]);
const TYPE_KINDS = new Set(["class", "struct", "interface", "trait", "enum", "type", "module", "namespace"]);

/**
 * Share of a file name the query covers: word by word for split names
 * (`rate_limiter`), by characters for run-together ones (`multipartparser`
 * is mostly `multipart` + `pars`).
 */
export function stemCoverage(stem: string, stems: Set<string>): number {
  const parts = [...new Set(splitIdentifier(stem))].filter((p) => !/^\d+$/.test(p));
  if (!parts.length) return 0;
  if (parts.length > 1) return parts.filter((p) => stems.has(lightStem(p))).length / parts.length;
  const word = parts[0];
  if (stems.has(lightStem(word))) return 1;
  if (word.length < 8) return 0;
  const covered = new Array(word.length).fill(false);
  for (const s of stems) {
    if (s.length < 4) continue;
    for (let at = word.indexOf(s); at >= 0; at = word.indexOf(s, at + 1)) {
      for (let i = at; i < at + s.length; i++) covered[i] = true;
    }
  }
  const share = covered.filter(Boolean).length / word.length;
  return share >= 0.6 ? share : 0;
}

function dirHits(dir: string, stems: Set<string>): number {
  const words = new Set(splitIdentifier(dir).map(lightStem));
  return [...stems].filter((t) => words.has(t)).length;
}

function factor(u: Unit, name: string, f: number): void {
  if (f === 1) return;
  u.reasons[name] = Math.round(f * 1000) / 1000;
  u.score *= f;
}

/** Names of a type's companion declarations: `RouterOptions`, `ButtonProps`, `ServerConfig` … */
const COMPANION = /^([A-Za-z0-9_]{3,}?)(Options|Opts|Props|Config|Configuration|Settings|Params|Args|Init|Hooks)$/;

/**
 * For each candidate named like a companion of a type that is also a
 * candidate (`RouterOptions` beside `WorkspaceRouter` or `Router`), that
 * type's name: the question is about the type, its options come second.
 */
export function companionsOfCandidateTypes(units: Unit[]): Map<Unit, string> {
  const types = new Set<string>();
  for (const u of units) if (u.symbol && TYPE_KINDS.has(u.symbol.kind)) types.add(u.symbol.name);
  const out = new Map<Unit, string>();
  for (const u of units) {
    const m = u.symbol ? COMPANION.exec(u.symbol.name) : null;
    if (!m) continue;
    for (const t of types) {
      if (t !== u.symbol!.name && (t === m[1] || t.endsWith(m[1]))) {
        out.set(u, t);
        break;
      }
    }
  }
  return out;
}

const HEADER = /\.(h|hh|hpp|hxx)$/i;
const SOURCE = /\.(c|cc|cpp|cxx|c\+\+|m|mm)$/i;
const fileStem = (path: string) => path.slice(path.lastIndexOf("/") + 1).replace(/\.[^.]*$/, "").toLowerCase();

/**
 * Paths of C-family headers (`lib/ae.h`) among the candidates whose source
 * file of the same name (`lib/ae.c`, in any directory) is a candidate too.
 */
export function headersWithSource(units: Unit[]): Set<string> {
  const sources = new Set(units.filter((u) => SOURCE.test(u.path)).map((u) => fileStem(u.path)));
  return new Set(units.filter((u) => HEADER.test(u.path) && sources.has(fileStem(u.path))).map((u) => u.path));
}

/**
 * Paths of candidate files named like a directory that also holds
 * candidates (`lib/socket.ex` when `lib/socket/transport.ex` is one): the
 * module's own file beside its parts.
 */
export function moduleEntries(units: Unit[]): Set<string> {
  const dirs = new Set<string>();
  for (const u of units) {
    for (let i = u.path.indexOf("/"); i > 0; i = u.path.indexOf("/", i + 1)) dirs.add(u.path.slice(0, i));
  }
  return new Set(units.map((u) => u.path).filter((p) => dirs.has(p.replace(/\.[^./]*$/, ""))));
}

/**
 * Per path, the share of `terms` (lower-case word stems) that occur in the
 * text of at least one of the path's candidate passages (chunk text or
 * symbol name). Only paths with at least one passage are listed.
 */
export function fileTermCoverage(units: Unit[], terms: string[]): Map<string, number> {
  const found = new Map<string, Set<string>>();
  if (!terms.length) return new Map();
  for (const u of units) {
    const text = (u.chunk?.content ?? u.symbol?.name ?? "").toLowerCase();
    if (!text) continue;
    const set = found.get(u.path) ?? new Set<string>();
    for (const t of terms) if (!set.has(t) && text.includes(t)) set.add(t);
    found.set(u.path, set);
  }
  return new Map([...found].map(([path, set]) => [path, set.size / terms.length]));
}

/** What the prose-only file factors know about the candidate files. */
interface FileFacts {
  headers: Set<string>;
  entries: Set<string>;
  coverage: Map<string, number> | null;
}

function fileFacts(units: Unit[], q: QueryFacts, p: Readonly<RankingParams>): FileFacts {
  return {
    headers: p.headerWithSource !== 1 ? headersWithSource(units) : new Set(),
    entries: p.moduleEntry ? moduleEntries(units) : new Set(),
    coverage: p.fileCoverage ? fileTermCoverage(units, [...new Set(q.terms.map(lightStem))]) : null,
  };
}

/**
 * Factors from where a unit's file sits and what it holds, for prose
 * questions: directory depth, and (when their parameters are on) a header
 * beside its source, a module's own file, the file's coverage of the query.
 */
function fileShapeFactors(u: Unit, p: Readonly<RankingParams>, files: FileFacts | null): void {
  if (!files) return;
  if (files.headers.has(u.path)) factor(u, "header_with_source", p.headerWithSource);
  if (files.coverage) factor(u, "file_coverage", 1 + p.fileCoverage * (files.coverage.get(u.path) ?? 0));
  if (files.entries.has(u.path)) factor(u, "module_entry", 1 + p.moduleEntry);
  if (p.depthPenalty) factor(u, "depth", 1 / (1 + p.depthPenalty * (u.path.split("/").length - 1)));
}

/**
 * Applies every signal to every unit (in place) and returns them sorted best
 * first. `fileSymbols` (symbols defined per path) feeds the file-size prior;
 * `generated`: paths a generator wrote (ranked below hand-written code).
 */
export function applySignals(
  units: Unit[],
  q: QueryFacts,
  p: Readonly<RankingParams> = DEFAULT_RANKING,
  fileSymbols?: Map<string, number>,
  generated: ReadonlySet<string> = new Set(),
): Unit[] {
  const companions = companionsOfCandidateTypes(units);
  const files = q.intent === "natural_language" ? fileFacts(units, q, p) : null;
  const termSet = new Set(q.terms);
  const stemSet = new Set(q.terms.map(lightStem));
  if (q.identifier) { for (const p of splitIdentifier(q.identifier)) stemSet.add(lightStem(p)); }
  const place = { stemSet, companions, fileSymbols, generated, files, pathAffinity: new Map<string, number>() };
  for (const u of units) {
    u.score = u.fused;
    symbolSignals(u, q, termSet);
    placeSignals(u, q, p, place);
  }
  return units.sort(byScore);
}

/** Signals of what the unit defines: its name against the query's, qualifiers, definition and kind. */
function symbolSignals(u: Unit, q: QueryFacts, termSet: ReadonlySet<string>): void {
  const sym = u.symbol;
  // Exact name match: the query names this symbol.
  if (sym && q.identifier) {
    // A qualified name spelled as the query (Kconfig's `FOO` asked for as `CONFIG_FOO`) names it too.
    const exact = spelledAs(sym, q.identifier);
    const ci = sym.name.toLowerCase() === q.identifier.toLowerCase();
    if (exact || ci) {
      factor(u, "exact_name", exact ? 2.0 : 1.4);
      // An impl block carries the type's name but is not where the type is defined.
      if (sym.kind === "impl") factor(u, "impl_block", 0.6);
      // Definition of a type beats a same-named field or variable.
      if (TYPE_KINDS.has(sym.kind) || sym.kind === "function") factor(u, "definition_kind", 1.2);
      if (sym.parent_id === null) factor(u, "top_level", 1.1);
    }
  } else if (sym && q.intent === "natural_language" && termSet.size) {
    const parts = new Set(splitIdentifier(sym.name));
    const covered = [...parts].filter((p) => termSet.has(p)).length;
    if (parts.size && covered === parts.size) factor(u, "name_in_query", 1.25);
  }
  // Qualifiers (`bufio` of `bufio.Scanner`) are compared word for word with the qualified name and
  // the path (`vec` is not `vec_deque`); a written-out suffix (`Iterator::fold`) is the strongest match.
  if (q.qualifiers.length) {
    const words = new Set(
      [...(sym?.qualified_name.split(/::|[.#/\\]|->/) ?? []), ...u.path.replace(/\.[^./]*$/, "").split("/")]
        .map((w) => w.toLowerCase()),
    );
    const hit = q.qualifiers.filter((p) => words.has(p.toLowerCase())).length;
    factor(u, "qualifier_match", hit ? 1 + hit / q.qualifiers.length : 0.6);
    if (sym && q.qualifiedText && normQualified(sym.qualified_name).endsWith(normQualified(q.qualifiedText))) {
      factor(u, "qualified_suffix", 1.5);
    }
  }
  // Definition over reference: a unit that is a symbol body is a definition site.
  if (u.symbolRow !== undefined) factor(u, "definition", 1.1);
  if (sym && q.kinds.size && q.kinds.has(sym.kind)) factor(u, "kind_match", 1.3);
  // For prose, an implementation answers "how" better than the interface declaring it.
  if (sym && q.intent === "natural_language" && DECLARATION_KINDS.has(sym.kind) && !q.kinds.has(sym.kind)) {
    factor(u, "declaration_only", 0.75);
  }
}

/**
 * Signals of where the unit is: path affinity, error sites, companions, file size, the prose file factors, tests,
 * non-code, legacy, generated.
 */
function placeSignals(
  u: Unit,
  q: QueryFacts,
  p: Readonly<RankingParams>,
  c: {
    stemSet: Set<string>;
    companions: ReadonlyMap<Unit, string>;
    fileSymbols?: Map<string, number>;
    generated: ReadonlySet<string>;
    files: FileFacts | null;
    /** Path affinity factors already worked out, by path (units of one file share theirs). */
    pathAffinity: Map<string, number>;
  },
): void {
  const { stemSet, companions, fileSymbols, generated, files } = c;
  const sym = u.symbol;
  // Path affinity: how much of the file name the query says, and query words in directories.
  if (stemSet.size) {
    const slash = u.path.lastIndexOf("/");
    const stem = u.path.slice(slash + 1).replace(/\.[^.]*$/, "");
    let f = c.pathAffinity.get(u.path);
    if (f === undefined) {
      f = 1 + p.pathAffinity * stemCoverage(stem, stemSet) +
        p.dirAffinity * Math.min(1, dirHits(u.path.slice(0, Math.max(0, slash)), stemSet) / stemSet.size);
      c.pathAffinity.set(u.path, f);
    }
    factor(u, "path_affinity", f);
    if (q.identifier && stem.toLowerCase() === q.identifier.toLowerCase()) factor(u, "file_named_after_symbol", 1.5);
  }
  // The line a literal matched raises or defines the message (not a test asserting it).
  if (u.focus && u.chunk) {
    const line = u.chunk.content.split("\n")[u.focus[0] - u.chunk.line_start] ?? "";
    if (isErrorSite(line)) factor(u, "error_site", 1.3);
  }
  // `RouterOptions` when `WorkspaceRouter` is a candidate too: the type first, unless the query names the companion.
  if (companions.has(u) && q.identifier !== sym?.name) factor(u, "companion_of_type", 0.6);
  if (fileSymbols && q.intent === "natural_language") {
    factor(
      u,
      "file_size_prior",
      1 + p.fileSizePrior * Math.min(1, Math.log10(1 + (fileSymbols.get(u.path) ?? 0)) / 2.5),
    );
  }
  fileShapeFactors(u, p, files);
  if (p.rolePrior && q.intent === "natural_language") {
    const role = fileRole(u.path, fileSymbols ? (fileSymbols.get(u.path) ?? 0) : undefined);
    if (role !== "definition" && !queryNamesRole(role, q.terms)) factor(u, `role_${role}`, 1 - p.rolePrior);
  }
  if (!q.mentionsTests && isTestPath(u.path)) factor(u, "test_penalty", p.testPenalty);
  if (NON_CODE.test(u.path) && q.intent !== "path") factor(u, "non_code_penalty", 0.5);
  if (LEGACY.test(u.path) && !q.terms.some((t) => LEGACY.test(t))) factor(u, "legacy_penalty", 0.8);
  if (generated.has(u.path)) factor(u, "generated_penalty", 0.5);
}
