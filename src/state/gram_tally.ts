/**
 * Counting the trigram posting lists of a fuzzy name lookup: how many of the
 * lists hold each name id, and the ids held by the most lists. Pure: no
 * database, no Deno permission. The lists arrive decoded in typed arrays
 * (ascending ids), and a typed array holds the counts, so a lookup over
 * hundreds of thousands of ids builds no object per id and sorts only the
 * ids it keeps.
 */

/** Ids met so far, each once, in the order first met (a growable typed array). */
export class IdList {
  ids = new Int32Array(1024);
  size = 0;

  /** Room for `more` ids past the current ones. */
  reserve(more: number): void {
    if (this.size + more <= this.ids.length) return;
    const next = new Int32Array(Math.max(this.size + more, this.ids.length * 2));
    next.set(this.ids.subarray(0, this.size));
    this.ids = next;
  }
}

/**
 * Adds one posting list to the counts: for each of the first `cap` ids of
 * `list` (ascending, distinct) that is at most `top`, `hits[id]` goes up by
 * one, and an id counted for the first time is appended to `touched`.
 * Returns true when `list` has more than `cap` ids (the rest were not
 * counted).
 */
export function tallyIds(list: Int32Array, cap: number, top: number, hits: Uint8Array, touched: IdList): boolean {
  const counted = Math.min(cap, list.length);
  touched.reserve(counted);
  const ids = touched.ids;
  let size = touched.size;
  for (let i = 0; i < counted; i++) {
    const n = list[i];
    if (n <= top && hits[n]++ === 0) ids[size++] = n;
  }
  touched.size = size;
  return list.length > cap;
}

/**
 * The ids of `touched` that the most lists hold (`hits[id]`, at most
 * `levels`), most first and then the smaller id first, at most `limit`:
 * the ids above the level where `limit` is reached, then the smallest ids of
 * that level.
 */
export function mostShared(hits: Uint8Array, touched: IdList, levels: number, limit: number): number[] {
  if (limit <= 0) return [];
  const { ids, size } = touched;
  const perLevel = new Int32Array(levels + 1);
  for (let i = 0; i < size; i++) perLevel[hits[ids[i]]]++;
  // The level whose ids fill the last places: every id above it is kept, and the smallest of its own.
  let level = 1;
  let above = 0;
  for (let h = levels; h >= 1; h--) {
    if (above + perLevel[h] >= limit) {
      level = h;
      break;
    }
    above += perLevel[h];
  }
  const higher: number[] = [];
  const atLevel = new Int32Array(perLevel[level]);
  let k = 0;
  for (let i = 0; i < size; i++) {
    const h = hits[ids[i]];
    if (h > level) higher.push(ids[i]);
    else if (h === level) atLevel[k++] = ids[i];
  }
  higher.sort((a, b) => hits[b] - hits[a] || a - b);
  atLevel.sort();
  for (let i = 0; i < atLevel.length && higher.length < limit; i++) higher.push(atLevel[i]);
  return higher;
}
