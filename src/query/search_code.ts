/**
 * search_code: one query over symbols, code chunks and file paths.
 * Pipeline (each step its own module under `search/`):
 *   intent.ts (spec intent table) → fts_query.ts (safe MATCH expressions)
 *   → candidates.ts (BM25 / exact / literal sources) → fuse.ts (weighted RRF)
 *   → signals.ts (bounded named factors) → shape.ts (merge, aggregate, results).
 * Reads the index only; needs no Deno permission beyond the open database.
 */
import type { Db } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import { splitIdentifier } from "../core/identifiers.ts";
import { classifyIntent, looksLikePath, type QueryIntent, quotedLiterals } from "./search/intent.ts";
import { anyOf, anyPrefixOf, phraseOf, queryTerms, searchTerms, truncateQuery } from "./search/fts_query.ts";
import {
  chunkSource,
  exactNameSource,
  filesFromChunks,
  fileSource,
  indexedLanguages,
  literalSource,
  pathSuffixSource,
  type SourceFilter,
  symbolSource,
} from "./search/candidates.ts";
import { fuse, type RankedList } from "./search/fuse.ts";
import { applySignals, kindsMentioned, type QueryFacts } from "./search/signals.ts";
import { aggregateFiles, attachSymbols, mergeOverlaps, type SearchResult, toResult } from "./search/shape.ts";

export type { SearchResult } from "./search/shape.ts";
export type { QueryIntent } from "./search/intent.ts";

/** Inputs of search_code (`topK` is an alias of `limit` used by the multi-repo contract). */
export interface SearchCodeInput {
  query: string;
  language?: string;
  limit?: number;
  topK?: number;
  pathPrefix?: string;
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

/** Spellings of language ids agents commonly send. */
const LANGUAGE_ALIASES: Record<string, string> = {
  golang: "go",
  py: "python",
  python3: "python",
  ts: "typescript",
  js: "javascript",
  node: "javascript",
  rs: "rust",
  "c++": "cpp",
  cxx: "cpp",
  "c#": "csharp",
  cs: "csharp",
  rb: "ruby",
  sh: "bash",
  shell: "bash",
  ex: "elixir",
  hs: "haskell",
  kt: "kotlin",
};

/** Language ids Cruxe knows even when this index holds none of their files. */
const KNOWN_LANGUAGES = new Set([
  "go",
  "python",
  "typescript",
  "tsx",
  "javascript",
  "rust",
  "java",
  "c",
  "cpp",
  "csharp",
  "ruby",
  "php",
  "bash",
  "scala",
  "elixir",
  "haskell",
  "swift",
  "kotlin",
  "lua",
  "zig",
  "text",
]);

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
  let language: string | undefined;
  if (input.language !== undefined && input.language !== null && String(input.language).trim()) {
    const l = String(input.language).trim().toLowerCase();
    language = LANGUAGE_ALIASES[l] ?? l;
    const present = indexedLanguages(db);
    if (!present.includes(language) && !KNOWN_LANGUAGES.has(language)) {
      throw new CruxeError("invalid_input", `Unknown language "${input.language}"`, {
        field: "language",
        indexed_languages: present.sort(),
      });
    }
  }
  let pathPrefix: string | undefined;
  if (typeof input.pathPrefix === "string" && input.pathPrefix.trim()) {
    pathPrefix = input.pathPrefix.trim().replace(/^\.\//, "").replace(/^\/+/, "");
  }
  const explain = input.ranking_explain_level ?? "off";
  if (!["off", "basic", "full"].includes(explain)) {
    throw new CruxeError("invalid_input", `ranking_explain_level must be off, basic or full`, {
      field: "ranking_explain_level",
    });
  }
  return { limit, language, pathPrefix, explain };
}

/** Depth of each source's list. */
const DEPTH = { symbols: 60, chunks: 150, chunksDeep: 400, files: 40, exact: 40, literal: 60 };

/** Code-shaped words inside a prose query: snake_case, camelCase, dotted calls. */
function codeIdentifiers(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/g)) {
    const leaf = m[0].slice(m[0].lastIndexOf(".") + 1);
    if (
      leaf.length >= 3 && (/[a-z0-9]_[a-z0-9]/i.test(leaf) || /[a-z][A-Z]/.test(leaf) || /^[A-Z][a-z]+[A-Z]/.test(leaf))
    ) {
      out.add(leaf);
    }
  }
  return [...out].slice(0, 8);
}

/** The identifier a symbol query names and its qualifiers (`auth::jwt::validate` → validate, [auth, jwt]). */
function identifierOf(q: string): { leaf: string; qualifiers: string[] } {
  const parts = q.replace(/\(\)$/, "").split(/::|\.|#|->/).filter(Boolean);
  return { leaf: parts[parts.length - 1] ?? q, qualifiers: parts.slice(0, -1) };
}

function lists(db: Db, text: string, intent: QueryIntent, terms: string[], f: SourceFilter): RankedList[] {
  const out: RankedList[] = [];
  const any = anyOf(terms);
  // Prose gets light stemming through prefix terms (`serializes` also finds `serializer`).
  const loose = intent === "natural_language" ? anyPrefixOf(terms) : any;
  const sym = (source: string, weight: number, depth = DEPTH.symbols) => {
    if (any) {
      out.push({ source, weight, items: symbolSource(db, any, f, depth).map((hit) => ({ kind: "symbol", hit })) });
    }
  };
  const chunks = (source: string, weight: number, expr = loose, depth = DEPTH.chunks) => {
    if (expr) {
      out.push({ source, weight, items: chunkSource(db, expr, f, depth).map((hit) => ({ kind: "chunk", hit })) });
    }
  };
  const files = (source: string, weight: number) => {
    if (any) {
      out.push({ source, weight, items: fileSource(db, any, f, DEPTH.files).map((hit) => ({ kind: "file", hit })) });
    }
  };
  switch (intent) {
    case "symbol": {
      const { leaf } = identifierOf(text);
      out.push({
        source: "exact_name",
        weight: 3,
        items: exactNameSource(db, [leaf], f, DEPTH.exact).map((hit) => ({ kind: "symbol", hit })),
      });
      sym("symbols", 2);
      chunks("chunks", 1);
      files("files", 0.5);
      break;
    }
    case "path": {
      const token = text.split(/\s+/).find((t) => looksLikePath(t)) ?? text;
      out.push({
        source: "path_suffix",
        weight: 3,
        items: pathSuffixSource(db, token, f, DEPTH.files).map((hit) => ({ kind: "file", hit })),
      });
      files("files", 2);
      chunks("chunks", 0.5);
      break;
    }
    case "error": {
      const literals = quotedLiterals(text);
      const targets = literals.length ? literals : [firstLine(text)];
      const literalHits = targets.flatMap((l) => literalSource(db, l, phraseOf(l), f, DEPTH.literal));
      out.push({ source: "literal", weight: 3, items: literalHits.map((hit) => ({ kind: "chunk", hit })) });
      chunks("chunks", 1.5);
      sym("symbols", 0.5, 30);
      break;
    }
    default: {
      if (loose) {
        // One deeper chunk list serves both the chunk ranking and the per-file evidence.
        const hits = chunkSource(db, loose, f, DEPTH.chunksDeep);
        out.push({
          source: "chunks",
          weight: 1.5,
          items: hits.slice(0, DEPTH.chunks).map((hit) => ({ kind: "chunk", hit })),
        });
        out.push({
          source: "file_evidence",
          weight: 2,
          items: filesFromChunks(hits).map((hit) => ({ kind: "file", hit })),
        });
      }
      // Identifiers written inside prose (`how bats_pipe chains ...`) name definitions.
      const idents = codeIdentifiers(text);
      if (idents.length) {
        out.push({
          source: "exact_name",
          weight: 1.5,
          items: exactNameSource(db, idents, f, DEPTH.exact).map((hit) => ({ kind: "symbol", hit })),
        });
        // The same identifiers as whole words of code: finds them where no symbol table exists.
        chunks("identifier_text", 1, anyOf(idents.map((i) => i.toLowerCase())), 40);
      }
      sym("symbols", 1);
      files("files", 1);
      const phrase = terms.length >= 2 ? phraseOf(text) : null;
      if (phrase) chunks("phrase", 0.75, phrase, 40);
    }
  }
  return out;
}

/** The message part of an error query: its first non-empty line, without a `Foo: ` style prefix of a trace. */
function firstLine(text: string): string {
  const line = text.split("\n").map((l) => l.trim()).find(Boolean) ?? text;
  return line.replace(/^(\w+(Error|Exception)|panic|error(\[E\d+\])?):\s*/i, "").slice(0, 200);
}

/** Runs one search_code query against one project index. */
export function searchCode(db: Db, input: SearchCodeInput): SearchCodeResult {
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
    kinds: kindsMentioned(words),
    mentionsTests: words.some((w) => /^(tests?|spec|specs|testing|mock|mocks|fixture|fixtures)$/.test(w)),
  };
  const units = [...fuse(lists(db, text, intent, terms, filter)).values()];
  attachSymbols(db, units);
  const ranked = mergeOverlaps(applySignals(units, facts));
  const final = aggregateFiles(
    ranked,
    intent === "natural_language" || intent === "path",
    intent === "symbol" ? 3 : 2,
    intent === "path",
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
