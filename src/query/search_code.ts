/**
 * search_code: one query over symbols, code chunks and file paths.
 * Pipeline (each step its own module under `search/`):
 *   intent.ts (spec intent table) → fts_query.ts (safe MATCH expressions)
 *   → candidates.ts (BM25 / exact / literal sources) → fuse.ts (weighted RRF)
 *   → signals.ts (bounded named factors) → shape.ts (merge, aggregate, results).
 * Reads the index only; needs no Deno permission beyond the open database.
 */
import { parseEnum, parseLanguage, parseLimit, parsePathPrefix, requireQuery } from "./_input_rules.ts";
import { type Db, getMeta } from "../state/db.ts";
import { generatedPaths } from "../state/read/file_flags.ts";
import { splitIdentifier } from "../core/identifiers.ts";
import { classifyIntent, type QueryIntent } from "./search/intent.ts";
import { lightStem, queryTerms, searchTerms } from "./search/fts_query.ts";
import type { ChunkHit, SourceFilter } from "./search/candidates.ts";
import { indexedLanguages } from "../state/read/files.ts";
import { identifierOf, sourceLists } from "./search/plan.ts";
import { fuse } from "./search/fuse.ts";
import { applySignals, kindsMentioned, type QueryFacts } from "./search/signals.ts";
import { aggregateFiles, attachSymbols, mergeOverlaps, type SearchResult, toResult } from "./search/shape.ts";
import { DEFAULT_RANKING, type RankingParams } from "./search/ranking_params.ts";
import { fileSymbolCounts } from "../state/read/file_stats.ts";

import {
  type ResolvedScope,
  type ScopeDeps,
  type ScopedHit,
  type ScopedSearchResult,
  type SearchFn,
  searchScope,
} from "./multi_repo.ts";
import { LIMITS } from "./limits.ts";
import { TOOL } from "../core/tool_names.ts";

export type { SearchResult } from "./search/shape.ts";
export type { QueryIntent } from "./search/intent.ts";

/** Inputs of search_code (`topK` is an alias of `limit` used by the multi-repo contract). */
export interface SearchCodeInput {
  query: string;
  language?: string;
  limit?: number;
  topK?: number;
  /** Only results under this relative directory or path prefix (`path_prefix` is the same filter's other name). */
  pathPrefix?: string;
  path_prefix?: string;
  ref?: string;
  ranking_explain_level?: "off" | "basic" | "full";
  /** Also say how each result joined its symbol (`join_status`), and the counts in `debug`. */
  debug?: boolean;
}

/** The debug block of an answer asked with `debug: true`: how many results joined a symbol row, how many did not. */
export interface SearchDebug {
  join_status: { hits: number; misses: number };
}

/** The search_code answer (without `metadata`, which the MCP layer adds). */
export interface SearchCodeResult {
  results: SearchResult[];
  query_intent: QueryIntent;
  total_candidates: number;
  suggested_next_actions: Record<string, unknown>[];
  /** More results existed than `limit` returned. */
  truncated: boolean;
  /** The query was longer than MAX_QUERY_CHARS and was cut before use. */
  query_truncated: boolean;
  /** Present when a candidate read stopped at its row cap (terms found nearly everywhere): the answer is partial. */
  meta?: { result_completeness: "partial"; note: string };
  /** Present with `debug: true`. */
  debug?: SearchDebug;
}

/** What a partial answer says about why. */
export const CAPPED_NOTE = "The query's words are found in very many places; only part of the index was ranked. " +
  "Add a rarer word, an identifier, `language` or `path_prefix` to narrow it.";

/** Default number of results. */
export const DEFAULT_LIMIT = LIMITS.search.default;
/** Most results one call returns; larger limits are clamped to it. */
export const MAX_LIMIT = LIMITS.search.max;

const EXPLAIN_LEVELS = ["off", "basic", "full"] as const;

/**
 * The one precedence rule for the two names of one argument: the canonical
 * name wins over its alias (`limit` over `topK`, `path_prefix` over
 * `pathPrefix`), whichever path (scoped or not) reads them.
 */
export function canonicalFirst<T>(canonical: T | undefined, alias: T | undefined): T | undefined {
  return canonical !== undefined && canonical !== null ? canonical : alias;
}

/** The result count of a call: `limit` (or its alias `topK`) by `parseLimit`'s rule (default 10, clamped to 100). */
export function searchLimit(input: { limit?: unknown; topK?: unknown }): number {
  const field = input.limit !== undefined && input.limit !== null ? "limit" : "topK";
  return parseLimit(canonicalFirst(input.limit, input.topK), DEFAULT_LIMIT, MAX_LIMIT, field);
}

/** The path-prefix filter of a call, under `parsePathPrefix`'s rule, named after the field it came from. */
function pathPrefixOf(input: SearchCodeInput, root: string | null | undefined): string | undefined {
  return input.path_prefix !== undefined
    ? parsePathPrefix(input.path_prefix, "path_prefix", root)
    : parsePathPrefix(input.pathPrefix, "pathPrefix", root);
}

/**
 * Validates and normalizes inputs with the rules every tool shares
 * (`_input_rules.ts`): query required and cut, limit by `searchLimit`,
 * language among the indexed ones, path prefix relative to the root.
 */
function normalizeInput(db: Db, input: SearchCodeInput) {
  const query = requireQuery(input.query);
  const limit = searchLimit(input);
  const language = input.language === undefined || input.language === null
    ? undefined
    : parseLanguage(input.language, indexedLanguages(db).sort());
  const pathPrefix = pathPrefixOf(input, getMeta(db, "repo_root"));
  const explain = parseEnum(input.ranking_explain_level, "ranking_explain_level", EXPLAIN_LEVELS, "off");
  return { query, limit, language, pathPrefix, explain };
}

/**
 * Runs one search_code query against one project index. `ranking` replaces
 * the default ranking parameters (evaluation only; answers use the default).
 * `semantic` is the optional semantic layer's nearest chunks, best first,
 * fused as one more source.
 */
export function searchCode(
  db: Db,
  input: SearchCodeInput,
  ranking: Readonly<RankingParams> = DEFAULT_RANKING,
  semantic: ChunkHit[] = [],
): SearchCodeResult {
  const opts = normalizeInput(db, input);
  const text = opts.query.text;
  const intent = classifyIntent(text);
  const qTerms = queryTerms(text);
  const terms = searchTerms(qTerms);
  const filter: SourceFilter = { language: opts.language, pathPrefix: opts.pathPrefix, bounds: { capped: false } };
  const ident = intent === "symbol" ? identifierOf(text) : undefined;
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  const facts: QueryFacts = {
    intent,
    terms: terms.filter((t) => !/^\d+$/.test(t)),
    identifier: ident?.leaf,
    qualifiers: ident?.qualifiers ?? [],
    qualifiedText: ident?.qualifiers.length ? text : undefined,
    kinds: kindsMentioned(words),
    mentionsTests: words.some((w) => /^(tests?|spec|specs|testing|mock|mocks|fixture|fixtures)$/.test(w)),
  };
  const lists = sourceLists(db, text, intent, filter, ranking.prose);
  const near = semantic.filter((h) =>
    (!filter.language || h.language === filter.language) && (!filter.pathPrefix || h.path.startsWith(filter.pathPrefix))
  );
  if (near.length) {
    lists.push({ source: "semantic", weight: ranking.semantic, items: near.map((hit) => ({ kind: "chunk", hit })) });
  }
  const units = [...fuse(lists, ranking.rrfK).values()];
  attachSymbols(db, units);
  const generated = generatedPaths(db, units.map((u) => u.path));
  const fileSymbols = ranking.fileSizePrior > 0 && intent === "natural_language"
    ? fileSymbolCounts(db, [...new Set(units.map((u) => u.path))])
    : undefined;
  const ranked = mergeOverlaps(applySignals(units, facts, ranking, fileSymbols, generated));
  const final = aggregateFiles(
    ranked,
    intent === "natural_language" || intent === "path",
    intent === "symbol" ? 3 : 2,
    intent === "path",
    ranking.fileAggregate,
  );
  // Stems too: `serializes` shows the line saying `serializer`.
  const stems = terms.map(lightStem).filter((t) => t.length >= 4);
  const snippetTerms = terms.concat(stems, ident ? splitIdentifier(ident.leaf) : []);
  const results = final.slice(0, opts.limit).map((u) => {
    const r = toResult(db, u, snippetTerms, opts.explain);
    if (input.debug === true) r.join_status = joinStatus(u);
    return generated.has(u.path) ? { ...r, generated: true } : r;
  });
  return {
    results,
    query_intent: intent,
    total_candidates: final.length,
    suggested_next_actions: nextActions(results, text, intent, input.ref),
    truncated: final.length > results.length || filter.bounds!.capped,
    query_truncated: opts.query.truncated,
    ...(filter.bounds!.capped ? { meta: { result_completeness: "partial" as const, note: CAPPED_NOTE } } : {}),
    ...(input.debug === true ? { debug: debugBlock(results) } : {}),
  };
}

/**
 * How a ranked unit joined the symbol table: `hit` when it carries its
 * symbol's row (found as a symbol, or a chunk whose symbol row loaded),
 * `miss` when it has none (a chunk outside every symbol, a file, a symbol
 * row no longer there).
 */
function joinStatus(u: { symbol?: unknown }): "hit" | "miss" {
  return u.symbol ? "hit" : "miss";
}

/** The answer's debug block: the results' join statuses counted. */
export function debugBlock(results: { join_status?: "hit" | "miss" }[]): SearchDebug {
  const hits = results.filter((r) => r.join_status === "hit").length;
  return { join_status: { hits, misses: results.length - hits } };
}

/** The scoped search_code answer: the unscoped shape plus `meta` (scope, per-repository status). */
export interface ScopedSearchCodeResult extends Omit<SearchCodeResult, "results" | "meta"> {
  results: ScopedHit[];
  meta: {
    scope: ResolvedScope["scope"];
    topK: number;
    pathPrefix: string | null;
    result_completeness: ScopedSearchResult["result_completeness"];
    repos: ScopedSearchResult["repos"];
  };
}

/** search_code in one repository of a scope: the lexical search, with the scope's per-repository input. */
export const searchOneRepo: SearchFn = (db, i) =>
  searchCode(db, { query: i.query, limit: i.limit, language: i.language, pathPrefix: i.pathPrefix, debug: i.debug });

/**
 * search_code over the repositories of `resolved`, merged (`searchScope`),
 * with the same fields as an unscoped answer; follow-up actions name the
 * workspace of the hit they follow. `search` runs the query in one repository
 * (default: the lexical `searchOneRepo`; the server passes one that fuses its
 * semantic layer's hits).
 */
export async function searchCodeInScope(
  deps: ScopeDeps,
  resolved: ResolvedScope,
  input: SearchCodeInput,
  search: SearchFn = searchOneRepo,
): Promise<ScopedSearchCodeResult> {
  const query = requireQuery(input.query);
  const topK = searchLimit(input);
  // No single root in a scope: an absolute prefix is refused rather than made relative.
  const pathPrefix = pathPrefixOf(input, undefined);
  const r = await searchScope(
    deps,
    resolved,
    { query: query.text, topK, language: input.language, pathPrefix, debug: input.debug === true },
    search,
  );
  const intent = classifyIntent(query.text);
  const top = r.results[0];
  const root = top && resolved.targets.find((t) => t.name === top.repo)?.project.repo_root;
  const actions = nextActions(r.results, query.text, intent, input.ref)
    .map((a) => (root ? { ...a, workspace: root } : a));
  return {
    results: r.results,
    query_intent: intent,
    total_candidates: r.total_candidates,
    suggested_next_actions: actions,
    truncated: r.total_candidates > r.results.length,
    query_truncated: query.truncated,
    meta: {
      scope: resolved.scope,
      topK,
      pathPrefix: pathPrefix ?? null,
      result_completeness: r.result_completeness,
      repos: r.repos,
    },
    ...(input.debug === true ? { debug: debugBlock(r.results) } : {}),
  };
}

/** Follow-up calls an agent can make as-is. */
function nextActions(
  results: { name?: string | null; path: string }[],
  query: string,
  intent: QueryIntent,
  ref?: string,
) {
  const withRef = (o: Record<string, unknown>) => (ref ? { ...o, ref } : o);
  const out: Record<string, unknown>[] = [];
  const top = results[0];
  if (!top) {
    const words = splitIdentifier(query).slice(0, 4).join(" ");
    if (words && words !== query) out.push(withRef({ tool: TOOL.search_code, query: words, limit: 10 }));
    return out;
  }
  if (top.name) out.push(withRef({ tool: TOOL.locate_symbol, name: top.name, limit: 5 }));
  out.push(withRef({ tool: TOOL.get_file_outline, path: top.path, depth: "top" }));
  if (intent !== "symbol" && top.name) {
    out.push(withRef({ tool: TOOL.get_code_context, query: top.name, max_tokens: 4000 }));
  }
  return out;
}
