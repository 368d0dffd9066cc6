/**
 * The semantic layer's store: one SQLite file per project (`vectors.db`
 * beside the index, so an index rebuild keeps every vector) holding chunk
 * embeddings keyed by model and chunk content hash, as int8 blobs with a
 * scale (the largest magnitude maps to 127), and the placements of the
 * current index's chunks (content hash → path and lines). Its schema has its
 * own migration list, independent of the index's. Requires `--allow-read`
 * and `--allow-write` on the project directory.
 */
import { join } from "node:path";
import { type Db, openDb, transaction } from "./db.ts";
import { rowsInBatches } from "./read/rows.ts";
import { type StoredChunk, withChunkText } from "./read/chunk_text.ts";
import { CruxeError } from "../core/errors.ts";

/** Vector store migrations; index i brings the store to version i + 1. */
export const VECTOR_MIGRATIONS: string[] = [
  `CREATE TABLE IF NOT EXISTS vector_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE IF NOT EXISTS vectors (
     model TEXT NOT NULL,
     hash TEXT NOT NULL,
     dims INTEGER NOT NULL,
     scale REAL NOT NULL,
     data BLOB NOT NULL,
     PRIMARY KEY (model, hash)
   ) WITHOUT ROWID;
   CREATE TABLE IF NOT EXISTS placements (
     hash TEXT NOT NULL,
     path TEXT NOT NULL,
     line_start INTEGER NOT NULL,
     line_end INTEGER NOT NULL
   );
   CREATE INDEX IF NOT EXISTS placements_hash ON placements(hash);`,
];

/** The vector store file of a project directory. */
export function vectorsPath(projectDir: string): string {
  return join(projectDir, "vectors.db");
}

/** A chunk of the index as the embedding pass reads it. */
export interface ChunkText {
  path: string;
  line_start: number;
  line_end: number;
  content: string;
}

/** Where a chunk of the current index sits. */
export interface Placement {
  hash: string;
  path: string;
  line_start: number;
  line_end: number;
}

/** One stored vector, quantized. */
export interface StoredVector {
  hash: string;
  scale: number;
  data: Int8Array;
}

/** Every code chunk of an open project index with its text, in path and line order (files changed since: left out). */
export function indexChunkTexts(index: Db): ChunkText[] {
  const rows = index.prepare("SELECT path, line_start, line_end, content FROM chunks ORDER BY path, line_start")
    .all() as unknown as StoredChunk[];
  const out: ChunkText[] = [];
  for (const r of withChunkText(index, rows)) {
    try {
      out.push({ path: r.path, line_start: r.line_start, line_end: r.line_end, content: r.content });
    } catch (e) {
      // A file that changed since it was indexed: its chunks wait for the next index.
      if (!(e instanceof CruxeError && e.code === "index_stale")) throw e;
    }
  }
  return out;
}

/** Quantizes a vector to int8 with one scale (value ≈ byte × scale). */
export function quantize(v: ArrayLike<number>): { scale: number; data: Int8Array } {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]));
  const scale = max > 0 ? max / 127 : 1;
  const data = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) data[i] = Math.round(v[i] / scale);
  return { scale, data };
}

/** The vector store of one project. */
export class VectorStore {
  private constructor(readonly db: Db, readonly path: string) {}

  /** Opens (creating and migrating) the store at `path`. */
  static open(path: string): VectorStore {
    const db = openDb(path);
    const version = (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
    for (let v = version; v < VECTOR_MIGRATIONS.length; v++) {
      transaction(db, () => {
        db.exec(VECTOR_MIGRATIONS[v]);
        db.exec(`PRAGMA user_version = ${v + 1}`);
      });
    }
    return new VectorStore(db, path);
  }

  close(): void {
    this.db.close();
  }

  /** A store setting (`model`, `dims`, `placements_of`). */
  meta(key: string): string | null {
    return (this.db.prepare("SELECT value FROM vector_meta WHERE key = ?").get(key) as { value: string } | undefined)
      ?.value ?? null;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare("INSERT OR REPLACE INTO vector_meta(key, value) VALUES (?, ?)").run(key, value);
  }

  /** Replaces the placements with those of the current index (one transaction). */
  replacePlacements(rows: Placement[]): void {
    transaction(this.db, () => {
      this.db.exec("DELETE FROM placements");
      const ins = this.db.prepare("INSERT INTO placements(hash, path, line_start, line_end) VALUES (?, ?, ?, ?)");
      for (const r of rows) ins.run(r.hash, r.path, r.line_start, r.line_end);
      // Readers cache vectors by this stamp: new placements make them reload.
      this.setMeta("placements_at", `${Date.now()}:${rows.length}`);
    });
  }

  /** The placements of the given hashes (a hash can sit in several places). */
  placementsOf(hashes: string[]): Placement[] {
    return rowsInBatches<Placement>(
      this.db,
      hashes,
      (list) => `SELECT hash, path, line_start, line_end FROM placements WHERE hash IN (${list})`,
    );
  }

  /** Hashes among `hashes` that have no vector of `model` yet. */
  missing(model: string, hashes: string[]): string[] {
    const have = new Set(
      (this.db.prepare("SELECT hash FROM vectors WHERE model = ?").all(model) as { hash: string }[]).map((r) => r.hash),
    );
    return hashes.filter((h) => !have.has(h));
  }

  /** Stores vectors of `model` (one transaction per call, so every finished batch survives a stop). */
  put(model: string, rows: { hash: string; vector: ArrayLike<number> }[]): void {
    transaction(this.db, () => {
      const ins = this.db.prepare(
        "INSERT OR REPLACE INTO vectors(model, hash, dims, scale, data) VALUES (?, ?, ?, ?, ?)",
      );
      for (const r of rows) {
        const q = quantize(r.vector);
        ins.run(model, r.hash, r.vector.length, q.scale, new Uint8Array(q.data.buffer));
      }
    });
  }

  /** Drops every vector of `model` (its dimension changed: the old vectors cannot be compared with new ones). */
  dropModel(model: string): void {
    this.db.prepare("DELETE FROM vectors WHERE model = ?").run(model);
  }

  /** Number of vectors of `model` whose hash is placed in the current index. */
  placedCount(model: string): number {
    return (this.db.prepare(
      "SELECT count(DISTINCT p.hash) AS n FROM placements p JOIN vectors v ON v.hash = p.hash AND v.model = ?",
    ).get(model) as { n: number }).n;
  }

  /** Number of vectors stored for `model`. */
  vectorCount(model: string): number {
    return (this.db.prepare("SELECT count(*) AS n FROM vectors WHERE model = ?").get(model) as { n: number }).n;
  }

  /** Number of distinct chunk hashes placed in the current index. */
  placedHashes(): number {
    return (this.db.prepare("SELECT count(DISTINCT hash) AS n FROM placements").get() as { n: number }).n;
  }

  /** Every vector of `model` placed in the current index, for a brute-force scan. */
  vectorsOf(model: string): StoredVector[] {
    const rows = this.db.prepare(
      "SELECT v.hash, v.scale, v.data FROM vectors v WHERE v.model = ? AND v.hash IN (SELECT hash FROM placements)",
    ).all(model) as { hash: string; scale: number; data: Uint8Array }[];
    return rows.map((r) => ({
      hash: r.hash,
      scale: r.scale,
      data: new Int8Array(r.data.buffer, r.data.byteOffset, r.data.byteLength),
    }));
  }
}
