/**
 * Identifier splitting shared by the indexer (what goes into the full-text
 * index) and the query side (what a query is turned into), so both agree.
 */

/**
 * Splits `checkRateLimit`, `rate_limiter`, `HTTPServer2` into lower-case
 * words, reading `ident` once left to right: anything but ASCII letters
 * and digits separates; within a run, an upper-case run is an acronym (less
 * its last letter when a lower-case letter follows: `HTTPServer` is `HTTP`,
 * `Server`), an optional capital with lower-case letters is a word, digits
 * are a word. (The regular expressions `[^A-Za-z0-9]+` to split, then
 * `[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+` per part, say the same; a kernel
 * index splits millions of macro names, where they cost a sixth of the rows;
 * no cache either, as one would miss on nearly every such name.)
 */
export function splitIdentifier(ident: string): string[] {
  const out: string[] = [];
  const n = ident.length;
  let i = 0;
  while (i < n) {
    const c = ident.charCodeAt(i);
    let j = i + 1;
    if (isUpper(c)) {
      while (j < n && isUpper(ident.charCodeAt(j))) j++;
      if (j < n && isLower(ident.charCodeAt(j))) {
        if (j - i >= 2) j--; // the acronym ends before the capital of the next word
        else while (j < n && isLower(ident.charCodeAt(j))) j++;
      }
    } else if (isLower(c)) {
      while (j < n && isLower(ident.charCodeAt(j))) j++;
    } else if (isDigit(c)) {
      while (j < n && isDigit(ident.charCodeAt(j))) j++;
    } else {
      i = j;
      continue;
    }
    out.push(ident.slice(i, j).toLowerCase());
    i = j;
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
const isDigit = (c: number) => c >= 48 && c <= 57;

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
