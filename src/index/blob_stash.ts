/**
 * Blob bytes read ahead of a ref build's parse, each taken once: held in
 * memory up to a byte budget, written to files in a directory of the
 * caller's past it, so a build that parses a whole tree (a kernel's 1 GiB of
 * sources) holds at most the budget. Requires `--allow-write` on `dir`.
 */
import { join } from "node:path";

/** Bytes per path, each taken at most once. */
export class BlobStash {
  private mem = new Map<string, Uint8Array>();
  private onDisk = new Map<string, string>();
  private memBytes = 0;
  private files = 0;

  /** `dir` is created on the first blob past `budget` bytes and removed by `close`. */
  constructor(private readonly dir: string, private readonly budget: number) {}

  /** Keeps `bytes` for `path` (the caller gives up the buffer). */
  put(path: string, bytes: Uint8Array): void {
    if (this.memBytes + bytes.length <= this.budget) {
      this.mem.set(path, bytes);
      this.memBytes += bytes.length;
      return;
    }
    if (this.files === 0) Deno.mkdirSync(this.dir, { recursive: true });
    const file = join(this.dir, String(this.files++));
    Deno.writeFileSync(file, bytes);
    this.onDisk.set(path, file);
  }

  /** The paths kept and not yet taken. */
  paths(): string[] {
    return [...this.mem.keys(), ...this.onDisk.keys()];
  }

  /** How many paths are kept and not yet taken. */
  get size(): number {
    return this.mem.size + this.onDisk.size;
  }

  /** The bytes of `path`, forgotten here once taken; undefined when none are kept. */
  take(path: string): Uint8Array | undefined {
    const b = this.mem.get(path);
    if (b) {
      this.mem.delete(path);
      this.memBytes -= b.length;
      return b;
    }
    const file = this.onDisk.get(path);
    if (file === undefined) return undefined;
    this.onDisk.delete(path);
    const bytes = Deno.readFileSync(file);
    Deno.removeSync(file);
    return bytes;
  }

  /** Drops whatever was not taken, and the directory. */
  close(): void {
    this.mem.clear();
    this.onDisk.clear();
    this.memBytes = 0;
    if (this.files === 0) return;
    try {
      Deno.removeSync(this.dir, { recursive: true });
    } catch { /* already gone */ }
  }
}
