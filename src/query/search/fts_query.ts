/**
 * Turning any user text into a safe FTS5 MATCH expression. Every term is
 * emitted as a double-quoted FTS5 string, so operators (`NEAR`, `AND`, `*`,
 * `^`, `:`, `-`, parentheses, quotes) in the input are never interpreted.
 */
import { splitIdentifier } from "../../core/identifiers.ts";
import { RANK_SCAN_ROWS } from "../../state/read/search.ts";

/** Most terms put into one MATCH expression. */
export const MAX_TERMS = 32;

const STOPWORDS = new Set(
  ("a an and are as at be been being but by can could do does did for from has have how i if in into is it its " +
    "itself of on or should so such than that the their them then there these this those to too was were what " +
    "when where which while who whom why will with within without would you your we our me my they he she " +
    "implemented implementation implement handled handle handles work works working used use uses using code " +
    "function functions find show get gets where's").split(" "),
);

/** One query term and where it came from. */
export interface QueryTerm {
  /** Lower-case token as the unicode61 tokenizer would produce it. */
  term: string;
  /** True when the term is a camelCase/snake_case part of a larger word. */
  part: boolean;
  /** True for stop words (kept only when nothing else is left). */
  stop: boolean;
}

/**
 * Words of a query, lower-cased, split like the indexer splits identifiers:
 * `checkRateLimit` gives `checkratelimit`, `check`, `rate`, `limit`.
 */
export function queryTerms(text: string): QueryTerm[] {
  const out: QueryTerm[] = [];
  const seen = new Set<string>();
  const add = (term: string, part: boolean) => {
    if (!term || seen.has(term) || out.length >= MAX_TERMS * 2) return;
    seen.add(term);
    out.push({ term, part, stop: STOPWORDS.has(term) });
  };
  // unicode61 separates at every non-alphanumeric character, `_` included.
  for (const word of text.match(/[\p{L}\p{N}_$]+/gu) ?? []) {
    for (const piece of word.split(/[_$]+/)) {
      if (!piece) continue;
      add(piece.toLowerCase(), false);
      if (/^[A-Za-z0-9]+$/.test(piece)) {
        const parts = splitIdentifier(piece);
        if (parts.length > 1) { for (const p of parts) add(p, true); }
      }
    }
  }
  return out;
}

/** Terms worth searching: stop words dropped unless nothing else remains. */
export function searchTerms(terms: QueryTerm[]): string[] {
  const content = terms.filter((t) => !t.stop);
  return (content.length ? content : terms).map((t) => t.term).slice(0, MAX_TERMS);
}

/**
 * A light English stem (plural, -ing, -ed, -ion, -er): `transfers` →
 * `transfer`, `validated` → `validat`, `validation` → `valid`. Used for prefix matching,
 * which stands in for the stemming the unicode61 tokenizer does not do.
 */
export function lightStem(word: string): string {
  const w = word.toLowerCase();
  if (w.length <= 4 || /\d/.test(w)) return w;
  const rules: [RegExp, string][] = [
    [/ies$/, "y"],
    [/(ss|us|is)$/, "$1"],
    [/(x|ch|sh|ss)es$/, "$1"],
    [/s$/, ""],
  ];
  let out = w;
  for (const [re, rep] of rules) {
    if (re.test(out)) {
      out = out.replace(re, rep);
      break;
    }
  }
  out = out.replace(/(ation|ing|ed|ion)$/, "");
  if (out.length < 4) return w.length > 5 && w.endsWith("s") ? w.slice(0, -1) : w;
  return out.replace(/e$/, "");
}

/** `"a"* OR "b"* ...` over light stems (4+ letters), or null. */
export function anyPrefixOf(terms: string[]): string | null {
  const t = [...new Set(terms.filter(Boolean).map((x) => (/^[a-z]+$/.test(x) ? lightStem(x) : x)))];
  return t.length
    ? t.map((x) => (x.length >= 4 && /^[a-z]+$/.test(x) ? ftsString(x) + "*" : ftsString(x))).join(" OR ")
    : null;
}

/** A term chosen for a MATCH expression: exact, or a prefix (`"pars"*`). */
export interface PlannedTerm {
  text: string;
  prefix: boolean;
  df: number;
}

/** Share of the corpus above which a term is too common to search for. */
export const COMMON_SHARE = 0.06;
/** Terms in fewer chunks than this are never too common (small indexes are cheap to search in full). */
export const COMMON_FLOOR = 3000;
/**
 * Rows (term postings) one OR expression may make BM25 rank; query time grows
 * with them. The ranking's own hard cap, so a planned expression is never cut.
 */
export const ROW_BUDGET = RANK_SCAN_ROWS;
/** Most terms in one expression after planning. */
export const MAX_PLANNED = 12;

/**
 * Chooses the terms to search: a light-stem prefix when `stem` is set and the
 * prefix is not too common, else the exact word; words absent from the
 * corpus are dropped, and words in more than COMMON_SHARE of the chunks (and
 * more than COMMON_FLOOR chunks) are dropped while rarer ones remain (the two
 * rarest always stay).
 */
export function planTerms(
  terms: string[],
  stats: { docs: number; df(t: string): number; dfPrefix(p: string): number },
  opts: { stem: boolean; keep?: string[] },
): PlannedTerm[] {
  const out: PlannedTerm[] = [];
  const seen = new Set<string>();
  for (const t of terms) {
    let planned: PlannedTerm | null = null;
    if (opts.stem && /^[a-z]+$/.test(t)) {
      const st = lightStem(t);
      if (st.length >= 4) {
        const d = stats.dfPrefix(st);
        if (d > 0 && d <= Math.max(stats.docs * COMMON_SHARE, COMMON_FLOOR)) {
          planned = { text: st, prefix: true, df: d };
        }
      }
    }
    if (!planned) planned = { text: t, prefix: false, df: stats.df(t) };
    const key = planned.text + (planned.prefix ? "*" : "");
    if (planned.df === 0 || seen.has(key)) continue;
    seen.add(key);
    out.push(planned);
  }
  out.sort((a, b) => a.df - b.df);
  const limit = Math.max(stats.docs * COMMON_SHARE, COMMON_FLOOR);
  const keep = new Set(opts.keep ?? []);
  const chosen: PlannedTerm[] = [];
  let rows = 0;
  for (const p of out) {
    // Rarest first, while the rows BM25 must rank stay within budget; the two rarest always stay.
    const fits = rows + p.df <= ROW_BUDGET && p.df <= limit;
    if (chosen.length < 2 || fits || keep.has(p.text)) {
      chosen.push(p);
      rows += p.df;
    }
    if (chosen.length >= MAX_PLANNED) break;
  }
  return chosen;
}

/** `"a" OR "b"* ...` for planned terms, or null. */
export function anyPlanned(terms: PlannedTerm[]): string | null {
  return terms.length ? terms.map((p) => ftsString(p.text) + (p.prefix ? "*" : "")).join(" OR ") : null;
}

/** Quotes one token as an FTS5 string. */
export function ftsString(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** `"a" OR "b" OR ...`, or null when there is nothing to search. */
export function anyOf(terms: string[]): string | null {
  const t = terms.filter(Boolean);
  return t.length ? t.map(ftsString).join(" OR ") : null;
}

/** `"a" AND "b" AND ...`, or null when there is nothing to search. */
export function allOf(terms: string[]): string | null {
  const t = terms.filter(Boolean);
  return t.length ? t.map(ftsString).join(" AND ") : null;
}

/** A phrase of the text's tokens (`"a b c"`), or null. */
export function phraseOf(text: string): string | null {
  const words = (text.match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_TERMS);
  return words.length ? ftsString(words.join(" ")) : null;
}

/** Restricts an expression to some columns: `{a b}: (expr)`. */
export function inColumns(columns: string[], expr: string): string {
  return `{${columns.join(" ")}}: (${expr})`;
}
