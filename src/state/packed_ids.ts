/**
 * Numbers packed into bytes as varints (7 bits a byte, low bits first), and
 * ascending row ids packed as the distances between them, so nearby ids
 * take a byte or two each. No I/O, no Deno permission.
 */

/** Writes `v` (0 to 2^31 - 1) as a varint at `at` of `buf`; returns the index after it. */
export function putVarint(buf: Uint8Array, at: number, v: number): number {
  while (v >= 0x80) {
    buf[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[at++] = v;
  return at;
}

/** Varints appended to a growing buffer. */
export class VarintWriter {
  private buf: Uint8Array;
  private len = 0;

  /** `expected`: about how many bytes will be written (the buffer grows past it). */
  constructor(expected = 64) {
    this.buf = new Uint8Array(Math.max(16, expected));
  }

  /** Appends `v` (0 to 2^31 - 1). */
  put(v: number): void {
    if (this.len + 5 > this.buf.length) {
      const grown = new Uint8Array(this.buf.length * 2);
      grown.set(this.buf);
      this.buf = grown;
    }
    this.len = putVarint(this.buf, this.len, v);
  }

  /** Appends `ids` (ascending, distinct) as distances from the one before: the count first. */
  putIds(ids: ArrayLike<number>): void {
    this.put(ids.length);
    for (let i = 0, last = 0; i < ids.length; last = ids[i++]) this.put(ids[i] - last);
  }

  /** The bytes written. */
  bytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

/** Reads back what a `VarintWriter` wrote, in order. */
export class VarintReader {
  private pos = 0;

  constructor(private readonly bytes: Uint8Array) {}

  /** Whether every byte has been read. */
  get done(): boolean {
    return this.pos >= this.bytes.length;
  }

  /** The next number (0 past the end). */
  next(): number {
    let b = this.bytes[this.pos++] ?? 0;
    let v = b & 0x7f;
    for (let shift = 7; b & 0x80 && this.pos < this.bytes.length; shift += 7) {
      b = this.bytes[this.pos++];
      v += (b & 0x7f) * 2 ** shift;
    }
    return v;
  }

  /** The next ids `putIds` wrote, ascending. */
  nextIds(): number[] {
    const out: number[] = [];
    let id = 0;
    for (let n = this.next(); n > 0; n--) out.push(id += this.next());
    return out;
  }
}
