/**
 * The text of chunks whose file is their source. The working tree's index
 * stores a chunk's lines, not its text (`chunk_rows.content` is NULL): the
 * text is the file's own, read through the safe open and checked against
 * the digest the index recorded, so what a reader gets is exactly what was
 * indexed, or nothing. A file that changed since it was indexed gives no
 * text: its chunks are left out of a list (the rest of the answer stands,
 * and the index's freshness says it is behind), and a chunk whose file
 * changed between the listing and the read throws `index_stale`. Refs
 * stores keep their chunks' text (a git blob is not a file to read).
 *
 * Recently read files are kept (about 2M characters) while their `stat` identity and
 * the index's digest stay the same: the same test the indexer uses to
 * decide a file is unchanged.
 * Requires `--allow-read` on the repository.
 */
import { join } from "node:path";
import { createHash } from "node:crypto";
import { CruxeError } from "../../core/errors.ts";
import type { Db } from "../db.ts";
import { getMeta } from "../db.ts";
import { readRepoFile } from "../../io/safe_open.ts";
import { MAX_CHUNK_CHARS } from "../file_rows.ts";
import { oneRow } from "./rows.ts";
import { type IndexedFacts, indexedFacts } from "./files.ts";

/** What a chunk's text is cut from: its file's lines, as the index read them. */
export interface StoredChunk {
  path: string;
  line_start: number;
  line_end: number;
  /** The stored text, or null when the file is the source. */
  content: string | null;
}

/** A stored chunk with its text. */
export type WithText<T extends StoredChunk> = T & { content: string };

/** A file read and verified: its lines and the stat identity it had. */
interface Loaded {
  hash: string;
  identity: string;
  lines: string[];
  chars: number;
}

/** Characters of file text kept per connection. */
const CACHE_CHARS = 2 * 1024 * 1024;

/**
 * Per connection: the repository root, the verified files recently read,
 * the lines already verified in the current task, and which files the
 * current task found still as indexed (a query runs in one synchronous task:
 * its many reads and lists of one file check it once).
 */
interface TextCache {
  root: string | null;
  files: Map<string, Loaded>;
  chars: number;
  turn: Map<string, string[]>;
  present: Map<string, boolean>;
}

const caches = new WeakMap<Db, TextCache>();
const decoder = new TextDecoder("utf-8");

function cacheOf(db: Db): TextCache {
  let c = caches.get(db);
  if (!c) {
    c = { root: getMeta(db, "repo_root"), files: new Map(), chars: 0, turn: new Map(), present: new Map() };
    caches.set(db, c);
  }
  return c;
}

/** Forgets, once the current task ends, what it verified. */
function endOfTask(c: TextCache): void {
  if (!c.turn.size && !c.present.size) {
    queueMicrotask(() => {
      c.turn.clear();
      c.present.clear();
    });
  }
}

/** Notes `lines` as verified until the current task ends. */
function verified(c: TextCache, path: string, lines: string[]): string[] {
  endOfTask(c);
  c.turn.set(path, lines);
  return lines;
}

function indexedFile(db: Db, path: string): IndexedFacts | undefined {
  return oneRow<IndexedFacts>(db, "SELECT hash, size, mtime_ms FROM files WHERE path = ?", path);
}

/** The stat identity of `abs` (device, inode, size, times), or null when it cannot be had. */
function identityOf(abs: string): { key: string; size: number; mtimeMs: number } | null {
  try {
    const s = Deno.statSync(abs);
    const mtimeMs = s.mtime?.getTime() ?? 0;
    return { key: `${s.dev}:${s.ino}:${s.size}:${mtimeMs}:${s.ctime?.getTime() ?? 0}`, size: s.size, mtimeMs };
  } catch {
    return null;
  }
}

/** `path`'s lines when the file still has the indexed digest (read, verified and kept), else null. */
function load(c: TextCache, path: string, want: IndexedFacts): Loaded | null {
  if (c.root === null) return null;
  const before = identityOf(join(c.root, path));
  let bytes: Uint8Array;
  try {
    bytes = readRepoFile(c.root, path, { maxBytes: want.size }).bytes;
  } catch {
    return null; // gone, grown, swapped for a link: not the file that was indexed
  }
  if (createHash("sha1").update(bytes).digest("hex") !== want.hash) return null;
  const text = decoder.decode(bytes);
  const loaded = { hash: want.hash, identity: before?.key ?? "", lines: text.split("\n"), chars: text.length };
  c.files.delete(path);
  c.files.set(path, loaded);
  c.chars += loaded.chars;
  for (const [p, f] of c.files) {
    if (c.chars <= CACHE_CHARS || p === path) break;
    c.files.delete(p);
    c.chars -= f.chars;
  }
  return loaded;
}

/** The verified lines of `path` (kept, or read now), or null when the file is no longer what was indexed. */
function linesOf(db: Db, path: string): string[] | null {
  const c = cacheOf(db);
  const now = c.turn.get(path);
  if (now) return now;
  const want = indexedFile(db, path);
  if (!want || c.root === null) return null;
  const kept = c.files.get(path);
  if (kept && kept.hash === want.hash && kept.identity === identityOf(join(c.root, path))?.key) {
    return verified(c, path, kept.lines);
  }
  const loaded = load(c, path, want);
  return loaded ? verified(c, path, loaded.lines) : null;
}

/**
 * True when `path` may still be the file that was indexed: kept and
 * unchanged, or its size and mtime are the indexed ones (the digest is
 * checked when its text is read), or else read now and its digest matches.
 * `want` is the file's indexed row (absent: not indexed).
 */
function mayBeIndexed(c: TextCache, path: string, want: IndexedFacts | undefined): boolean {
  if (c.turn.has(path)) return true;
  if (!want || c.root === null) return false;
  const id = identityOf(join(c.root, path));
  if (!id) return false;
  const kept = c.files.get(path);
  if (kept && kept.hash === want.hash && kept.identity === id.key) return true;
  if (id.size === want.size && id.mtimeMs === want.mtime_ms) return true;
  return load(c, path, want) !== null;
}

/**
 * For each file of `rows` whose text is its file's: whether it may still be
 * the file that was indexed (`mayBeIndexed`), checked once per task; the
 * indexed rows of the files not yet checked are read by one statement.
 */
function presentFiles(db: Db, rows: StoredChunk[]): Map<string, boolean> {
  const c = cacheOf(db);
  const unchecked = [...new Set(rows.filter((r) => r.content === null).map((r) => r.path))]
    .filter((p) => !c.present.has(p));
  if (unchecked.length) {
    const indexed = indexedFacts(db, unchecked);
    endOfTask(c);
    for (const p of unchecked) c.present.set(p, mayBeIndexed(c, p, indexed.get(p)));
  }
  return c.present;
}

/** A chunk's text cut from its file's lines, as the chunker cut it. */
function cut(lines: string[], start: number, end: number): string {
  const text = lines.slice(start - 1, end).join("\n");
  return text.length > MAX_CHUNK_CHARS ? text.slice(0, MAX_CHUNK_CHARS) : text;
}

function stale(path: string): CruxeError {
  return new CruxeError(
    "index_stale",
    `${path} changed since it was indexed; its text is read again once the index is synced (sync_repo).`,
    { path },
  );
}

/**
 * `rows` with their text: stored text as it is; a file's text read (lazily,
 * when `content` is first read) from the file, verified by digest. Rows of
 * files that changed since they were indexed are left out; a file that
 * changes after this call makes reading its rows' `content` throw
 * `index_stale`. Order is kept.
 */
export function withChunkText<T extends StoredChunk>(db: Db, rows: T[]): WithText<T>[] {
  const present = presentFiles(db, rows);
  const out: WithText<T>[] = [];
  for (const row of rows) {
    if (row.content !== null) {
      out.push(row as WithText<T>);
      continue;
    }
    if (!present.get(row.path)) continue;
    let text: string | null = null;
    Object.defineProperty(row, "content", {
      enumerable: true,
      configurable: true,
      get: () => {
        if (text === null) {
          const lines = linesOf(db, row.path);
          if (!lines) throw stale(row.path);
          text = cut(lines, row.line_start, row.line_end);
        }
        return text;
      },
    });
    out.push(row as WithText<T>);
  }
  return out;
}
