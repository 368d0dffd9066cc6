/**
 * Identifier splitting shared by the indexer (what goes into the full-text
 * index) and the query side (what a query is turned into), so both agree.
 */

const IDENT = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/** Identifiers repeat a lot across a repository: remember recent splits (bounded). */
const splitCache = new Map<string, readonly string[]>();
const SPLIT_CACHE_MAX = 20_000;

/**
 * Splits `checkRateLimit`, `rate_limiter`, `HTTPServer2` into lower-case words.
 * The returned array is shared: callers must not modify it.
 */
export function splitIdentifier(ident: string): readonly string[] {
  let out = splitCache.get(ident);
  if (!out) {
    out = splitUncached(ident);
    if (splitCache.size >= SPLIT_CACHE_MAX) splitCache.clear();
    splitCache.set(ident, out);
  }
  return out;
}

function splitUncached(ident: string): string[] {
  const out: string[] = [];
  for (const part of ident.split(/[^A-Za-z0-9]+/)) {
    if (!part) continue;
    const words = part.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? [part];
    for (const w of words) out.push(w.toLowerCase());
  }
  return out;
}

/**
 * Extra terms for a text: the parts of every compound identifier in it
 * (camelCase and snake_case), so BM25 matches `rate limit` against
 * `checkRateLimit`. The original words are indexed by the tokenizer itself.
 */
export function compoundTerms(text: string): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const m of text.matchAll(IDENT)) {
    const id = m[0];
    if (id.length < 4) continue;
    if (!/[a-z][A-Z]|[A-Z]{2}[a-z]|_/.test(id)) continue;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const w of splitIdentifier(id)) out.push(w);
  }
  return out.join(" ");
}

/** Words of a path: directory names, file stem split as identifiers, extension. */
export function pathTerms(path: string): string {
  return path.split(/[\/\\.]+/).flatMap((seg) => [seg.toLowerCase(), ...splitIdentifier(seg)])
    .filter((w, i, a) => w && a.indexOf(w) === i).join(" ");
}
