/**
 * Identifier splitting shared by the indexer (what goes into the full-text
 * index) and the query side (what a query is turned into), so both agree.
 */

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

/** `A-Z`, `a-z`, `_`, `$`: a character an identifier may start with. */
function identStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36;
}

function identPart(c: number): boolean {
  return identStart(c) || (c >= 48 && c <= 57);
}

const isLower = (c: number) => c >= 97 && c <= 122;
const isUpper = (c: number) => c >= 65 && c <= 90;

/** True when `text[s..e)` is camelCase (`aB`), has an acronym before a word (`HTTPServer`) or an underscore. */
function isCompound(text: string, s: number, e: number): boolean {
  for (let k = s; k < e; k++) {
    const c = text.charCodeAt(k);
    if (c === 95) return true;
    if (isLower(c)) {
      if (k + 1 < e && isUpper(text.charCodeAt(k + 1))) return true;
    } else if (isUpper(c) && k + 2 < e && isUpper(text.charCodeAt(k + 1)) && isLower(text.charCodeAt(k + 2))) {
      return true;
    }
  }
  return false;
}

/**
 * Extra terms for a text: the parts of every compound identifier in it
 * (camelCase and snake_case), so BM25 matches `rate limit` against
 * `checkRateLimit`. The original words are indexed by the tokenizer itself.
 * Identifiers are ASCII runs `[A-Za-z_$][A-Za-z0-9_$]*` of four or more
 * characters; the text is scanned once, and only compound ones are copied out.
 */
export function compoundTerms(text: string): string {
  const seen = new Set<string>();
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!identStart(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const s = i;
    while (++i < n && identPart(text.charCodeAt(i)));
    if (i - s < 4 || !isCompound(text, s, i)) continue;
    const id = text.slice(s, i);
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
