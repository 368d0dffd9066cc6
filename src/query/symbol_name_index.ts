/**
 * The in-memory fuzzy tier of locate_symbol: a flexsearch index over the
 * distinct symbol names of one project index, built from SQLite and never
 * the source of truth. Candidates come from shared character trigrams (so a
 * dropped, doubled or swapped letter still shares most of them); they are
 * then re-ranked by edit distance, which is what decides.
 *
 * One index per open `Db`, brought up to date when the store changed since it
 * was built (`PRAGMA data_version` says another connection committed; the
 * published `last_indexed_at` and the newest symbol row say whether the names
 * moved). A change to a few files (an incremental sync) patches the index:
 * the files whose content hash moved lose their entries and get the new rows;
 * only a change to many files rebuilds it. A reader that reopens its
 * connection after a publish hands the index over (`adoptNameIndex`).
 * Needs no Deno permission beyond the already open database.
 */
import { Index } from "flexsearch";
import { type Db, getMeta } from "../state/db.ts";

/** One fuzzy candidate: a lower-case symbol name and how close it is (0..1). */
export interface FuzzyName {
  name_lower: string;
  similarity: number;
  distance: number;
}

/**
 * What ranking needs of one definition; full rows are read from SQLite only
 * for the results shown. Compact on purpose (one per symbol): strings that
 * repeat are shared, and the qualified name is kept as its owner part
 * (`pkg.Type.`, shared by all members of `Type`) plus the name.
 */
export class NameEntry {
  constructor(
    readonly id: number,
    readonly name: string,
    private readonly owner: string,
    readonly kind: string,
    readonly language: string,
    /** No enclosing symbol. */
    readonly top: boolean,
    readonly visibility: string | null,
    readonly path: string,
    readonly line_start: number,
  ) {}

  get qualified_name(): string {
    return this.owner + this.name;
  }
}

/** The rare definition whose qualified name does not end with its name. */
class UnownedNameEntry extends NameEntry {
  constructor(private readonly full: string, ...args: ConstructorParameters<typeof NameEntry>) {
    super(...args);
  }

  override get qualified_name(): string {
    return this.full;
  }
}

interface Built {
  dataVersion: number;
  signature: string;
  /** Distinct lower-case names, sorted (binary search gives prefix ranges). */
  names: string[];
  /** Definitions per lower-case name (a name without definitions left by a patch has no entry). */
  byName: Map<string, NameEntry[]>;
  /** Trigram index; ids are positions in `nameById`. */
  index: Index;
  /** Every name ever added to `index`, by id (append-only, so a patch never renumbers). */
  nameById: string[];
  /** Short names by their count of letters and digits: the names and their spellings without separators. */
  byCompactLength: Map<number, { names: string[]; compact: string[] }>;
  /** Content hash of each indexed file when the index was built or last patched. */
  fileHashes: Map<string, string>;
  buildMs: number;
  /** How it got its current content: a full build, or a patch after a sync. */
  origin: "built" | "patched";
}

const cache = new WeakMap<Db, Built>();
/** Trigrams of a query used to gather fuzzy candidates. */
const MAX_PROBE_GRAMS = 10;
/** Names up to this many letters get the exhaustive same-length comparison when trigrams find nothing. */
const SHORT_NAME = 7;

/** Character trigrams of a name with word-boundary markers; separators are ignored. */
function trigrams(name: string): string[] {
  const t = "^" + name.toLowerCase().replace(/[^a-z0-9]+/g, "") + "$";
  const out: string[] = [];
  for (let i = 0; i + 3 <= t.length; i++) out.push(t.slice(i, i + 3));
  return out;
}

function dataVersion(db: Db): number {
  const r = db.prepare("PRAGMA data_version").get() as Record<string, number>;
  return Number(Object.values(r)[0]);
}

function storeSignature(db: Db): string {
  const r = db.prepare("SELECT max(id) AS m, count(*) AS c FROM symbols").get() as { m: number | null; c: number };
  // The millisecond publish time: two syncs within one second can leave count and max(id) unchanged.
  return `${getMeta(db, "published_at_ms") ?? getMeta(db, "last_indexed_at") ?? ""}|${r.m ?? 0}|${r.c}`;
}

/** Rows or names handled between two yields of an incremental build. */
const BUILD_SLICE = 4000;

/**
 * Builds the name index step by step: yields every `BUILD_SLICE` rows or
 * names, so a server can build it between requests instead of in one block.
 */
function* buildSteps(db: Db): Generator<void, Built> {
  const t0 = performance.now();
  // What the index is "as of" is read before the rows: a commit landing in between leaves the rows newer than
  // the recorded state, which the next check finds and patches; the other order would hide that commit for good.
  const asOf = { dataVersion: dataVersion(db), signature: storeSignature(db), fileHashes: fileHashes(db) };
  let n = 0;
  const byName = new Map<string, NameEntry[]>();
  // Paths, kinds and languages repeat across rows: keep one copy of each string.
  const interned = new Map<string, string>();
  const intern = (x: string) => {
    const have = interned.get(x);
    if (have !== undefined) return have;
    interned.set(x, x);
    return x;
  };
  // Rowid order reads the table sequentially; grouping happens here, not in SQLite.
  const rows = db.prepare(
    `SELECT id, name, name_lower, qualified_name, kind, language, parent_id, visibility, path, line_start
     FROM symbols ORDER BY id`,
  ).iterate() as Iterable<SymbolNameRow>;
  for (const r of rows) {
    const e = entryOf(r, intern);
    const list = byName.get(r.name_lower);
    if (list) list.push(e);
    else byName.set(r.name_lower, [e]);
    if (++n % BUILD_SLICE === 0) yield;
  }
  const names = [...byName.keys()].sort();
  const built: Built = {
    ...asOf,
    names,
    byName,
    index: newTrigramIndex(),
    nameById: [],
    byCompactLength: new Map(),
    buildMs: 0,
    origin: "built",
  };
  for (let i = 0; i < names.length; i++) {
    addName(built, names[i]);
    if (i % BUILD_SLICE === BUILD_SLICE - 1) yield;
  }
  built.buildMs = performance.now() - t0;
  return built;
}

function newTrigramIndex(): Index {
  // Terms are the trigrams themselves: split on spaces only, no normalizing or stemming.
  return new Index({
    tokenize: "strict",
    resolution: 1, // matched-trigram counts rank candidates; term positions do not matter
    encoder: { split: " ", normalize: false, dedupe: false, numeric: false },
  });
}

/** Puts a new distinct name into the trigram index and its length bucket (not into the sorted `names`). */
function addName(b: Built, name: string): void {
  const id = b.nameById.length;
  b.nameById.push(name);
  const g = trigrams(name);
  if (g.length) b.index.add(id, g.join(" "));
  const len = g.length; // "^" + letters + "$" has as many trigrams as letters
  if (len <= SHORT_NAME + 1) {
    let bucket = b.byCompactLength.get(len);
    if (!bucket) b.byCompactLength.set(len, bucket = { names: [], compact: [] });
    bucket.names.push(name);
    bucket.compact.push(name.replace(/[^a-z0-9]+/g, ""));
  }
}

function fileHashes(db: Db): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of db.prepare("SELECT path, hash FROM files").iterate() as Iterable<{ path: string; hash: string }>) {
    out.set(r.path, r.hash);
  }
  return out;
}

/** A patch is cheaper than a rebuild while at most this share of the files changed. */
const PATCH_MAX_SHARE = 0.2;
/** SQLite host parameters per statement when reading the rows of changed files. */
const PATHS_PER_QUERY = 400;

/**
 * Brings `b` up to date with `db` when only some files changed: their old
 * entries go, their new rows come in. Returns false (nothing touched) when so
 * many files changed that a rebuild is the better deal.
 */
function patch(b: Built, db: Db): boolean {
  const t0 = performance.now();
  // Read before the rows, as in a build: a commit in between is found by the next check.
  const version = dataVersion(db);
  const signature = storeSignature(db);
  const now = fileHashes(db);
  const changed = new Set<string>();
  for (const [path, hash] of now) if (b.fileHashes.get(path) !== hash) changed.add(path);
  for (const path of b.fileHashes.keys()) if (!now.has(path)) changed.add(path);
  if (changed.size > Math.max(50, PATCH_MAX_SHARE * Math.max(now.size, b.fileHashes.size))) return false;
  const touched = new Set<string>();
  if (changed.size) {
    for (const [name, list] of b.byName) {
      if (!list.some((e) => changed.has(e.path))) continue;
      const kept = list.filter((e) => !changed.has(e.path));
      if (kept.length) b.byName.set(name, kept);
      else b.byName.delete(name);
      touched.add(name);
    }
    const paths = [...changed].filter((p) => now.has(p));
    const added: string[] = [];
    for (let i = 0; i < paths.length; i += PATHS_PER_QUERY) {
      const part = paths.slice(i, i + PATHS_PER_QUERY);
      const rows = db.prepare(
        `SELECT id, name, name_lower, qualified_name, kind, language, parent_id, visibility, path, line_start
         FROM symbols WHERE path IN (${part.map(() => "?").join(",")}) ORDER BY id`,
      ).all(...part) as unknown as SymbolNameRow[];
      for (const r of rows) {
        const list = b.byName.get(r.name_lower);
        if (list) list.push(entryOf(r));
        else {
          b.byName.set(r.name_lower, [entryOf(r)]);
          added.push(r.name_lower);
        }
      }
    }
    // Names that lost every definition leave the sorted list; new ones join it (trigram ids never move).
    const known = new Set(b.nameById);
    for (const n of added) if (!known.has(n)) addName(b, n);
    const gone = [...touched].some((n) => !b.byName.has(n));
    if (added.length || gone) {
      const listed = new Set(b.names);
      b.names = [...b.names.filter((n) => b.byName.has(n)), ...added.filter((n) => !listed.has(n))].sort();
    }
  }
  // Every row must be accounted for; anything else (rows renumbered by a rebuild) means rebuild.
  let entries = 0;
  for (const list of b.byName.values()) entries += list.length;
  const rows = (db.prepare("SELECT count(*) AS c FROM symbols").get() as { c: number }).c;
  if (entries !== Number(rows)) {
    cache.delete(db);
    return false;
  }
  b.fileHashes = now;
  b.dataVersion = version;
  b.signature = signature;
  b.buildMs = performance.now() - t0;
  b.origin = "patched";
  return true;
}

interface SymbolNameRow {
  id: number;
  name: string;
  name_lower: string;
  qualified_name: string;
  kind: string;
  language: string;
  parent_id: number | null;
  visibility: string | null;
  path: string;
  line_start: number;
}

function entryOf(r: SymbolNameRow, intern: (s: string) => string = (x) => x): NameEntry {
  const q = r.qualified_name;
  const fields = [
    r.id,
    intern(r.name),
    intern(q.endsWith(r.name) ? q.slice(0, q.length - r.name.length) : ""),
    intern(r.kind),
    intern(r.language),
    r.parent_id === null,
    r.visibility === null ? null : intern(r.visibility),
    intern(r.path),
    r.line_start,
  ] as const;
  return q.endsWith(r.name) ? new NameEntry(...fields) : new UnownedNameEntry(q, ...fields);
}

/**
 * Hands the name index of a connection that is being replaced to its
 * successor on the same store (a reader reopening after an incremental
 * publish, which keeps the row ids of unchanged files), so the next query
 * patches it instead of rebuilding it. Not for a rebuilt store: its rows are
 * renumbered.
 */
export function adoptNameIndex(from: Db, to: Db): void {
  const have = cache.get(from);
  if (!have || cache.has(to)) return;
  // data_version is per connection, and the signature cannot tell every sync apart: compare file hashes.
  have.dataVersion = Number.NaN;
  have.signature = "";
  cache.set(to, have);
}

/** Builds in one go (a query needs the index now). */
function build(db: Db): Built {
  const steps = buildSteps(db);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

function current(db: Db): Built {
  const have = cache.get(db);
  if (have) {
    const v = dataVersion(db);
    if (v === have.dataVersion) return have;
    if (storeSignature(db) === have.signature) {
      have.dataVersion = v;
      return have;
    }
    if (patch(have, db)) return have;
  }
  const built = build(db);
  cache.set(db, built);
  return built;
}

/**
 * Builds (or confirms) the name index of `db` ahead of the first query, so a
 * server can prewarm workspaces. Returns the number of names and build time.
 */
export function warmSymbolIndex(db: Db): { names: number; build_ms: number; origin: "built" | "patched" } {
  const b = current(db);
  return { names: b.names.length, build_ms: Math.round(b.buildMs), origin: b.origin };
}

/**
 * Like `warmSymbolIndex`, but builds in slices with a macrotask between them,
 * so requests (health checks, other tools) keep being answered meanwhile.
 */
export async function warmSymbolIndexAsync(
  db: Db,
): Promise<{ names: number; build_ms: number; origin: "built" | "patched" }> {
  const have = cache.get(db);
  const stale = have && dataVersion(db) !== have.dataVersion && storeSignature(db) !== have.signature;
  if (!have || (stale && !patch(have, db))) {
    const steps = buildSteps(db);
    for (;;) {
      const r = steps.next();
      if (r.done) {
        // A query may have built it meanwhile; keep whichever is there.
        if (!cache.has(db)) cache.set(db, r.value);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
  return warmSymbolIndex(db);
}

/** Definitions whose lower-case name is `nameLower`. */
export function definitionsNamed(db: Db, nameLower: string): NameEntry[] {
  return current(db).byName.get(nameLower) ?? [];
}

/** First position in sorted `names` not below `x`. */
function lowerBound(names: string[], x: string): number {
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (names[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Definitions whose lower-case name starts with `prefixLower` (the name
 * itself excluded), shortest names first, at most `max` of them, and how many
 * there are in all.
 */
export function definitionsWithPrefix(db: Db, prefixLower: string, max: number): { rows: NameEntry[]; total: number } {
  const b = current(db);
  const from = lowerBound(b.names, prefixLower);
  const names: string[] = [];
  for (let i = from; i < b.names.length && b.names[i].startsWith(prefixLower); i++) {
    if (b.names[i] !== prefixLower) names.push(b.names[i]);
  }
  names.sort((a, c) => a.length - c.length || (a < c ? -1 : 1));
  const rows: NameEntry[] = [];
  let total = 0;
  for (const n of names) {
    const list = b.byName.get(n)!;
    total += list.length;
    for (const e of list) if (rows.length < max) rows.push(e);
  }
  return { rows, total };
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
 * short words do not match everything.
 */
export function fuzzyNames(db: Db, query: string, limit = 20): FuzzyName[] {
  const q = query.toLowerCase();
  const grams = trigrams(q);
  if (grams.length === 0 || q.length > 200) return [];
  const b = current(db);
  const maxDist = Math.max(1, Math.floor(q.length / 4));
  const compact = (s: string) => s.replace(/[^a-z0-9]+/g, "");
  const qc = compact(q);
  const out: FuzzyName[] = [];
  const consider = (name: string | undefined) => {
    if (name === undefined || name === q) return;
    // Separators (`_`, `$`) differ a lot between conventions; compare without them, but prefer equal spelling.
    const d = Math.min(editDistance(q, name, maxDist), editDistance(qc, compact(name), maxDist) + 0.5);
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
  for (const id of b.index.search(probe.join(" "), { limit: 200, suggest: true }) as number[]) {
    if (b.byName.has(b.nameById[id])) consider(b.nameById[id]);
  }
  // A short name with two letters swapped shares almost no trigram: compare it with every name of about its length.
  if (!out.length && qc.length <= SHORT_NAME) {
    for (let len = Math.max(1, qc.length - 1); len <= qc.length + 1; len++) {
      const bucket = b.byCompactLength.get(len);
      if (!bucket) continue;
      // Compact spellings first (cheap reject), the full comparison only for near misses.
      for (let k = 0; k < bucket.names.length; k++) {
        if (editDistance(qc, bucket.compact[k], maxDist) <= maxDist && b.byName.has(bucket.names[k])) {
          consider(bucket.names[k]);
        }
      }
    }
  }
  out.sort((a, b) => a.distance - b.distance || b.similarity - a.similarity || (a.name_lower < b.name_lower ? -1 : 1));
  return out.slice(0, limit);
}
