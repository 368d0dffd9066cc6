/**
 * The rules of the generated tuning set, as pure functions: a documented
 * definition gives a query (the first sentence of its doc comment, without
 * the definition's own name and markup) and a target (its file and lines);
 * the doc comment's lines are found in the source so a copy of the tree can
 * have them blanked (the query's words are then not simply found there).
 * No I/O.
 */

/** Symbol kinds that make a query: definitions a reader looks for, not fields or variables. */
export const QUERY_KINDS = new Set([
  "function",
  "method",
  "class",
  "struct",
  "interface",
  "trait",
  "enum",
  "type",
  "module",
  "macro",
  "constructor",
]);

/** Fewest and most words a generated query may have (shorter says too little, longer is a paragraph). */
export const QUERY_WORDS = { min: 4, max: 24 };

/**
 * The first sentence of a doc comment as a query: inline markup unwrapped
 * (`{@link X}`, `` `x` ``, `[X]`, `:class:`X``, HTML tags), a leading own
 * name dropped (it would make the query a name lookup), cut at the first
 * sentence end or blank line. Null when fewer than QUERY_WORDS.min words
 * remain, or the sentence is a directive rather than a description
 * (`Deprecated`, `TODO`, `Copyright`, `@param`).
 */
export function docQuery(doc: string, name: string): string | null {
  const para = doc.split(/\n\s*\n/)[0];
  let text = para.replace(/\s+/g, " ").trim();
  if (/^(deprecated|todo|fixme|xxx|copyright|license|@|see |note:|nolint|go:|#|use .* instead)/i.test(text)) {
    return null;
  }
  if (/https?:|www\./i.test(text)) return null;
  text = text
    .replace(/\{@\w+\s+([^}]*)\}/g, "$1")
    .replace(/:[a-z]+:`~?([^`]*)`/g, "$1")
    .replace(/<\/?[a-z][^>]*>/gi, " ")
    .replace(/\[`?([^\]`]*)`?\](\([^)]*\))?/g, "$1")
    .replace(/`+/g, "")
    .replace(/\*\*?|__/g, "");
  // The sentence ends at `.`, `!` or `?` before a space, except after an abbreviation (`i.e.`, `etc.`).
  const end = text.replace(/\b(i\.e|e\.g|etc|vs|cf)\./gi, (m) => m.replace(/\./g, "_")).search(/[.!?](\s|$)/);
  if (end >= 0) text = text.slice(0, end);
  // A leading own name (`Encode encodes ...`) is the doc convention of some languages, not a description.
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  text = text.replace(new RegExp(`^(the |a |an )?${escaped}(\\(\\))?(?![\\w$])`, "i"), "").trim();
  text = text.replace(/^[,:;\-–—\s]+/, "");
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length < QUERY_WORDS.min || words.length > QUERY_WORDS.max) return null;
  return text;
}

const COMMENT_LINE = /^\s*(\/\/|\/\*|\*|#(?!\[)|--|;|\{-|-\}|%)/;
const ATTRIBUTE_LINE = /^\s*(@[A-Za-z]|#\[|\[[A-Z][\w.]*(\(.*\))?\]\s*$)/;

/**
 * The 0-based line indexes of the doc comment of a definition whose first
 * line is `lineStart` (1-based): comment lines just above it (attribute and
 * decorator lines between are skipped, a `/* … *\/` block is taken whole, an
 * Elixir `@doc """ … """` heredoc too), or else a docstring that opens on
 * the first lines of its body. Empty when none is found.
 */
export function docLines(lines: string[], lineStart: number): number[] {
  const out: number[] = [];
  let i = lineStart - 2;
  while (i >= 0 && ATTRIBUTE_LINE.test(lines[i]) && !/^\s*@doc\b/.test(lines[i])) i--;
  while (i >= 0) {
    const l = lines[i];
    if (/\*\/\s*$/.test(l)) {
      // A block comment: up to the line that opens it.
      let j = i;
      while (j >= 0 && !lines[j].includes("/*")) j--;
      if (j < 0) break;
      for (let k = j; k <= i; k++) out.push(k);
      i = j - 1;
      continue;
    }
    if (/^\s*"""\s*$/.test(l)) {
      // An Elixir heredoc: up to `@doc """` / `@moduledoc """`.
      let j = i - 1;
      while (j >= 0 && !/^\s*@(module)?doc\s+"""/.test(lines[j])) j--;
      if (j < 0) break;
      for (let k = j; k <= i; k++) out.push(k);
      i = j - 1;
      continue;
    }
    if (/^\s*@(module)?doc\s+"/.test(l) || (COMMENT_LINE.test(l) && l.trim() !== "")) {
      out.push(i);
      i--;
      continue;
    }
    break;
  }
  if (out.length) return out.sort((a, b) => a - b);
  return docstringLines(lines, lineStart);
}

/** A docstring opening within the first lines after the definition's header (Python style). */
function docstringLines(lines: string[], lineStart: number): number[] {
  for (let i = lineStart - 1; i < Math.min(lines.length, lineStart + 8); i++) {
    const m = lines[i].match(/^\s*[rRbBuU]?("""|''')/);
    if (!m) continue;
    const q = m[1];
    const rest = lines[i].slice(lines[i].indexOf(q) + 3);
    if (rest.includes(q)) return [i];
    for (let j = i + 1; j < lines.length; j++) {
      if (lines[j].includes(q)) return Array.from({ length: j - i + 1 }, (_, k) => i + k);
    }
    return [];
  }
  return [];
}

/**
 * `lines` with the given line indexes blanked (line numbers unchanged). A
 * blanked docstring's first line becomes `pass` at its indentation, so a body
 * that held only the docstring still parses.
 */
export function blankLines(lines: string[], indexes: number[], docstring: boolean): string[] {
  const out = [...lines];
  const sorted = [...indexes].sort((a, b) => a - b);
  sorted.forEach((i, n) => {
    out[i] = docstring && n === 0 ? (lines[i].match(/^\s*/)?.[0] ?? "") + "pass" : "";
  });
  return out;
}

/** A seeded pseudo-random generator (mulberry32): the same seed gives the same sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit seed from a number and a name (each repository gets its own stream). */
export function seedFor(seed: number, name: string): number {
  let h = seed >>> 0;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
}

/** `xs` shuffled by `rand` (Fisher–Yates on a copy). */
export function shuffled<T>(xs: T[], rand: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
