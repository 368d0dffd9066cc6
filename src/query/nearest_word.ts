/** "Did you mean": the known word closest to a misspelt one. */
import { editDistance } from "./symbol_name_index.ts";

/**
 * The known word closest to `word` (by edit distance, at most a third of its
 * length and at least 2; a known word it starts, of 3 letters or more, counts
 * as 1), or null when none is close.
 */
export function nearest(word: string, known: Iterable<string>): string | null {
  const max = Math.max(2, Math.floor(word.length / 3));
  let best: string | null = null;
  let bestD = max + 1;
  for (const k of known) {
    const d = k.startsWith(word) && word.length >= 3 ? 1 : editDistance(word.toLowerCase(), k.toLowerCase(), max);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}
