/**
 * The trigram lists of the name lookup: for each trigram of the names' gram
 * texts (three characters over `[a-z0-9^$]`), the ids of the `symbol_names`
 * rows whose text holds it, ascending. A list is kept in chunks of about a
 * page (`name_grams`: key = the trigram's code × 2^32 + the chunk's lowest
 * id, 0 for a trigram's first chunk; see `decodeInto` for the bytes), so a
 * fuzzy lookup reads a common trigram's first ids from a few pages and
 * decodes them in a typed array, and a whole build writes every chunk once,
 * in key order. A sync writes its edits to a side table
 * (`name_gram_edits`: trigram, id, listed or not), which reads merge in; once
 * a trigram has more than FOLD_EDITS of them, they are folded into its
 * chunks, rewriting only the chunks they fall in. Needs no Deno permission
 * beyond the already open database.
 */
import type { Db } from "./db.ts";
import { statementOf } from "./read/rows.ts";
import { putVarint } from "./packed_ids.ts";

/** Schema of the packed trigram lists. */
export const NAME_GRAMS_SQL = `CREATE TABLE name_grams (key INTEGER PRIMARY KEY, ids BLOB NOT NULL);
  CREATE TABLE name_gram_edits (gram INTEGER NOT NULL, id INTEGER NOT NULL, listed INTEGER NOT NULL,
    PRIMARY KEY (gram, id)) WITHOUT ROWID;`;

/** Names a whole build reads per statement. */
const BUILD_BATCH = 100_000;

/** Edits a trigram keeps aside at most; past that they are folded into its chunks. */
export const FOLD_EDITS = 64;

/** The characters of a gram text, in code order. */
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789^$";
const BASE = ALPHABET.length;
/** Codes of every trigram: 0 to GRAM_CODES - 1. */
const GRAM_CODES = BASE * BASE * BASE;
/** A chunk's key is its trigram's code times this, plus its lowest id. */
const KEY_SPAN = 2 ** 32;
/** The bytes a chunk holds at most (its ids); a page of 4 KiB keeps such a row whole. */
export const CHUNK_BYTES = 4000;

/** The digit of each character code of the alphabet; -1 for any other. */
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

function digitAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? DIGIT[c] : -1;
}

/** The code of the trigram of `text` at `i`, or -1 when those are not three characters of the alphabet. */
function gramCodeAt(text: string, i: number): number {
  const a = digitAt(text, i);
  const b = digitAt(text, i + 1);
  const c = digitAt(text, i + 2);
  return a < 0 || b < 0 || c < 0 ? -1 : (a * BASE + b) * BASE + c;
}

/** The code of trigram `gram`, or -1 when it is not three characters of the alphabet. */
export function gramCode(gram: string): number {
  return gram.length === 3 ? gramCodeAt(gram, 0) : -1;
}

/** The codes of the distinct trigrams of `text` (a gram text), first seen first. */
export function gramCodesOf(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i + 3 <= text.length; i++) {
    const code = gramCodeAt(text, i);
    if (code >= 0 && !out.includes(code)) out.push(code);
  }
  return out;
}

/** Ids a group of a chunk holds (the last may hold fewer). */
const GROUP = 8;
/** The most bytes a chunk's head takes: its id count and first id, varints of five bytes at most. */
const HEAD_BYTES = 10;

/** Bits `v` (at least 0) takes. */
function bitsOf(v: number): number {
  return 32 - Math.clz32(v);
}

/**
 * Decodes the ids of chunk `bytes` into `out` from index `at`, stopping
 * once `out` holds `max` ids; returns the new count. A chunk is its id
 * count and first id (varints), then groups of up to GROUP ids: a byte
 * giving the bits `w` of each, then each id less the one before less one in
 * `w` bits, low bits first.
 */
function decodeInto(bytes: Uint8Array, out: Int32Array, at: number, max: number): number {
  let pos = 0;
  const varint = () => {
    // Ids stay below 2^31: five bytes at most, the fifth holding three bits, so bit operations do.
    let b = bytes[pos++];
    let v = b & 0x7f;
    for (let shift = 7; b & 0x80; shift += 7) {
      b = bytes[pos++];
      v |= (b & 0x7f) << shift;
    }
    return v;
  };
  let left = varint();
  if (left === 0 || at >= max) return at;
  let id = varint();
  out[at++] = id;
  left--;
  while (left > 0 && at < max) {
    const w = bytes[pos++];
    const n = Math.min(GROUP, left);
    const mask = w >= 31 ? 0x7fffffff : (1 << w) - 1;
    for (let k = 0, bit = 0; k < n && at < max; k++, bit += w) {
      const i = pos + (bit >>> 3);
      const shift = bit & 7;
      // Up to 24 bits sit within four bytes whatever the shift; wider gaps read a fifth.
      const v = w <= 24
        ? ((bytes[i] | bytes[i + 1] << 8 | bytes[i + 2] << 16 | bytes[i + 3] << 24) >>> shift) & mask
        : Math.floor(
          (bytes[i] + (bytes[i + 1] ?? 0) * 2 ** 8 + (bytes[i + 2] ?? 0) * 2 ** 16 + (bytes[i + 3] ?? 0) * 2 ** 24 +
            (bytes[i + 4] ?? 0) * 2 ** 32) / 2 ** shift,
        ) % 2 ** w;
      id += v + 1;
      out[at++] = id;
    }
    pos += (n * w + 7) >>> 3;
    left -= n;
  }
  return at;
}

/** Every id of chunk `bytes`, ascending. */
function decodeAll(bytes: Uint8Array): Int32Array {
  const out = new Int32Array(bytes.length * 8 + 2);
  return out.subarray(0, decodeInto(bytes, out, 0, out.length));
}

/**
 * `ids` (ascending, distinct) with `edits` applied (ascending by id, each
 * listing its id or not): ascending, distinct, at most `max` of them.
 */
function edited(ids: Int32Array, edits: readonly (readonly [number, boolean])[], max: number): Int32Array {
  const out = new Int32Array(Math.min(max, ids.length + edits.length));
  let n = 0;
  let i = 0;
  for (let e = 0; e <= edits.length && n < out.length; e++) {
    // The ids below this edit's, then the edit itself (it replaces an equal id).
    const stop = e < edits.length ? edits[e][0] : Infinity;
    while (i < ids.length && ids[i] < stop && n < out.length) out[n++] = ids[i++];
    if (e === edits.length || n >= out.length) break;
    if (i < ids.length && ids[i] === stop) i++;
    if (edits[e][1]) out[n++] = stop;
  }
  return out.subarray(0, n);
}

/**
 * Packs ascending ids into chunks (see `decodeInto`): one is filled up to
 * `fill` bytes (at most CHUNK_BYTES) before the next starts. Fed an id at a
 * time, so a whole build packs each trigram's ids as it meets them.
 */
class ChunkPacker {
  chunks: { lo: number; bytes: Uint8Array }[] = [];
  /** Chunks handed out before (`take`). */
  taken = 0;
  /** The groups written to the open chunk. */
  private body = new Uint8Array(16);
  private len = 0;
  /** The open chunk's first id, how many ids it holds (pending ones too), the last id written. */
  private first = 0;
  private count = 0;
  private tail = 0;
  /** Ids not yet written as a group. */
  private pending = new Int32Array(GROUP);
  private held = 0;
  /** The last id added. */
  last = -1;

  constructor(private readonly fill = CHUNK_BYTES) {}

  add(id: number): void {
    this.last = id;
    if (this.count++ === 0) {
      this.first = this.tail = id;
      return;
    }
    this.pending[this.held++] = id;
    if (this.held === GROUP) this.writeGroup();
  }

  /** The chunks closed since the last call, each with its key below its trigram's (see `name_grams`). */
  take(): { low: number; bytes: Uint8Array }[] {
    const out = this.chunks.map((c) => ({ low: this.taken++ === 0 ? 0 : c.lo, bytes: c.bytes }));
    this.chunks = [];
    return out;
  }

  /** The chunks of every id added. */
  finish(): { lo: number; bytes: Uint8Array }[] {
    // A group that starts a new chunk may leave ids pending again.
    while (this.held > 0) this.writeGroup();
    if (this.count > 0) this.close();
    return this.chunks;
  }

  private writeGroup(): void {
    const n = this.held;
    let w = 0;
    for (let k = 0, prev = this.tail; k < n; prev = this.pending[k++]) {
      w = Math.max(w, bitsOf(this.pending[k] - prev - 1));
    }
    const size = groupBytes(n, w);
    if (HEAD_BYTES + this.len + size > this.fill) {
      // The group starts the next chunk: its first id there is kept whole.
      this.count -= n;
      this.close();
      const ids = this.pending.slice(0, n);
      this.held = 0;
      for (const id of ids) this.add(id);
      return;
    }
    if (this.len + size > this.body.length) {
      const next = new Uint8Array(Math.max(this.body.length * 2, this.len + size));
      next.set(this.body.subarray(0, this.len));
      this.body = next;
    }
    const start = this.len;
    this.body.fill(0, start, start + size);
    this.body[start] = w;
    for (let k = 0, prev = this.tail, bit = 8 * (start + 1); k < n; prev = this.pending[k++]) {
      // Below 2^31: bit operations do. Written a byte's worth at a time.
      let v = this.pending[k] - prev - 1;
      for (let need = w; need > 0;) {
        const take = Math.min(8 - (bit & 7), need);
        this.body[bit >>> 3] |= (v & ((1 << take) - 1)) << (bit & 7);
        v >>>= take;
        bit += take;
        need -= take;
      }
    }
    this.len += size;
    this.tail = this.pending[n - 1];
    this.held = 0;
  }

  private close(): void {
    const head = new Uint8Array(HEAD_BYTES);
    const at = putVarint(head, putVarint(head, 0, this.count), this.first);
    const out = new Uint8Array(at + this.len);
    out.set(head.subarray(0, at));
    out.set(this.body.subarray(0, this.len), at);
    this.chunks.push({ lo: this.first, bytes: out });
    this.len = 0;
    this.count = 0;
  }
}

/** The bytes a group of `n` gaps of `w` bits each takes in a chunk: its width byte, then the bits. */
function groupBytes(n: number, w: number): number {
  return 1 + ((n * w + 7) >>> 3);
}

/** The bytes `ids` (ascending) take packed in one chunk. */
function packedBytes(ids: Int32Array): number {
  let n = HEAD_BYTES;
  for (let i = 1; i < ids.length; i += GROUP) {
    let w = 0;
    for (let j = i; j < Math.min(ids.length, i + GROUP); j++) w = Math.max(w, bitsOf(ids[j] - ids[j - 1] - 1));
    n += groupBytes(Math.min(GROUP, ids.length - i), w);
  }
  return n;
}

/**
 * Rebuilds every trigram list from `symbol_names`, `textOf` giving each
 * name's gram text: the names are read once in id order (inside SQLite, no
 * row object per name), each trigram's ids packed as they come, and the
 * chunks written in key order (so pages are filled whole).
 */
export function buildNameGrams(db: Db, textOf: (nameLower: string) => string): void {
  const packers: (ChunkPacker | undefined)[] = new Array(GRAM_CODES);
  const filled = new Set<number>();
  db.function("cruxe_name_grams_feed", { deterministic: false }, (id, name) => {
    const text = textOf(String(name));
    const n = Number(id);
    for (let i = 0; i + 3 <= text.length; i++) {
      const code = gramCodeAt(text, i);
      if (code < 0) continue;
      const p = packers[code] ??= new ChunkPacker();
      // A trigram met twice in one name lists it once.
      if (p.last === n) continue;
      p.add(n);
      if (p.chunks.length) filled.add(code);
    }
    return null;
  });
  // Chunks are filled in no order of their keys: they wait in a temporary table (on disk, not in memory), copied
  // into the store's in key order at the end, so its pages are filled whole.
  db.exec(`DELETE FROM name_grams; DELETE FROM name_gram_edits;
    DROP TABLE IF EXISTS temp.name_grams_built;
    CREATE TEMP TABLE name_grams_built (key INTEGER PRIMARY KEY, ids BLOB NOT NULL);`);
  const ins = db.prepare("INSERT INTO temp.name_grams_built(key, ids) VALUES (?, ?)");
  const write = (code: number, chunks: { low: number; bytes: Uint8Array }[]) => {
    for (const c of chunks) ins.run(code * KEY_SPAN + c.low, c.bytes);
  };
  const batch = db.prepare(`SELECT count(cruxe_name_grams_feed(id, name_lower)) AS n, max(id) AS m
    FROM (SELECT id, name_lower FROM symbol_names WHERE id > ? ORDER BY id LIMIT ${BUILD_BATCH})`);
  // Names a batch at a time; the chunks they filled are written between batches, so memory holds open chunks only.
  for (let after = 0;;) {
    const r = batch.get(after) as { n: number; m: number | null };
    if (r.m === null) break;
    after = Number(r.m);
    for (const code of filled) write(code, packers[code]!.take());
    filled.clear();
  }
  for (let code = 0; code < GRAM_CODES; code++) {
    const p = packers[code];
    if (!p) continue;
    p.finish();
    write(code, p.take());
    packers[code] = undefined;
  }
  db.exec(`INSERT INTO name_grams(key, ids) SELECT key, ids FROM temp.name_grams_built ORDER BY key;
    DROP TABLE temp.name_grams_built;`);
}

/** The edits trigram `code` keeps aside, ascending by id. */
function pendingEdits(db: Db, code: number): [number, boolean][] {
  const rows = statementOf(db, "SELECT id, listed FROM name_gram_edits WHERE gram = ? ORDER BY id").all(code);
  return rows.map((r) => [Number(r.id), Number(r.listed) === 1]);
}

/**
 * The first `want` ids of trigram `gram`, ascending (fewer when it holds
 * fewer; none for a string that is not a trigram of the alphabet), its
 * edits kept aside applied. Reads the trigram's chunks in order and stops
 * at the one that completes them (with as many ids more as edits take ids
 * out).
 */
export function firstIdsOf(db: Db, gram: string, want: number): Int32Array {
  const code = gramCode(gram);
  if (code < 0 || want <= 0) return new Int32Array(0);
  const edits = pendingEdits(db, code);
  const read = want + edits.filter((e) => !e[1]).length;
  const out = new Int32Array(read);
  let size = 0;
  const chunks = statementOf(db, "SELECT ids FROM name_grams WHERE key >= ? AND key < ? ORDER BY key")
    .iterate(code * KEY_SPAN, (code + 1) * KEY_SPAN) as Iterable<{ ids: Uint8Array | null }>;
  for (const c of chunks) {
    if (c.ids) size = decodeInto(c.ids, out, size, read);
    if (size >= read) break;
  }
  return edits.length ? edited(out.subarray(0, size), edits, want) : out.subarray(0, size);
}

/**
 * Edits of the trigram lists, gathered while a writer brings names up to
 * date and applied at once: a name's id added to or removed from each of
 * its trigrams. For one trigram and id the last edit wins, so an id freed
 * by a removed name and taken by a new one (SQLite gives the next name the
 * largest id again once it is free) ends listed exactly where the new name's
 * trigrams are.
 */
export class GramEdits {
  /** Per trigram code: id → listed after the edits. */
  private readonly byGram = new Map<number, Map<number, boolean>>();

  /** Lists `id` under every trigram of gram text `text`. */
  add(id: number, text: string): void {
    this.set(id, text, true);
  }

  /** Takes `id` out of every trigram of gram text `text`. */
  remove(id: number, text: string): void {
    this.set(id, text, false);
  }

  private set(id: number, text: string, listed: boolean): void {
    for (const code of gramCodesOf(text)) {
      let ids = this.byGram.get(code);
      if (!ids) this.byGram.set(code, ids = new Map());
      ids.set(id, listed);
    }
  }

  /**
   * Writes the edits (inside the caller's transaction) to the side table,
   * then folds the edits of each trigram that has more than FOLD_EDITS into
   * its chunks: a sync costs a row per edit, and a fold rewrites only the
   * chunks its edits fall in, never a whole list.
   */
  apply(db: Db): void {
    const put = statementOf(db, "INSERT OR REPLACE INTO name_gram_edits(gram, id, listed) VALUES (?, ?, ?)");
    const count = statementOf(db, "SELECT count(*) AS n FROM name_gram_edits WHERE gram = ?");
    for (const [code, edits] of this.byGram) {
      for (const [id, listed] of edits) put.run(code, id, listed ? 1 : 0);
      if (Number((count.get(code) as { n: number }).n) > FOLD_EDITS) foldEdits(db, code);
    }
    this.byGram.clear();
  }
}

/**
 * Folds the edits trigram `code` keeps aside into its chunks: each chunk an
 * edit falls in is read, edited and written back (split when grown past
 * CHUNK_BYTES, deleted when emptied). Each chunk holds the ids from its
 * lowest (its key's) up to the next chunk's: an id goes to the last chunk
 * keyed at or below it, or starts the trigram's first chunk (key lowest 0).
 */
function foldEdits(db: Db, code: number): void {
  const find = statementOf(db, "SELECT key, ids FROM name_grams WHERE key >= ? AND key <= ? ORDER BY key DESC LIMIT 1");
  const put = statementOf(db, "INSERT OR REPLACE INTO name_grams(key, ids) VALUES (?, ?)");
  const drop = statementOf(db, "DELETE FROM name_grams WHERE key = ?");
  const base = code * KEY_SPAN;
  // Each chunk's edits, by the chunk's key; the chunk's ids as stored.
  const byChunk = new Map<number, { ids: Int32Array; edits: [number, boolean][] }>();
  for (const edit of pendingEdits(db, code)) {
    const row = find.get(base, base + edit[0]) as { key: number; ids: Uint8Array | null } | undefined;
    // Below every chunk of the trigram (or none): a first chunk starts.
    const key = row ? Number(row.key) : base;
    let chunk = byChunk.get(key);
    if (!chunk) byChunk.set(key, chunk = { ids: row?.ids ? decodeAll(row.ids) : new Int32Array(0), edits: [] });
    chunk.edits.push(edit);
  }
  for (const [key, chunk] of byChunk) {
    const ids = edited(chunk.ids, chunk.edits, Infinity);
    if (!ids.length) {
      drop.run(key);
      continue;
    }
    const bytes = packedBytes(ids);
    // Split into pieces of about equal size, each within CHUNK_BYTES (a piece's first id is kept whole).
    const pieces = Math.ceil(bytes / CHUNK_BYTES);
    const packer = new ChunkPacker(Math.min(CHUNK_BYTES, Math.ceil(bytes / pieces) + 5));
    for (const id of ids) packer.add(id);
    packer.finish().forEach((c, k) => put.run(k === 0 ? key : base + c.lo, c.bytes));
  }
  statementOf(db, "DELETE FROM name_gram_edits WHERE gram = ?").run(code);
}
