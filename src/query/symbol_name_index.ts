/**
 * The name tiers of locate_symbol over the on-disk name lookup: exact and
 * case-insensitive definitions, prefix completions, and fuzzy spellings.
 * Fuzzy candidates come from shared character trigrams (so a dropped,
 * doubled or swapped letter still shares most of them); they are then
 * re-ranked by edit distance, which is what decides. Nothing is built or
 * cached in memory: every call reads a bounded slice of the index.
 * Needs no Deno permission beyond the already open database.
 */
import type { Db } from "../state/db.ts";
import {
  compactName,
  distinctNameCount,
  INDEXED_COMPACT_LEN,
  namesOfCompactLength,
  namesSharingGrams,
  namesWithPrefix,
  type ScanBounds,
} from "../state/name_lookup.ts";
import { definitionsNamed as namedRows, type NameEntry } from "../state/read/name_entries.ts";

export type { ScanBounds } from "../state/name_lookup.ts";
export type { NameEntry } from "../state/read/name_entries.ts";

/** One fuzzy candidate: a lower-case symbol name and how close it is (0..1). */
export interface FuzzyName {
  name_lower: string;
  similarity: number;
  distance: number;
}

/** Trigrams of a query used to gather fuzzy candidates. */
const MAX_PROBE_GRAMS = 10;
/**
 * Names up to this many letters get the exhaustive comparison with names one letter shorter or longer when
 * trigrams find nothing: the longest of those is the longest the compact-length index holds.
 */
const SHORT_NAME = INDEXED_COMPACT_LEN - 1;
/** Names compared at most in that exhaustive pass (bounds a query against a huge index). */
const SHORT_SCAN = 200_000;
/** Trigram candidates re-ranked by edit distance. */
const FUZZY_CANDIDATES = 200;

/** Character trigrams of a name with word-boundary markers; separators are ignored. */
function trigrams(name: string): string[] {
  const t = "^" + compactName(name.toLowerCase()) + "$";
  const out: string[] = [];
  for (let i = 0; i + 3 <= t.length; i++) out.push(t.slice(i, i + 3));
  return out;
}

/**
 * Reports the size of the name lookup of `db`. Nothing is built: the lookup
 * lives in the index file, so this costs one count.
 */
export function warmSymbolIndex(db: Db): { names: number; build_ms: number } {
  const t0 = performance.now();
  return { names: distinctNameCount(db), build_ms: Math.round(performance.now() - t0) };
}

/** Up to `max` definitions whose lower-case name is `nameLower`, oldest first. */
export function definitionsNamed(db: Db, nameLower: string, max: number): NameEntry[] {
  return namedRows(db, nameLower, max);
}

/**
 * Definitions whose lower-case name starts with `prefixLower` (the name
 * itself excluded), shortest names first, at most `max` of them, and how many
 * there are in all (a lower bound when `capped`).
 */
export function definitionsWithPrefix(
  db: Db,
  prefixLower: string,
  max: number,
): { rows: NameEntry[]; total: number; capped: boolean } {
  const p = namesWithPrefix(db, prefixLower, max);
  // The names whose definitions fill `max` rows, shortest first, read in one statement.
  const wants: { nameLower: string; max: number }[] = [];
  let room = max;
  for (let i = 0; i < p.names.length && room > 0; i++) {
    wants.push({ nameLower: p.names[i], max: room });
    room -= Math.max(1, p.counts[i]);
  }
  // One prepared statement run per name: faster on the kernel than compound statements of many names
  // (docs/PERFORMANCE.md, "Prefix completions").
  const rows = wants.flatMap((w) => namedRows(db, w.nameLower, w.max));
  return { rows: rows.slice(0, max), total: p.total, capped: p.capped };
}

let rowA = new Int32Array(64);
let rowB = new Int32Array(64);
let rowC = new Int32Array(64);

/** Optimal string alignment distance (Levenshtein plus adjacent swaps), stopping past `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  if (rowA.length <= n) [rowA, rowB, rowC] = [new Int32Array(n + 1), new Int32Array(n + 1), new Int32Array(n + 1)];
  // Three rows reused across calls: this runs for thousands of names per fuzzy lookup.
  let prev2 = rowA;
  let prev = rowB;
  let cur = rowC;
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    const ai = a.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const bj = b.charCodeAt(j - 1);
      let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) v = Math.min(v, prev2[j - 2] + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n];
}

/**
 * Names close to `query` (case-insensitive, separators ignored for recall):
 * at most `limit`, closest first. A name qualifies when its edit distance is
 * at most max(1, length/4), so `valdate_token` finds `validate_token` but
 * short words do not match everything. Candidate reads are bounded;
 * `bounds.capped` is set when one stopped at its cap. A short name that
 * shares no trigram with a close one is compared with every name of about
 * its length, unless `lastResort` is false (the caller has other answers).
 */
export function fuzzyNames(db: Db, query: string, limit = 20, bounds?: ScanBounds, lastResort = true): FuzzyName[] {
  const q = query.toLowerCase();
  const grams = trigrams(q);
  if (grams.length === 0 || q.length > 200) return [];
  const maxDist = Math.max(1, Math.floor(q.length / 4));
  const qc = compactName(q);
  const out: FuzzyName[] = [];
  const consider = (name: string | undefined) => {
    if (name === undefined || name === q) return;
    // Separators (`_`, `$`) differ a lot between conventions; compare without them, but prefer equal spelling.
    const d = Math.min(editDistance(q, name, maxDist), editDistance(qc, compactName(name), maxDist) + 0.5);
    if (d > maxDist) return;
    out.push({ name_lower: name, similarity: 1 - d / Math.max(q.length, name.length), distance: d });
  };
  // A long name keeps most of its trigrams under a typo: an even sample of them finds it for less merging.
  const probe = grams.length > MAX_PROBE_GRAMS
    ? Array.from(
      { length: MAX_PROBE_GRAMS },
      (_, i) => grams[Math.round(i * (grams.length - 1) / (MAX_PROBE_GRAMS - 1))],
    )
    : grams;
  for (const name of namesSharingGrams(db, probe, FUZZY_CANDIDATES, bounds)) consider(name);
  // A short name with two letters swapped shares almost no trigram: compare it with every name of about its length.
  if (!out.length && lastResort && qc.length <= SHORT_NAME) {
    // Compact spellings first (cheap reject), the full comparison only for near misses.
    for (const name of namesOfCompactLength(db, Math.max(1, qc.length - 1), qc.length + 1, SHORT_SCAN, bounds)) {
      if (editDistance(qc, compactName(name), maxDist) <= maxDist) consider(name);
    }
  }
  out.sort((a, b) => a.distance - b.distance || b.similarity - a.similarity || (a.name_lower < b.name_lower ? -1 : 1));
  return out.slice(0, limit);
}
