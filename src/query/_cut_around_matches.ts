/**
 * Cutting a long body to a token budget around the lines that answer the
 * query: the first line (the signature) stays, then windows around lines
 * that contain a query word, then lines from the top while budget remains.
 * Left-out runs become one marker line each and are listed as ranges.
 */
import { estimateTokens } from "./_token_estimate.ts";

/** Words too common to say which lines matter. */
const STOP = new Set([
  "the",
  "and",
  "for",
  "how",
  "does",
  "are",
  "what",
  "where",
  "when",
  "which",
  "who",
  "why",
  "with",
  "this",
  "that",
  "from",
  "into",
  "is",
  "was",
  "get",
  "set",
]);

/** Lines of context kept on each side of a matching line. */
const WINDOW = 2;

/** Lower-case stems of the query's words (3+ letters, common suffixes off), split at camelCase and `_`. */
export function queryStems(query: string): string[] {
  const words = query.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/);
  const stems = new Set<string>();
  for (const w of words) {
    if (w.length < 3 || STOP.has(w)) continue;
    stems.add(w.length > 5 ? w.replace(/(ations?|ing|ed|es|s)$/, "") : w);
  }
  return [...stems];
}

/** The cut body: its text, the ranges left out (file line numbers, inclusive) and whether anything was. */
export interface CutBody {
  content: string;
  elided: [number, number][];
}

/** The marker standing for left-out lines `a..b`. */
function marker(a: number, b: number): string {
  return `⋯ lines ${a}-${b} elided`;
}

/**
 * Cuts `lines` (the first at file line `firstLine`) to about `tokens`,
 * keeping the first line, lines matching `stems` with their neighbours,
 * then the top. Each run of left-out lines becomes a marker line.
 */
export function cutAroundMatches(lines: string[], firstLine: number, stems: string[], tokens: number): CutBody {
  const keep = new Set<number>();
  let used = 0;
  const cost = (i: number) => estimateTokens(lines[i] + "\n");
  // Every gap may cost a marker line; reserve for the worst case as lines are added.
  const markerCost = estimateTokens(marker(firstLine + lines.length, firstLine + lines.length) + "\n");
  const take = (i: number): boolean => {
    if (keep.has(i) || i < 0 || i >= lines.length) return true;
    const c = cost(i) + markerCost;
    if (used + c > tokens) return false;
    keep.add(i);
    used += c;
    return true;
  };
  take(0);
  const matching = stems.length
    ? lines.map((l, i) => [l.toLowerCase(), i] as const).filter(([l]) => stems.some((s) => l.includes(s))).map((
      [, i],
    ) => i)
    : [];
  // The lines matching the most words first, then in source order.
  const score = (i: number) => stems.filter((s) => lines[i].toLowerCase().includes(s)).length;
  matching.sort((a, b) => score(b) - score(a) || a - b);
  // Each matching line first, then its neighbours nearest first, as far as the budget goes.
  for (const m of matching) {
    if (!take(m)) break;
    for (let d = 1; d <= WINDOW; d++) take(m - d), take(m + d);
  }
  for (let i = 1; i < lines.length; i++) if (!take(i)) break;
  const out: string[] = [];
  const elided: [number, number][] = [];
  for (let i = 0; i < lines.length; i++) {
    if (keep.has(i)) {
      out.push(lines[i]);
      continue;
    }
    let j = i;
    while (j + 1 < lines.length && !keep.has(j + 1)) j++;
    elided.push([firstLine + i, firstLine + j]);
    out.push(marker(firstLine + i, firstLine + j));
    i = j;
  }
  return { content: out.join("\n"), elided };
}
