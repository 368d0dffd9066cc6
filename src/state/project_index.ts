/**
 * One project's index file: manifest, symbols, edges, chunks and their
 * full-text tables. The indexer writes through `IndexWriter`; readers open
 * their own connection and see only committed (published) data.
 * Requires `--allow-read`/`--allow-write` on the project's store directory.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Db, getMeta, openDb, setMeta } from "./db.ts";
import type { FileRows } from "./file_rows.ts";
import {
  createSecondaryIndexesSql,
  migrate,
  PROJECT_MIGRATIONS,
  projectSchemaStatus,
  SECONDARY_INDEXES,
} from "./schema.ts";
import type { SchemaStatus } from "../core/metadata.ts";
import { CruxeError } from "../core/errors.ts";

/** Path of a project's index file inside its store directory. */
export function indexPath(projectDir: string): string {
  return join(projectDir, "index.db");
}

/** What the manifest remembers about one file. */
export interface ManifestEntry {
  hash: string;
  size: number;
  mtime_ms: number;
}

export type { ChunkRecord, FileRows } from "./file_rows.ts";

/**
 * Opens a project index for reading. Returns null when no index exists yet.
 * Throws nothing: an unreadable file is reported through `schemaStatus`.
 */
export function openIndexForRead(projectDir: string): { db: Db | null; status: SchemaStatus; current: number } {
  const p = indexPath(projectDir);
  if (!existsSync(p)) return { db: null, status: "not_indexed", current: 0 };
  let db: Db;
  try {
    db = openDb(p);
  } catch {
    return { db: null, status: "corrupt_manifest", current: 0 };
  }
  const s = projectSchemaStatus(db);
  return { db, status: s.status, current: s.current };
}

/** Write access to a project index, used by exactly one job at a time. */
export class IndexWriter {
  readonly db: Db;
  private stmts: ReturnType<IndexWriter["prepare"]>;

  private constructor(db: Db) {
    this.db = db;
    this.stmts = this.prepare();
  }

  /**
   * Opens the index for writing, creating it. With `reset`, an existing
   * incompatible or corrupt file is replaced (only `index --force` does that).
   */
  static open(projectDir: string, reset: boolean): IndexWriter {
    mkdirSync(projectDir, { recursive: true });
    const p = indexPath(projectDir);
    if (reset) {
      for (const suffix of ["", "-wal", "-shm"]) {
        try {
          Deno.removeSync(p + suffix);
        } catch { /* absent */ }
      }
    }
    let db: Db | null = null;
    try {
      db = openDb(p);
      migrate(db, PROJECT_MIGRATIONS);
      // The writer's large transaction stays in memory instead of spilling pages early.
      db.exec("PRAGMA cache_size=-131072");
    } catch (e) {
      try {
        db?.close();
      } catch { /* not open */ }
      throw new CruxeError(
        "index_incompatible",
        `The index at ${p} cannot be used (${(e as Error).message}). Run \`cruxe index --force\` to rebuild it.`,
        { schema_status: (e as Error).message.includes("newer") ? "reindex_required" : "corrupt_manifest" },
      );
    }
    return new IndexWriter(db);
  }

  private prepare() {
    const d = this.db;
    return {
      manifest: d.prepare("SELECT path, hash, size, mtime_ms FROM files"),
      delChunkFts: d.prepare("DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE path = ?)"),
      delSymFts: d.prepare("DELETE FROM symbols_fts WHERE rowid IN (SELECT id FROM symbols WHERE path = ?)"),
      delFileFts: d.prepare("DELETE FROM files_fts WHERE rowid IN (SELECT rowid FROM files WHERE path = ?)"),
      delChunks: d.prepare("DELETE FROM chunks WHERE path = ?"),
      delSyms: d.prepare("DELETE FROM symbols WHERE path = ?"),
      delEdges: d.prepare("DELETE FROM edges WHERE path = ?"),
      delFile: d.prepare("DELETE FROM files WHERE path = ?"),
      insFile: d.prepare(
        `INSERT INTO files(path, hash, size, mtime_ms, language, line_count, symbol_count, parse_error)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insFileFts: d.prepare("INSERT INTO files_fts(rowid, path, names) VALUES (?, ?, ?)"),
      insSym: d.prepare(
        `INSERT INTO symbols(path, name, name_lower, qualified_name, kind, language, signature, doc, visibility,
           line_start, line_end, parent_id, stable_id, symbol_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insSymFts: d.prepare("INSERT INTO symbols_fts(rowid, name, qualified, detail) VALUES (?, ?, ?, ?)"),
      insEdge: d.prepare(
        "INSERT INTO edges(path, kind, source_id, target, target_lower, line) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      insChunk: d.prepare(
        "INSERT INTO chunks(path, line_start, line_end, symbol_row, language, content) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      insChunkFts: d.prepare("INSERT INTO chunks_fts(rowid, body, path) VALUES (?, ?, ?)"),
      touch: d.prepare("UPDATE files SET mtime_ms = ?, size = ? WHERE path = ?"),
    };
  }

  /** The manifest as it was last published. */
  manifest(): Map<string, ManifestEntry> {
    const m = new Map<string, ManifestEntry>();
    for (const r of this.stmts.manifest.iterate() as Iterable<Record<string, unknown>>) {
      m.set(r.path as string, { hash: r.hash as string, size: Number(r.size), mtime_ms: Number(r.mtime_ms) });
    }
    return m;
  }

  begin(): void {
    this.db.exec("BEGIN IMMEDIATE");
  }

  commit(): void {
    this.db.exec("COMMIT");
  }

  rollback(): void {
    if (this.db.isTransaction) this.db.exec("ROLLBACK");
  }

  /** Removes every row of one file. */
  deleteFile(path: string): void {
    const s = this.stmts;
    s.delChunkFts.run(path);
    s.delSymFts.run(path);
    s.delFileFts.run(path);
    s.delChunks.run(path);
    s.delSyms.run(path);
    s.delEdges.run(path);
    s.delFile.run(path);
  }

  /** Records that a file's mtime/size moved but its content did not. */
  touchFile(path: string, mtimeMs: number, size: number): void {
    this.stmts.touch.run(mtimeMs, size, path);
  }

  /** Writes one file's rows (call `deleteFile` first when replacing). */
  insertFile(f: FileRows): void {
    const s = this.stmts;
    const fr = s.insFile.run(
      f.path,
      f.hash,
      f.size,
      f.mtimeMs,
      f.language,
      f.lineCount,
      f.symbols.length,
      f.parseError,
    );
    s.insFileFts.run(Number(fr.lastInsertRowid), f.fileFts.path, f.fileFts.names);
    const rowIds: number[] = [];
    for (const sym of f.symbols) {
      const r = s.insSym.run(
        f.path,
        sym.name,
        sym.name.toLowerCase(),
        sym.qualifiedName,
        sym.kind,
        f.language,
        sym.signature,
        sym.doc,
        sym.visibility,
        sym.lineStart,
        sym.lineEnd,
        sym.parent === null ? null : rowIds[sym.parent] ?? null,
        sym.stableId,
        sym.symbolId,
      );
      const id = Number(r.lastInsertRowid);
      rowIds.push(id);
      s.insSymFts.run(id, sym.fts[0], sym.fts[1], sym.fts[2]);
    }
    // One row per statement: a measured 6x faster here than multi-row statements with 192 bound values.
    for (const e of f.edges) {
      s.insEdge.run(
        f.path,
        e.kind,
        e.from === null ? null : rowIds[e.from] ?? null,
        e.target,
        e.target.toLowerCase(),
        e.line,
      );
    }
    for (const c of f.chunks) {
      const r = s.insChunk.run(
        f.path,
        c.lineStart,
        c.lineEnd,
        c.symbol === null ? null : rowIds[c.symbol] ?? null,
        f.language,
        c.content,
      );
      s.insChunkFts.run(Number(r.lastInsertRowid), c.content + "\n" + c.ftsExtra, f.fileFts.path);
    }
  }

  setMeta(key: string, value: string): void {
    setMeta(this.db, key, value);
  }

  getMeta(key: string): string | null {
    return getMeta(this.db, key);
  }

  /** Drops secondary indexes before a bulk load into an empty index (rebuilt by `createSecondaryIndexes`). */
  dropSecondaryIndexes(): void {
    for (const [name] of SECONDARY_INDEXES) this.db.exec(`DROP INDEX IF EXISTS ${name}`);
  }

  /** (Re)creates every secondary index. */
  createSecondaryIndexes(): void {
    this.db.exec(createSecondaryIndexesSql());
  }

  /** Folds the WAL back into the main file after a large publish. */
  checkpoint(): void {
    try {
      this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch { /* readers hold it; a later checkpoint will do */ }
  }

  close(): void {
    try {
      this.db.close();
    } catch { /* already closed */ }
  }
}
