/**
 * Which sources answer a query, with which weight, per intent (the
 * index priority): symbol → symbols first; path → files first; error →
 * literal snippets first; natural language → all three, plus per-file
 * evidence. Every MATCH expression is built from planned terms only.
 */
import type { Db } from "../../state/db.ts";
import { splitIdentifier } from "../../core/identifiers.ts";
import { looksLikePath, type QueryIntent } from "./intent.ts";
import {
  allOf,
  anyOf,
  anyPlanned,
  COMMON_FLOOR,
  COMMON_SHARE,
  inColumns,
  MAX_TERMS,
  phraseOf,
  type PlannedTerm,
  planTerms,
  queryTerms,
  ROW_BUDGET,
  searchTerms,
} from "./fts_query.ts";
import {
  type ChunkHit,
  chunkSource,
  exactNameSource,
  filesFromChunks,
  fileSource,
  literalSource,
  pathSuffixSource,
  type SourceFilter,
  type SymbolHit,
  symbolSource,
} from "./candidates.ts";
import type { RankedList } from "./fuse.ts";
import { type TermStats, termStats } from "./term_stats.ts";
import type { MatchCount } from "../../state/read/search.ts";
import { isErrorSite, literalFragments, messageText } from "./error_text.ts";
import { isTestPath } from "../../core/test_paths.ts";
import { DEFAULT_RANKING, type ProseWeights, type RankingParams } from "./ranking_params.ts";
import { feedbackTerms } from "./prf.ts";
import { associatedTerms } from "./associations.ts";
import { prefixedRows } from "../_prefixed_names.ts";

const plannedRows = (terms: PlannedTerm[]) => terms.reduce((n, t) => n + t.df, 0);

/**
 * What the term statistics say of how many chunks an OR of `terms` matches:
 * at most the sum of their counts (when terms were counted at all), at least
 * the largest count of one exact word (when the counts are of matches) or
 * the largest number of chunks a prefix surely matches (`prefixAtLeast`).
 */
export function chunkMatches(terms: PlannedTerm[], stats: Pick<TermStats, "counts" | "prefixAtLeast">): MatchCount {
  if (!stats.counts || stats.counts === "none") return {};
  const exact = stats.counts === "matches" ? terms.filter((t) => !t.prefix).map((t) => t.df) : [];
  const prefixed = terms.filter((t) => t.prefix).map((t) => stats.prefixAtLeast?.(t.text) ?? 0);
  return { atMost: plannedRows(terms), atLeast: Math.max(0, ...exact, ...prefixed) };
}

/** The weights of the optional prose lists (0: the list is not built). */
export type ProseMethods = Pick<RankingParams, "prf" | "nameField" | "associations">;

/** Depth of each source's list. */
export const DEPTH = { symbols: 60, chunks: 150, chunksDeep: 400, files: 40, exact: 40, literal: 60 };

/** The identifier a symbol query names and its qualifiers (`auth::jwt::validate` → validate, [auth, jwt]). */
export function identifierOf(q: string): { leaf: string; qualifiers: string[] } {
  const parts = q.replace(/\(\)$/, "").split(/::|\.|#|->/).filter(Boolean);
  return { leaf: parts[parts.length - 1] ?? q, qualifiers: parts.slice(0, -1) };
}

/** Code-shaped words inside a prose query: snake_case, camelCase, dotted calls. */
export function codeIdentifiers(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/g)) {
    const leaf = m[0].slice(m[0].lastIndexOf(".") + 1);
    const shaped = /[a-z0-9]_[a-z0-9]/i.test(leaf) || /[a-z][A-Z]/.test(leaf) || /^[A-Z][a-z]+[A-Z]/.test(leaf);
    if (leaf.length >= 3 && shaped) out.add(leaf);
  }
  return [...out].slice(0, 8);
}

type Item = RankedList["items"][number];
const asSymbols = (hits: SymbolHit[]) => hits.map((hit): Item => ({ kind: "symbol", hit }));
const asChunks = (hits: ChunkHit[]) => hits.map((hit): Item => ({ kind: "chunk", hit }));
const asFiles = (hits: ReturnType<typeof fileSource>) => hits.map((hit): Item => ({ kind: "file", hit }));

/**
 * Chunks holding literal fragments of an error message, best first: more of
 * the message matched, then lines that raise or define it, then non-tests.
 */
function literalList(db: Db, text: string, f: SourceFilter): ChunkHit[] {
  const scored = new Map<string, { hit: ChunkHit; matched: number; site: boolean }>();
  for (const frag of literalFragments(text)) {
    for (const hit of literalSource(db, frag, phraseOf(frag), f, DEPTH.literal)) {
      const key = `${hit.path}:${hit.match?.[0]}`;
      const e = scored.get(key);
      if (e) {
        e.matched += frag.length;
        continue;
      }
      const line = hit.match ? hit.content.split("\n")[hit.match[0] - hit.line_start] ?? "" : "";
      scored.set(key, { hit, matched: frag.length, site: isErrorSite(line) });
    }
  }
  return [...scored.values()].sort((a, b) =>
    b.matched - a.matched || Number(b.site) - Number(a.site) ||
    Number(isTestPath(a.hit.path)) - Number(isTestPath(b.hit.path)) || a.hit.path.localeCompare(b.hit.path) ||
    (a.hit.match?.[0] ?? a.hit.line_start) - (b.hit.match?.[0] ?? b.hit.line_start)
  ).map((e) => e.hit);
}

/**
 * Runs of two or more adjacent content words (no stop words, none too common)
 * as FTS5 phrases: `"current shell" OR "active node js version"`. A phrase over
 * the whole sentence would read the position lists of its most common words.
 * `known`: a phrase matches no more chunks than its rarest word is in, so
 * counted words bound the matches from above.
 */
function contentPhrases(text: string, stats: ReturnType<typeof termStats>): { expr: string; known: MatchCount } | null {
  const runs: string[][] = [];
  let run: string[] = [];
  const limit = Math.max(stats.docs * COMMON_SHARE, COMMON_FLOOR);
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const t = queryTerms(w)[0];
    if (t && !t.stop && stats.df(w) > 0 && stats.df(w) <= limit) run.push(w);
    else {
      if (run.length >= 2) runs.push(run);
      run = [];
    }
  }
  if (run.length >= 2) runs.push(run);
  if (!runs.length) return null;
  const phrases = runs.slice(0, 4).map((r) => r.slice(0, MAX_TERMS));
  // Each word's count is exact below `limit` (or, unbounded, the vocabulary's own): none when nothing was counted.
  const counted = stats.counts === "matches" || stats.counts === "upper";
  return {
    expr: phrases.map((r) => phraseOf(r.join(" "))).join(" OR "),
    known: counted ? { atMost: phrases.reduce((n, r) => n + Math.min(...r.map((w) => stats.df(w))), 0) } : {},
  };
}

/** The ranked lists that answer `text` under `intent` (prose sources weighted by `w`). */
export function sourceLists(
  db: Db,
  text: string,
  intent: QueryIntent,
  f: SourceFilter,
  w: Readonly<ProseWeights> = DEFAULT_RANKING.prose,
  methods: Readonly<ProseMethods> = DEFAULT_RANKING,
): RankedList[] {
  const out: RankedList[] = [];
  const push = (source: string, weight: number, items: Item[]) => {
    if (items.length) out.push({ source, weight, items });
  };
  const s: ListSources = {
    db,
    text,
    f,
    w,
    methods,
    stats: termStats(db),
    terms: searchTerms(queryTerms(text)),
    push,
  };
  if (intent === "symbol") symbolLists(s);
  else if (intent === "path") pathLists(s);
  else if (intent === "error") errorLists(s);
  else proseLists(s);
  return out;
}

/** What every intent's list builder reads, and `push`, which keeps a non-empty list. */
interface ListSources {
  db: Db;
  text: string;
  f: SourceFilter;
  w: Readonly<ProseWeights>;
  methods: Readonly<ProseMethods>;
  stats: ReturnType<typeof termStats>;
  terms: string[];
  push: (source: string, weight: number, items: Item[]) => void;
}

/**
 * Pseudo-relevance feedback: the query's planned words plus the words that
 * best separate its first passages from the repository, as one more chunk list.
 */
function feedbackList(s: ListSources, expr: string, hits: ChunkHit[], known: MatchCount): void {
  const extra = feedbackTerms(s.text, hits, s.stats);
  const more = anyOf(extra);
  if (!more) return;
  s.push(
    "prf",
    s.methods.prf,
    asChunks(chunkSource(s.db, `${expr} OR ${more}`, s.f, DEPTH.chunks, { atLeast: known.atLeast })),
  );
}

/** Term associations: the query's planned words plus the identifier parts its words go with, as one more chunk list. */
function associationList(s: ListSources, expr: string, known: MatchCount): void {
  const more = anyOf(associatedTerms(s.db, s.text, s.terms, s.stats));
  if (more) {
    s.push(
      "associations",
      s.methods.associations,
      asChunks(chunkSource(s.db, `${expr} OR ${more}`, s.f, DEPTH.chunks, { atLeast: known.atLeast })),
    );
  }
}

/** A symbol name: the exact name first, then its words among symbols, chunks and files. */
function symbolLists(s: ListSources): void {
  const { db, text, f, stats, push } = s;
  const { leaf, qualifiers } = identifierOf(text);
  const leafTerms = [leaf.toLowerCase(), ...splitIdentifier(leaf)];
  const planned = planTerms(leafTerms, stats, { stem: false, keep: [leaf.toLowerCase()] });
  const expr = anyPlanned(planned);
  const hint = qualifiers[qualifiers.length - 1];
  // A prefixed spelling (`CONFIG_FOO`) is also exactly the symbol it names (Kconfig's `FOO`).
  const prefixed = prefixedRows(leaf, (n) => exactNameSource(db, [n], f, DEPTH.exact));
  push("exact_name", 3, asSymbols([...exactNameSource(db, [leaf], f, DEPTH.exact, hint), ...prefixed]));
  if (expr) {
    push("symbols", 2, asSymbols(symbolSource(db, expr, f, DEPTH.symbols)));
    push("chunks", 1, asChunks(chunkSource(db, expr, f, DEPTH.chunks, chunkMatches(planned, stats))));
    push("files", 0.5, asFiles(fileSource(db, expr, f, DEPTH.files)));
  }
}

/** A path: files ending in it, files by its words, and chunks by the file name's own words. */
function pathLists(s: ListSources): void {
  const { db, text, f, stats, terms, push } = s;
  const token = text.split(/\s+/).find((t) => looksLikePath(t)) ?? text;
  push("path_suffix", 3, asFiles(pathSuffixSource(db, token, f, DEPTH.files)));
  const expr = anyOf(terms);
  if (expr) push("files", 2, asFiles(fileSource(db, expr, f, DEPTH.files)));
  // Content only for the file name's own words: directory words match everything.
  const base = token.slice(token.lastIndexOf("/") + 1).replace(/\.[^.]*$/, "");
  const stemTerms = planTerms(searchTerms(queryTerms(base)), stats, { stem: false });
  // A secondary source is skipped when its words are everywhere (`String.java`): costly, and says nothing.
  const stemExpr = plannedRows(stemTerms) <= ROW_BUDGET ? anyPlanned(stemTerms) : null;
  if (stemExpr) {
    push("chunks", 0.5, asChunks(chunkSource(db, stemExpr, f, DEPTH.chunks, chunkMatches(stemTerms, stats))));
  }
}

/** An error message: the literal text, all its words in one chunk, then any of them. */
function errorLists(s: ListSources): void {
  const { db, text, f, stats, push } = s;
  push("literal", 3, asChunks(literalList(db, text, f)));
  const msgTerms = searchTerms(queryTerms(messageText(text))).filter((t) => !/^\d+$/.test(t));
  const present = msgTerms.filter((t) => stats.df(t) > 0);
  // All words of the message in one chunk: survives line breaks and formatting in the source.
  const every = present.length >= 2 ? allOf(present.slice(0, 16)) : null;
  if (every) push("message_words", 1.5, asChunks(chunkSource(db, every, f, DEPTH.chunks)));
  const planned = planTerms(msgTerms, stats, { stem: false });
  const expr = anyPlanned(planned);
  if (expr) {
    push("chunks", 1, asChunks(chunkSource(db, expr, f, DEPTH.chunks, chunkMatches(planned, stats))));
    push("symbols", 0.5, asSymbols(symbolSource(db, expr, f, 30)));
  }
}

/** Prose: stemmed words in chunks and per file, exact words in names and paths, identifiers written in it, phrases. */
function proseLists(s: ListSources): void {
  const { db, text, f, stats, terms, w, methods, push } = s;
  // Prose gets light stemming through prefix terms (`serializes` also finds `serializer`).
  const planned = planTerms(terms, stats, { stem: true });
  const expr = anyPlanned(planned);
  if (expr) {
    // One deeper chunk list serves both the chunk ranking and the per-file evidence.
    const known = chunkMatches(planned, stats);
    const hits = chunkSource(db, expr, f, DEPTH.chunksDeep, known);
    push("chunks", w.chunks, asChunks(hits.slice(0, DEPTH.chunks)));
    push("file_evidence", w.file_evidence, asFiles(filesFromChunks(hits)));
    if (methods.prf > 0) feedbackList(s, expr, hits, known);
    if (methods.associations > 0) associationList(s, expr, known);
  }
  // Names and paths are matched on exact words: prefixes there pull in too many unrelated names.
  const exactExpr = anyPlanned(planTerms(terms, stats, { stem: false }));
  if (exactExpr) {
    push("symbols", w.symbols, asSymbols(symbolSource(db, exactExpr, f, DEPTH.symbols)));
    push("files", w.files, asFiles(fileSource(db, exactExpr, f, DEPTH.files)));
    // The identifier field alone: a definition whose own name holds the words, not its signature or scope.
    if (methods.nameField > 0) {
      push("name_field", methods.nameField, asSymbols(symbolSource(db, inColumns(["name"], exactExpr), f, 40)));
    }
  }
  // Identifiers written inside prose (`how bats_pipe chains ...`) name definitions.
  const idents = codeIdentifiers(text);
  if (idents.length) {
    push("exact_name", w.exact_name, asSymbols(exactNameSource(db, idents, f, DEPTH.exact)));
    // The same identifiers as whole words of code: finds them where no symbol table exists.
    const identExpr = anyOf(idents.map((i) => i.toLowerCase()));
    if (identExpr) push("identifier_text", w.identifier_text, asChunks(chunkSource(db, identExpr, f, 40)));
  }
  const phrase = contentPhrases(text, stats);
  if (phrase) push("phrase", w.phrase, asChunks(chunkSource(db, phrase.expr, f, 40, phrase.known)));
}
