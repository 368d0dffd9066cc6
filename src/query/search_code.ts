/**
 * search_code: one query over symbols, code chunks and file paths.
 * Pipeline (each step its own module under `search/`):
 *   intent.ts (spec intent table) → fts_query.ts (safe MATCH expressions)
 *   → candidates.ts (BM25 / exact / literal sources) → fuse.ts (weighted RRF)
 *   → signals.ts (bounded named factors) → shape.ts (merge, aggregate, results).
 * Reads the index only; needs no Deno permission beyond the open database.
 */
import { parseLanguage, parsePathPrefix } from "./_input_rules.ts";
import { type Db, getMeta } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import { splitIdentifier } from "../core/identifiers.ts";
import { classifyIntent, type QueryIntent } from "./search/intent.ts";
import { queryTerms, searchTerms, truncateQuery } from "./search/fts_query.ts";
import { type ChunkHit, indexedLanguages, type SourceFilter } from "./search/candidates.ts";
import { identifierOf, sourceLists } from "./search/plan.ts";
import { fuse } from "./search/fuse.ts";
import { applySignals, kindsMentioned, type QueryFacts } from "./search/signals.ts";
import { aggregateFiles, attachSymbols, mergeOverlaps, type SearchResult, toResult } from "./search/shape.ts";
import { DEFAULT_RANKING, type RankingParams } from "./search/ranking_params.ts";
import { fileSymbolCounts } from "../state/file_stats.ts";

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
}

/** The search_code answer (without `metadata`, which the MCP layer adds). */
export interface SearchCodeResult {
  results: SearchResult[];
  query_intent: QueryIntent;
  total_candidates: number;
  suggested_next_actions: Record<string, unknown>[];
  truncated: boolean;
}

/** Default number of results. */
export const DEFAULT_LIMIT = 10;
/** Most results one call returns; larger limits are clamped to it. */
export const MAX_LIMIT = 100;

/**
 * Validates and normalizes inputs. Limit rules: missing → 10; a non-integer,
 * zero or negative limit → `invalid_input`; above 100 → clamped to 100.
 */
function normalizeInput(db: Db, input: SearchCodeInput) {
  if (typeof input.query !== "string" || !input.query.trim()) {
    throw new CruxeError("invalid_input", "query must be a non-empty string", { field: "query" });
  }
  const rawLimit = input.limit ?? input.topK ?? DEFAULT_LIMIT;
  if (typeof rawLimit !== "number" || !Number.isFinite(rawLimit) || !Number.isInteger(rawLimit) || rawLimit < 1) {
    throw new CruxeError("invalid_input", `limit must be a positive integer (got ${String(rawLimit)})`, {
      field: "limit",
      max: MAX_LIMIT,
    });
  }
  const limit = Math.min(rawLimit, MAX_LIMIT);
  const language = input.language === undefined || input.language === null
    ? undefined
    : parseLanguage(input.language, indexedLanguages(db).sort());
  const pathPrefix = input.path_prefix !== undefined
    ? parsePathPrefix(input.path_prefix, "path_prefix", getMeta(db, "repo_root"))
    : parsePathPrefix(input.pathPrefix, "pathPrefix", getMeta(db, "repo_root"));
  const explain = input.ranking_explain_level ?? "off";
  if (!["off", "basic", "full"].includes(explain)) {
    throw new CruxeError("invalid_input", `ranking_explain_level must be off, basic or full`, {
      field: "ranking_explain_level",
    });
  }
  return { limit, language, pathPrefix, explain };
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
  const { text } = truncateQuery(input.query.trim());
  const intent = classifyIntent(text);
  const qTerms = queryTerms(text);
  const terms = searchTerms(qTerms);
  const filter: SourceFilter = { language: opts.language, pathPrefix: opts.pathPrefix };
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
  const fileSymbols = ranking.fileSizePrior > 0 && intent === "natural_language"
    ? fileSymbolCounts(db, [...new Set(units.map((u) => u.path))])
    : undefined;
  const ranked = mergeOverlaps(applySignals(units, facts, ranking, fileSymbols));
  const final = aggregateFiles(
    ranked,
    intent === "natural_language" || intent === "path",
    intent === "symbol" ? 3 : 2,
    intent === "path",
    ranking.fileAggregate,
  );
  const snippetTerms = terms.concat(ident ? splitIdentifier(ident.leaf) : []);
  const results = final.slice(0, opts.limit).map((u) => toResult(db, u, snippetTerms, opts.explain));
  return {
    results,
    query_intent: intent,
    total_candidates: final.length,
    suggested_next_actions: nextActions(results, text, intent, input.ref),
    truncated: final.length > results.length,
  };
}

/** Follow-up calls an agent can make as-is. */
function nextActions(results: SearchResult[], query: string, intent: QueryIntent, ref?: string) {
  const withRef = (o: Record<string, unknown>) => (ref ? { ...o, ref } : o);
  const out: Record<string, unknown>[] = [];
  const top = results[0];
  if (!top) {
    const words = splitIdentifier(query).slice(0, 4).join(" ");
    if (words && words !== query) out.push(withRef({ tool: "search_code", query: words, limit: 10 }));
    return out;
  }
  if (top.name) out.push(withRef({ tool: "locate_symbol", name: top.name, limit: 5 }));
  out.push(withRef({ tool: "get_file_outline", path: top.path, depth: "top" }));
  if (intent !== "symbol" && top.name) {
    out.push(withRef({ tool: "get_code_context", query: top.name, max_tokens: 4000 }));
  }
  return out;
}
