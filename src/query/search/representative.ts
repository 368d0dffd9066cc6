/**
 * Which unit shows a file in a prose answer when the file has several: the
 * one whose definition's name the query's words cover best, weighed against
 * its score (identifier-aware, learned from no labels). Only the lines shown
 * for the file change, never the order of the files. Pure.
 */
import type { Unit } from "./fuse.ts";
import { splitIdentifier } from "../../core/identifiers.ts";
import { lightStem } from "./fts_query.ts";

/** Share of a name's words (3+ letters) whose light stem is among `stems`. */
export function nameCoverage(name: string, stems: ReadonlySet<string>): number {
  const parts = [...new Set(splitIdentifier(name))].filter((p) => p.length >= 3 && !/^\d+$/.test(p));
  if (!parts.length) return 0;
  return parts.filter((p) => stems.has(lightStem(p))).length / parts.length;
}

/**
 * A picker for `aggregateFiles`: among a file's units with lines (best
 * first), the one with the highest score × (1 + `strength` × coverage of its
 * symbol's name by the query's stems); the file's best unit when no name is
 * covered.
 */
export function namedRepresentative(terms: string[], strength: number): (g: Unit[]) => Unit | undefined {
  const stems = new Set(terms.map(lightStem));
  return (g) => {
    let best: Unit | undefined;
    let bestValue = -Infinity;
    for (const u of g) {
      if (u.file) continue;
      const cov = u.symbol ? nameCoverage(u.symbol.name, stems) : 0;
      const value = u.score * (1 + strength * cov);
      if (value > bestValue) best = u, bestValue = value;
    }
    return best;
  };
}
