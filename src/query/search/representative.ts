/**
 * Which unit shows a file in a prose answer when the file has several: the
 * one whose definition's name the query's words cover best, weighed against
 * its score (identifier-aware, learned from no labels). Only the lines shown
 * for the file change, never the order of the files. Pure.
 */
import type { Unit } from "./fuse.ts";
import { splitIdentifier } from "../../core/identifiers.ts";
import { lightStem } from "./fts_query.ts";
import type { TermStats } from "./term_stats.ts";

/**
 * Share of a name's words (3+ letters) whose light stem is among `stems`;
 * with `weight` (0..1 per word), each covered word counts its weight, so a
 * word found everywhere (`get`, `map`) covers little.
 */
export function nameCoverage(name: string, stems: ReadonlySet<string>, weight?: (word: string) => number): number {
  const parts = [...new Set(splitIdentifier(name))].filter((p) => p.length >= 3 && !/^\d+$/.test(p));
  if (!parts.length) return 0;
  return parts.filter((p) => stems.has(lightStem(p))).reduce((a, p) => a + (weight ? weight(p) : 1), 0) /
    parts.length;
}

/** A word's weight by its rarity in the index: log(1 + N/df) / log(1 + N), 1 for a word in one chunk. */
export function rarity(stats: TermStats): (word: string) => number {
  const top = Math.log(1 + Math.max(1, stats.docs));
  return (w) => Math.log(1 + Math.max(1, stats.docs) / Math.max(1, stats.df(w))) / top;
}

/**
 * A picker for `aggregateFiles`: among a file's units with lines (best
 * first), the one with the highest score × (1 + `strength` × coverage of its
 * symbol's name by the query's stems); the file's best unit when no name is
 * covered.
 */
export function namedRepresentative(
  terms: string[],
  strength: number,
  weight?: (word: string) => number,
): (g: Unit[]) => Unit | undefined {
  const stems = new Set(terms.map(lightStem));
  return (g) => {
    let best: Unit | undefined;
    let bestValue = -Infinity;
    for (const u of g) {
      if (u.file) continue;
      const cov = u.symbol ? nameCoverage(u.symbol.name, stems, weight) : 0;
      const value = u.score * (1 + strength * cov);
      if (value > bestValue) best = u, bestValue = value;
    }
    return best;
  };
}
