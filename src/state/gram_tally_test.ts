import assert from "node:assert/strict";
import { IdList, mostShared, tallyIds } from "./gram_tally.ts";

/**
 * The selection as the fuzzy lookup made it before the typed counting: ids parsed one by one, a
 * first-met list of plain numbers, one bucket per count, each bucket sorted whole. What it returns is
 * what the new counting must return.
 */
function reference(lists: string[], cap: number, top: number, limit: number): { ids: number[]; capped: boolean } {
  const hits = new Uint8Array(top + 1);
  const touched: number[] = [];
  let capped = false;
  for (const list of lists) {
    if (!list) continue;
    let listed = 0;
    for (const id of list.split(",").map(Number)) {
      if (++listed > cap) {
        capped = true;
        break;
      }
      if (id <= top && hits[id]++ === 0) touched.push(id);
    }
  }
  const byHits: number[][] = Array.from({ length: lists.length + 1 }, () => []);
  for (const id of touched) byHits[hits[id]].push(id);
  const ids: number[] = [];
  for (let h = lists.length; h > 0 && ids.length < limit; h--) {
    ids.push(...byHits[h].sort((a, b) => a - b).slice(0, limit - ids.length));
  }
  return { ids, capped };
}

/** A comma-separated list as the store's reads hand it over: ids in a typed array. */
function decoded(list: string): Int32Array {
  return Int32Array.from(list ? list.split(",").map(Number) : []);
}

function counted(lists: string[], cap: number, top: number, limit: number): { ids: number[]; capped: boolean } {
  const hits = new Uint8Array(top + 1);
  const touched = new IdList();
  let capped = false;
  for (const list of lists) if (tallyIds(decoded(list), cap, top, hits, touched)) capped = true;
  return { ids: mostShared(hits, touched, lists.length, limit), capped };
}

/** A small deterministic generator, so a failure names a seed that reproduces it. */
function generator(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return Math.floor((s / 2147483648) * n);
  };
}

/** Up to `k` posting lists over ids 1..span: ascending, distinct, comma-separated (some empty). */
function randomLists(rand: (n: number) => number, k: number, span: number): string[] {
  return Array.from({ length: k }, () => {
    // Dense and sparse lists both: a few ids, or most of the range.
    const density = [0, 0.02, 0.1, 0.5, 0.9][rand(5)];
    const ids: number[] = [];
    for (let id = 1; id <= span; id++) if (rand(1000) < density * 1000) ids.push(id);
    return ids.join(",");
  });
}

Deno.test("typed counting picks the ids the per-bucket selection picked, ties to the smaller id", () => {
  let compared = 0;
  let cappedSeen = 0;
  let tiesCut = 0;
  for (let seed = 1; seed <= 400; seed++) {
    const rand = generator(seed);
    const top = 1 + rand(600);
    // Some ids past the last name row: the lookup ignores them.
    const lists = randomLists(rand, 1 + rand(12), top + rand(40));
    const cap = 1 + rand(300);
    const limit = rand(80) - 5;
    const want = reference(lists, cap, top, limit);
    assert.deepEqual(counted(lists, cap, top, limit), want, `seed ${seed}`);
    compared++;
    if (want.capped) cappedSeen++;
    if (want.ids.length === limit) tiesCut++;
  }
  // The cases that matter were met: capped lists, and selections cut inside a level.
  assert.equal(compared, 400);
  assert.ok(cappedSeen > 50, `capped ${cappedSeen}`);
  assert.ok(tiesCut > 50, `cut ${tiesCut}`);
});

Deno.test("typed counting: most-shared first, then smaller ids; a list past its cap counts its first ids only", () => {
  const hits = new Uint8Array(11);
  const touched = new IdList();
  assert.equal(tallyIds(decoded("2,5,9"), 3, 10, hits, touched), false);
  assert.equal(tallyIds(decoded("1,5,7,9"), 3, 10, hits, touched), true); // 9 is past the cap
  assert.equal(tallyIds(decoded("5,7,12"), 5, 10, hits, touched), false); // 12 is past the last row
  assert.equal(tallyIds(decoded(""), 5, 10, hits, touched), false);
  assert.deepEqual(Array.from(touched.ids.subarray(0, touched.size)), [2, 5, 9, 1, 7]);
  assert.deepEqual(mostShared(hits, touched, 3, 10), [5, 7, 1, 2, 9]);
  assert.deepEqual(mostShared(hits, touched, 3, 3), [5, 7, 1]);
  assert.deepEqual(mostShared(hits, touched, 3, 0), []);
});
