/**
 * What a search result shows of its lines: the lines holding the query's
 * words with their own numbers (`match_lines`), and a short snippet made
 * only of the result's own lines, never starting or ending on a blank line.
 * Pure (no I/O, no Deno permission): the caller reads the lines.
 */

/** One line of a file with its number (1-based). */
export interface MatchLine {
  line: number;
  text: string;
}

/** A result's shown text: its snippet and the lines that matched. */
export interface ShownLines {
  snippet: string;
  match_lines: MatchLine[];
}

/** Most lines in a snippet. */
export const SNIPPET_LINES = 10;
/** Most characters in a snippet (a single longer line is cut and ends in `…`). */
export const SNIPPET_CHARS = 800;
/** Most lines listed in `match_lines`. */
export const MAX_MATCH_LINES = 3;
/** Longest `match_lines` text (a longer line is cut and ends in `…`). */
export const MATCH_LINE_CHARS = 240;

/** `s` cut to `max` characters, ending in `…` when it was cut. */
function cut(s: string, max: number): string {
  return s.length > max ? s.slice(0, max - 1) + "…" : s;
}

/**
 * The shown lines of a result from `lines`, a map from line number to the
 * stored text of the lines read (every key inside the result's range).
 * `match_lines` are the lines holding the most of `terms` (lower case),
 * best first; when no line holds one, the first non-blank line. The snippet
 * starts one line before the best line (at the first line when it is near
 * the top), runs at most SNIPPET_LINES lines, and has blank lines trimmed
 * at both ends; it is empty only when every line read is blank.
 */
export function shownLines(lines: Map<number, string>, terms: string[]): ShownLines {
  const words = [...new Set(terms.filter((t) => t.length >= 2))];
  const numbers = [...lines.keys()].sort((a, b) => a - b);
  const scored: { line: number; hits: number }[] = [];
  for (const n of numbers) {
    const l = lines.get(n)!.toLowerCase();
    const hits = words.filter((t) => l.includes(t)).length;
    if (hits) scored.push({ line: n, hits });
  }
  scored.sort((a, b) => b.hits - a.hits || a.line - b.line);
  let best = scored.slice(0, MAX_MATCH_LINES).map((s) => s.line);
  if (!best.length) {
    const first = numbers.find((n) => lines.get(n)!.trim() !== "");
    if (first === undefined) return { snippet: "", match_lines: [] };
    best = [first];
  }
  const match_lines = best.map((n) => ({ line: n, text: cut(lines.get(n)!, MATCH_LINE_CHARS) }));
  return { snippet: snippetAround(lines, numbers, best[0]), match_lines };
}

/** Up to SNIPPET_LINES consecutive lines of `lines` around `best`, blank ends trimmed, within SNIPPET_CHARS. */
function snippetAround(lines: Map<number, string>, numbers: number[], best: number): string {
  const at = numbers.indexOf(best);
  let i = at > 2 ? at - 1 : 0;
  // Consecutive line numbers only: a gap in what was read is not shown as adjacent lines.
  const out: string[] = [];
  for (; i < numbers.length && out.length < SNIPPET_LINES; i++) {
    if (out.length && numbers[i] !== numbers[i - 1] + 1) {
      if (i > at) break;
      out.length = 0;
    }
    out.push(lines.get(numbers[i])!);
  }
  while (out.length && out[0].trim() === "") out.shift();
  while (out.length && out[out.length - 1].trim() === "") out.pop();
  let text = "";
  for (const l of out) {
    const next = text ? `${text}\n${l}` : l;
    if (next.length > SNIPPET_CHARS) return text || cut(l, SNIPPET_CHARS);
    text = next;
  }
  return text;
}
