/**
 * One project's index file: manifest, symbols, edges, chunks and their
 * full-text tables. The indexer writes through `IndexWriter`; readers open
 * their own connection and see only committed (published) data.
 * Requires `--allow-read`/`--allow-write` on the project's store directory.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  closeQuietly,
  type Db,
  getMeta,
  moveAside,
  nowIso,
  openDb,
  openOrSnapshot,
  quickCheck,
  setMeta,
  tableNames,
} from "./db.ts";
import type { FileRows } from "./file_rows.ts";
import { NameTableWriter } from "./name_lookup.ts";
import { RefFileNamesWriter } from "./ref_file_names.ts";
import { NOTE_CHUNKS_DELETED_SQL, recordCommonTerms } from "./common_terms.ts";
import { KEPT_KEY_BYTES, NO_KEY, storedKeys, viewSpellsHandles } from "./symbol_keys.ts";
import { textWithoutName } from "./name_in_text.ts";
import { canSpillSorts } from "./spill_dir.ts";
import { EDGE_KIND_WORDS, SYMBOL_KIND_WORDS, VISIBILITY_WORDS, wordCode } from "./coded_words.ts";
import { BatchInsert } from "./write/batch_insert.ts";
import { BULK_FTS, mergeFullText, setFullTextSettings, SYNC_FTS } from "./write/fts_settings.ts";
import {
  createSecondaryIndexesSql,
  migrate,
  PROJECT_MIGRATIONS,
  projectSchemaStatus,
  REF_COLUMNS,
  REFS_LOAD_SQL,
  SECONDARY_INDEXES,
} from "./schema.ts";
import type { SchemaStatus } from "../core/metadata.ts";
import { CruxeError } from "../core/errors.ts";
import { type ExtractedOccurrence, REFERENCE_KINDS } from "../core/types.ts";
import { CALL_EDGE_KIND, foldCallEdges } from "./call_edges.ts";
import { foldArgs } from "./name_key.ts";
import { REF_NAME_ID_SQL } from "./read/references.ts";
import {
  asStorageError,
  corruptIndex,
  isCorruption,
  type StorageReason,
  storageReason,
  unwritable,
} from "./storage_errors.ts";
import { ensureStoreDir } from "./store_kind.ts";

/** Path of a project's index file inside its store directory. */
export function indexPath(projectDir: string): string {
  return join(projectDir, "index.db");
}

/** What the manifest remembers about one file. */
export interface ManifestEntry {
  hash: string;
  size: number;
  mtime_ms: number;
  /** The language the file was indexed as (the working tree's manifest has it). */
  language?: string;
}

export type { ChunkRecord, FileRows } from "./file_rows.ts";

/**
 * The identity of a store file (device and inode): it changes when the file
 * is replaced (moved aside and rebuilt), so a cached reader knows to reopen.
 * Null when there is no file.
 */
export function storeIdentity(path: string): string | null {
  try {
    const st = Deno.statSync(path);
    return `${st.dev}:${st.ino ?? ""}:${st.ino === null ? st.birthtime?.getTime() ?? "" : ""}`;
  } catch {
    return null;
  }
}

/** A manifest entry from a `files` row. */
function entry(r: Record<string, unknown>): ManifestEntry {
  return { hash: r.hash as string, size: Number(r.size), mtime_ms: Number(r.mtime_ms), language: r.language as string };
}

/** Tables every project index has; one missing means the store is damaged. */
const PROJECT_TABLES = ["meta", "files", "symbols", "edges", "chunks", "chunks_fts", "symbols_fts", "files_fts"];
/**
 * Tables added by later schemas (2: the reference index; 3: the name lookup; 5: slim symbol rows; 16: edge
 * targets; 23: the names' packed trigram lists; 24: common terms; 25: each file's reference names), by the
 * version that added them: an older store lacks them by design, not by damage.
 */
const LATER_TABLES: [number, string[]][] = [
  [2, ["refs", "ref_names"]],
  [3, ["symbol_names"]],
  [5, ["symbol_rows", "edge_rows", "chunk_rows"]],
  [16, ["edge_targets"]],
  [23, ["name_grams", "name_gram_edits"]],
  [24, ["common_terms"]],
  [25, ["ref_file_names"]],
];

/** Path of the marker recording that a project index was found damaged (removed when it is rebuilt). */
export function damagedMarkerPath(projectDir: string): string {
  return indexPath(projectDir) + ".damaged";
}

/** Why the index of `projectDir` was found damaged, if it was (by any process, until `index --force`). */
export function damagedMarker(projectDir: string): string | null {
  try {
    return Deno.readTextFileSync(damagedMarkerPath(projectDir)).trim() || "damaged";
  } catch {
    return null;
  }
}

/**
 * Records that the index of `projectDir` is damaged, so every process answers
 * `index_incompatible` until it is rebuilt. Best effort: a home that cannot be
 * written keeps the fact only in the caller's memory.
 */
export function markDamaged(projectDir: string, detail: string): void {
  try {
    Deno.writeTextFileSync(damagedMarkerPath(projectDir), `${nowIso()} ${detail}\n`);
  } catch { /* read-only home: the caller's view still says corrupt_manifest */ }
}

/**
 * The first structural problem of an open index (a missing table), or null.
 * A file without its schema yet is not a problem: another process has just
 * created it and not yet committed the schema (no table but `meta`, no version).
 */
function missingTables(db: Db): string | null {
  // One read transaction: the tables and the version of one commit, not a migration's before and after.
  const own = !db.isTransaction;
  if (own) db.exec("BEGIN");
  try {
    return missingTablesNow(db);
  } finally {
    if (own) db.exec("COMMIT");
  }
}

function missingTablesNow(db: Db): string | null {
  const tables = tableNames(db);
  if ([...tables].every((t) => t === "meta") && (!tables.has("meta") || getMeta(db, "schema_version") === null)) {
    return null;
  }
  const version = Number(getMeta(db, "schema_version") ?? 0);
  const required = [...PROJECT_TABLES, ...LATER_TABLES.filter(([v]) => version >= v).flatMap(([, t]) => t)];
  const missing = required.filter((t) => !tables.has(t));
  return missing.length ? `missing table ${missing.join(", ")}` : null;
}

/** What opening an index for reading found. */
export interface IndexReadOpen {
  db: Db | null;
  status: SchemaStatus;
  current: number;
  /** Why the index is `corrupt_manifest`, when it is. */
  problem?: string;
  /** Set when the store directory cannot be written: the index was opened read-only and cannot be synced. */
  readOnly?: StorageReason;
}

/**
 * Opens a project index for reading. Returns null when no index exists yet.
 * Throws nothing: an unreadable or damaged file is reported through `status`
 * (`corrupt_manifest` with `problem`). In a directory this process cannot
 * write, the index is opened read-only (`readOnly`). The refs store (`refs`:
 * only ref builds write it, under their own lock) is always opened
 * read-only and never reports `readOnly`.
 */
export function openIndexForRead(
  projectDir: string,
  opts: { refs?: boolean } = {},
): IndexReadOpen {
  const p = indexPath(projectDir);
  if (!existsSync(p)) return { db: null, status: "not_indexed", current: 0 };
  const marked = damagedMarker(projectDir);
  if (marked) return { db: null, status: "corrupt_manifest", current: 0, problem: marked };
  let db: Db;
  let readOnly: StorageReason | undefined;
  try {
    if (opts.refs) {
      // A store only ref builds write (the refs store) is opened read-only, so reading never changes it.
      db = openDb(p, { readOnly: true });
    } else {
      const opened = openOrSnapshot(p, undefined, { forQueries: true });
      db = opened.db;
      readOnly = unwritable(p) ?? opened.snapshot ?? undefined;
    }
    const problem = missingTables(db);
    if (problem) {
      db.close();
      return { db: null, status: "corrupt_manifest", current: 0, problem };
    }
    if (!tableNames(db).has("symbols")) {
      db.close();
      return { db: null, status: "not_indexed", current: 0 }; // being created by another process
    }
  } catch (e) {
    return { db: null, status: "corrupt_manifest", current: 0, problem: (e as Error).message };
  }
  const s = projectSchemaStatus(db);
  return { db, status: s.status, current: s.current, ...(readOnly ? { readOnly } : {}) };
}

/**
 * Moves a damaged index (and its `-wal`/`-shm`) aside as
 * `index.db.corrupt-<timestamp>` so a fresh one can be built; never deletes it.
 * Returns the new path of the main file.
 */
export function moveIndexAside(projectDir: string): string {
  const p = indexPath(projectDir);
  let dest: string;
  try {
    dest = moveAside(p);
  } catch (e) {
    throw asStorageError(e, p);
  }
  try {
    Deno.removeSync(damagedMarkerPath(projectDir));
  } catch { /* no marker */ }
  return dest;
}

/** The repository root an index records (null when it was never published or cannot be read). */
export function storeRoot(projectDir: string, opts: { snapshot?: boolean } = {}): string | null {
  let db: Db | null = null;
  try {
    db = openDb(indexPath(projectDir), opts.snapshot ? { snapshot: true } : { readOnly: true });
    return getMeta(db, "repo_root");
  } catch {
    return null;
  } finally {
    closeQuietly(db);
  }
}

/**
 * Whether an existing index is damaged: a recorded marker, a file SQLite
 * cannot open, something other than a regular file, a missing table, or a
 * failed `quick_check` (reads every page).
 * Null when healthy or absent. `snapshot` checks an in-memory copy (for a
 * directory this process cannot write).
 */
export function indexDamage(projectDir: string, opts: { snapshot?: boolean } = {}): string | null {
  const p = indexPath(projectDir);
  if (!existsSync(p)) return null;
  const marked = damagedMarker(projectDir);
  if (marked) return marked;
  let db: Db | null = null;
  try {
    db = opts.snapshot ? openDb(p, { snapshot: true }) : openDb(p, { readOnly: true });
    const check = missingTables(db) ?? quickCheck(db);
    return check === "ok" ? null : check;
  } catch (e) {
    // Something other than a file where the index should be is moved aside by `--force` like damage.
    return isCorruption(e) || storageReason(e) === "not_a_file" ? (e as Error).message : null;
  } finally {
    closeQuietly(db);
  }
}

/**
 * The values of a symbol's row (`id` in file `f`, whose row is `fileId`, inside
 * symbol row `parent`), in the column order of the writer's insert: what the view
 * cannot give back is all it keeps (see schema.ts).
 */
function symbolRowValues(
  sym: FileRows["symbols"][number],
  id: number,
  f: FileRows,
  fileId: number,
  parent: number | null,
) {
  const keys = storedKeys(sym.symbolId, sym.stableId);
  const q = storedQualifiedName(sym.name, sym.qualifiedName);
  // The view spells both handles from the row (see SPELLED_KEY_BYTES) when its texts read back as written.
  const spelled = viewSpellsHandles([f.path, f.language, sym.kind, sym.name, sym.qualifiedName, sym.signature]);
  return [
    id,
    fileId,
    sym.name,
    lowerUnlessAscii(sym.name),
    q.qualifiedName,
    wordCode(SYMBOL_KIND_WORDS, sym.kind),
    textWithoutName(sym.signature, sym.name),
    textWithoutName(sym.doc, sym.name),
    wordCode(VISIBILITY_WORDS, sym.visibility),
    sym.lineStart,
    sym.lineEnd - sym.lineStart,
    parent,
    spelled ? NO_KEY : keys.stable,
    spelled ? keys.symbol.subarray(0, KEPT_KEY_BYTES) : keys.symbol,
    q.qualifier,
  ];
}

/** What a symbol row keeps of a qualified name (see `qualifiedNameSql`): a dotted name's qualifier, else the name unless it is the name. */
function storedQualifiedName(
  name: string,
  qualified: string,
): { qualifiedName: string | null; qualifier: string | null } {
  if (qualified === name) return { qualifiedName: null, qualifier: null };
  if (qualified.endsWith("." + name)) return { qualifiedName: null, qualifier: qualified.slice(0, -name.length - 1) };
  return { qualifiedName: qualified, qualifier: null };
}

/**
 * SQL matching the rows of the file `?1` in a row table by the file's id
 * range `range` (`sym`, `edge` or `chunk`: see the `files` ranges in
 * schema.ts) and its id.
 */
function ofFile(range: "sym" | "edge" | "chunk"): string {
  return `id BETWEEN (SELECT ${range}_lo FROM files WHERE id = ?1) AND (SELECT ${range}_hi FROM files WHERE id = ?1)
    AND file_id = ?1`;
}

/**
 * The lower case of `text` as a row stores it: null when SQLite's `lower`
 * (A-Z only), which the views apply, gives the same.
 */
function lowerUnlessAscii(text: string): string | null {
  const lower = text.toLowerCase();
  return lower === text.replace(/[A-Z]+/g, (m) => m.toLowerCase()) ? null : lower;
}

/** The id `cache` holds for `key`, else `find`'s, remembered (the cache starts over at `REF_NAME_CACHE` keys). */
function internedId(cache: Map<string, number>, key: string, find: () => number): number {
  let id = cache.get(key);
  if (id === undefined) {
    id = find();
    if (cache.size >= REF_NAME_CACHE) cache.clear();
    cache.set(key, id);
  }
  return id;
}

/** The index writer's SQLite page cache, KiB. */
const WRITER_CACHE_KIB = 32_768;
/**
 * The page cache while a bulk load inserts rows, KiB: the parse workers run
 * beside it then, and a cold load's pages are written in id order (on the Go
 * tree the same CPU as with 32 MiB, the peak RSS about 16 MiB lower).
 */
const BULK_ROWS_CACHE_KIB = 16_384;

/** Columns below this make an occurrence's place one number (line and column); a later one is spelled. */
const PLACE_COLUMNS = 2 ** 20;

/** The occurrences a file's references keep: the first extracted at each place (line and column). */
function firstAtEachPlace(occurrences: readonly ExtractedOccurrence[]): ExtractedOccurrence[] {
  const places = new Set<number | string>();
  return occurrences.filter((o) => {
    const place = o.column < PLACE_COLUMNS ? o.line * PLACE_COLUMNS + o.column : `${o.line}:${o.column}`;
    if (places.has(place)) return false;
    places.add(place);
    return true;
  });
}

/**
 * Helper threads SQLite may give one statement's sort (`PRAGMA threads`):
 * a bulk load's sort of its references, its index builds and its name
 * table's grouping run after the parse, when the other cores are idle. On
 * the kernel's store (2 cores), with temporary storage in files and one
 * helper, the references' sort took 12.5 s where it took 23.3 s in memory
 * without one, and the name index's build 7.2 s where it took 15.3 s.
 */
const SORTER_THREADS = Math.max(1, Math.min(4, navigator.hardwareConcurrency - 1));

/** The row tables whose ids a file's row holds as ranges: symbols, edges, chunks. */
type RowTable = "sym" | "edge" | "chunk";

/** Name ids the writer remembers at most (about 10 MiB of strings and map). */
const REF_NAME_CACHE = 100_000;

/** Full-text tables a bulk load fills row by row (the name tables' is rebuilt whole by `publishNames`). */
const FTS_TABLES = ["chunks_fts", "symbols_fts", "files_fts"];

/** Write access to a project index, used by exactly one job at a time. */
export class IndexWriter {
  readonly db: Db;
  protected stmts: ReturnType<IndexWriter["prepare"]>;
  private rows: ReturnType<IndexWriter["batches"]>;
  protected names: NameTableWriter;
  private readonly refFileNames: RefFileNamesWriter;
  /** During a bulk load, where references go until `endBulkLoad` sorts them into `refs` (REFS_LOAD_SQL). */
  private refsLoad: BatchInsert | null = null;
  /**
   * During a bulk load, the next row id of each row table: nothing reads the
   * rows before `endBulkLoad`, so they stay queued across files and the
   * batches fill (a file's remainder no longer goes in row by row).
   */
  private bulkIds: Record<RowTable, number> | null = null;

  protected constructor(db: Db) {
    this.db = db;
    this.stmts = this.prepare();
    this.rows = this.batches();
    this.names = new NameTableWriter(db);
    this.refFileNames = new RefFileNamesWriter(db);
  }

  /**
   * Opens the index for writing, creating it. With `reset` (only `index
   * --force` sets it), an index this build cannot use is replaced: a damaged
   * one is moved aside (`moveIndexAside`), one with another schema version is
   * removed. Without it such an index is `index_incompatible`; a store that
   * cannot be written is `storage_unavailable`.
   */
  static open(projectDir: string, reset: boolean): IndexWriter {
    const p = indexPath(projectDir);
    ensureStoreDir(projectDir);
    if (reset) {
      const damage = indexDamage(projectDir);
      if (damage) moveIndexAside(projectDir);
    } else if (!existsSync(p)) {
      // The damaged file was removed by hand: its marker no longer means anything.
      try {
        Deno.removeSync(damagedMarkerPath(projectDir));
      } catch { /* no marker */ }
    } else {
      const marked = damagedMarker(projectDir);
      if (marked) throw corruptIndex(p, null, marked);
    }
    try {
      return IndexWriter.openAt(p);
    } catch (e) {
      if (!reset || !(e instanceof CruxeError) || e.code !== "index_incompatible") throw e;
    }
    if (indexDamage(projectDir)) moveIndexAside(projectDir);
    else {
      for (const suffix of ["", "-wal", "-shm"]) {
        try {
          Deno.removeSync(p + suffix);
        } catch { /* absent */ }
      }
    }
    return IndexWriter.openAt(p);
  }

  private static openAt(p: string): IndexWriter {
    return new IndexWriter(IndexWriter.openWritable(p));
  }

  /**
   * The store at `p` opened for writing at this build's schema (migrated),
   * or `index_incompatible` / `storage_unavailable` saying why not.
   */
  protected static openWritable(p: string): Db {
    let db: Db | null = null;
    try {
      db = openDb(p);
      migrate(db, PROJECT_MIGRATIONS);
      const problem = missingTables(db);
      if (problem) throw new Error(problem);
      // The writer's transaction keeps 32 MiB of pages before it spills to the journal: a cold load writes its rows
      // in id order, so a spilled page is seldom written again (the same CPU as with 128 MiB on the Go tree, and the
      // process's peak RSS 130-180 MiB lower). A bulk load's row inserts keep half that (see `beginBulkLoad`).
      db.exec(`PRAGMA cache_size=-${WRITER_CACHE_KIB}`);
      // Sorts too large for the page cache spill to temporary files, where a helper thread can sort beside this one
      // (SQLite gives a sort no helper while temporary storage is in memory): see SORTER_THREADS. A machine with no
      // directory for them sorts in memory.
      if (canSpillSorts()) db.exec(`PRAGMA temp_store=FILE; PRAGMA threads=${SORTER_THREADS}`);
    } catch (e) {
      closeQuietly(db);
      const reason = storageReason(e);
      if (reason && reason !== "corrupt") throw asStorageError(e, p);
      throw new CruxeError(
        "index_incompatible",
        `The index at ${p} cannot be used (${(e as Error).message}). Run \`cruxe index --force\` to rebuild it.`,
        {
          schema_status: (e as Error).message.includes("newer") ? "reindex_required" : "corrupt_manifest",
          path: p,
          fix: "cruxe index --force",
        },
      );
    }
    return db;
  }

  private prepare() {
    const d = this.db;
    return {
      manifest: d.prepare("SELECT path, hash, size, mtime_ms, language FROM files"),
      manifestOne: d.prepare("SELECT path, hash, size, mtime_ms, language FROM files WHERE path = ?"),
      manifestUnder: d.prepare("SELECT path, hash, size, mtime_ms, language FROM files WHERE path > ? AND path < ?"),
      fileId: d.prepare("SELECT id FROM files WHERE path = ?"),
      delChunkFts: d.prepare(
        `DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunk_rows WHERE ${ofFile("chunk")})`,
      ),
      delSymFts: d.prepare(
        `DELETE FROM symbols_fts WHERE rowid IN (SELECT id FROM symbol_rows WHERE ${ofFile("sym")})`,
      ),
      delFileFts: d.prepare("DELETE FROM files_fts WHERE rowid = ?"),
      delChunks: d.prepare(`DELETE FROM chunk_rows WHERE ${ofFile("chunk")}`),
      delSyms: d.prepare(`DELETE FROM symbol_rows WHERE ${ofFile("sym")}`),
      delEdges: d.prepare(`DELETE FROM edge_rows WHERE ${ofFile("edge")}`),
      delFile: d.prepare("DELETE FROM files WHERE id = ?"),
      delRefs: d.prepare("DELETE FROM refs WHERE name_id = ? AND file_id = ?"),
      noteChunksDeleted: d.prepare(NOTE_CHUNKS_DELETED_SQL),
      nameId: d.prepare(REF_NAME_ID_SQL),
      insName: d.prepare("INSERT INTO ref_names(name) VALUES (?)"),
      targetId: d.prepare("SELECT id FROM edge_targets WHERE coalesce(name_lower, lower(name)) = ? AND name = ?"),
      insTarget: d.prepare("INSERT INTO edge_targets(name, name_lower) VALUES (?, ?)"),
      insFile: d.prepare(
        `INSERT INTO files(path, hash, size, mtime_ms, language, line_count, symbol_count, parse_error, generated,
           full_text, sym_lo, sym_hi, edge_lo, edge_hi, chunk_lo, chunk_hi)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insFileFts: d.prepare("INSERT INTO files_fts(rowid, path, names) VALUES (?, ?, ?)"),
      nextId: {
        sym: d.prepare("SELECT coalesce(max(id), 0) + 1 AS n FROM symbol_rows"),
        edge: d.prepare("SELECT coalesce(max(id), 0) + 1 AS n FROM edge_rows"),
        chunk: d.prepare("SELECT coalesce(max(id), 0) + 1 AS n FROM chunk_rows"),
      },
      touch: d.prepare("UPDATE files SET mtime_ms = ?, size = ? WHERE path = ?"),
    };
  }

  /** Batched row inserts; `insertFile` flushes them all before it returns, except during a bulk load. */
  private batches() {
    const d = this.db;
    return {
      refs: new BatchInsert(d, `INSERT INTO refs(${REF_COLUMNS})`, 8),
      syms: new BatchInsert(
        d,
        `INSERT INTO symbol_rows(id, file_id, name, name_lower, qualified_name, kind, signature, doc, visibility,
           line_start, line_span, parent_id, stable_key, symbol_key, qualifier)`,
        15,
      ),
      symFts: new BatchInsert(d, "INSERT INTO symbols_fts(rowid, name, qualified, detail)", 4),
      edges: new BatchInsert(d, "INSERT INTO edge_rows(id, file_id, kind, source_id, target_id, line)", 6),
      chunks: new BatchInsert(
        d,
        "INSERT INTO chunk_rows(id, file_id, line_start, line_span, symbol_row, content)",
        6,
      ),
      chunkFts: new BatchInsert(d, "INSERT INTO chunks_fts(rowid, body, path)", 3),
    };
  }

  /** The manifest as it was last published. */
  manifest(): Map<string, ManifestEntry> {
    const m = new Map<string, ManifestEntry>();
    for (const r of this.stmts.manifest.iterate() as Iterable<Record<string, unknown>>) {
      m.set(r.path as string, entry(r));
    }
    return m;
  }

  /**
   * The manifest entries of `paths` and of every file below them (a path
   * may name a directory that is gone): what a sync of named paths compares.
   */
  manifestOf(paths: Iterable<string>): Map<string, ManifestEntry> {
    const m = new Map<string, ManifestEntry>();
    const add = (r: Record<string, unknown>) => m.set(r.path as string, entry(r));
    for (const p of paths) {
      const one = this.stmts.manifestOne.get(p) as Record<string, unknown> | undefined;
      if (one) add(one);
      // Everything that sorts between "p/" and "p0" ("0" follows "/") lies below p.
      for (const r of this.stmts.manifestUnder.iterate(`${p}/`, `${p}0`) as Iterable<Record<string, unknown>>) add(r);
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
    this.forgetInternedIds(); // ids handed out inside the transaction are gone with it
    this.rows = this.batches(); // rows queued for the rolled-back transaction are dropped
    this.refsLoad = null; // the load table goes with the transaction
    this.bulkIds = null;
    if (this.db.isTransaction) this.db.exec("ROLLBACK");
  }

  /**
   * Recently used ids of reference names (`ref_names`) and edge targets
   * (`edge_targets`) in this writer's transaction (both are only ever added).
   * Bounded: a tree with millions of distinct names (generated register
   * headers) would otherwise hold them all in memory; past the bound a cache
   * starts over and the table's index answers.
   */
  private refNameIds = new Map<string, number>();
  private edgeTargetIds = new Map<string, number>();

  private forgetInternedIds(): void {
    this.refNameIds.clear();
    this.edgeTargetIds.clear();
  }

  /** The id of `name` in `ref_names`, adding it when new. */
  private nameId(name: string): number {
    return internedId(this.refNameIds, name, () => {
      const row = this.stmts.nameId.get(...foldArgs(name)) as { id: number } | undefined;
      return row ? Number(row.id) : Number(this.stmts.insName.run(name).lastInsertRowid);
    });
  }

  /** The id of the edge target spelled `target` in `edge_targets`, adding it when new. */
  private targetId(target: string): number {
    return internedId(this.edgeTargetIds, target, () => {
      // The lower case the view gives back (a stored one when SQLite's `lower` would not give it).
      const row = this.stmts.targetId.get(target.toLowerCase(), target) as { id: number } | undefined;
      return row ? Number(row.id) : Number(this.stmts.insTarget.run(target, lowerUnlessAscii(target)).lastInsertRowid);
    });
  }

  /** Writes every queued row. */
  private flushRows(): void {
    for (const batch of Object.values(this.rows)) batch.flush();
    this.refsLoad?.flush();
  }

  /** Removes every row of one file. */
  deleteFile(path: string): void {
    const row = this.stmts.fileId.get(path) as { id: number } | undefined;
    if (row) this.deleteRows(Number(row.id), path);
  }

  /** Removes every row of the file `id` (at `path`). */
  protected deleteRows(id: number, path: string): void {
    const s = this.stmts;
    this.flushRows(); // a queued row of the file must not outlive its delete
    this.names.noteFileRemoved(path);
    // Every row of the file is keyed by its id: looked up once.
    for (const del of [s.delChunkFts, s.delSymFts, s.delFileFts]) del.run(id);
    for (const nameId of this.refFileNames.take(id)) s.delRefs.run(nameId, id);
    const chunks = Number(s.delChunks.run(id).changes);
    if (chunks > 0) s.noteChunksDeleted.run(chunks);
    for (const del of [s.delSyms, s.delEdges]) del.run(id);
    s.delFile.run(id);
  }

  /**
   * What a chunk row stores of its text: nothing in the working tree's
   * index, whose files are the text's source (read back and verified by
   * `src/state/read/chunk_text.ts`).
   */
  protected chunkText(_text: string): string | null {
    return null;
  }

  /** Records that a file's mtime/size moved but its content did not. */
  touchFile(path: string, mtimeMs: number, size: number): void {
    this.stmts.touch.run(mtimeMs, size, path);
  }

  /**
   * Writes one file's rows (call `deleteFile` first when replacing). Symbol
   * and chunk row ids are given out here, in order from the table's next id,
   * so rows go in batches; a reference to a symbol that is not (yet) a row
   * (`parent` at or after its own index, `from` out of range) is null.
   * Returns the file's id.
   */
  insertFile(f: FileRows): number {
    const s = this.stmts;
    const b = this.rows;
    // The file's rows take consecutive ids from each table's next one: its row holds their ranges.
    const firstSym = this.takeIds("sym", f.symbols.length);
    const symRow = (i: number | null, before = f.symbols.length) =>
      i === null || i < 0 || i >= before ? null : firstSym + i;
    // A reference keeps its symbol's place among the file's (see REFS_SQL in schema.ts).
    const placeInFile = (i: number | null) => i === null || symRow(i) === null ? null : i;
    const occurrences = firstAtEachPlace(f.occurrences);
    // A call edge a call reference states is written once, as that reference (see call_edges.ts).
    const { kept: edges, standing } = foldCallEdges(f.edges, occurrences, placeInFile);
    const firstEdge = this.takeIds("edge", edges.length);
    const firstChunk = this.takeIds("chunk", f.chunks.length);
    const range = (first: number, n: number) => n ? [first, first + n - 1] : [null, null];
    const fr = s.insFile.run(
      f.path,
      f.hash,
      f.size,
      f.mtimeMs,
      f.language,
      f.lineCount,
      f.symbols.length,
      f.parseError,
      f.generated ? 1 : 0,
      f.fullText === false ? 0 : 1,
      ...range(firstSym, f.symbols.length),
      ...range(firstEdge, edges.length),
      ...range(firstChunk, f.chunks.length),
    );
    const fileId = Number(fr.lastInsertRowid);
    s.insFileFts.run(fileId, f.fileFts.path, f.fileFts.names);
    f.symbols.forEach((sym, i) => {
      const id = firstSym + i;
      b.syms.add(...symbolRowValues(sym, id, f, fileId, symRow(sym.parent, i)));
      this.names.note(sym.name);
      if (sym.fts) b.symFts.add(id, sym.fts[0], sym.fts[1], sym.fts[2]);
    });
    edges.forEach((e, i) => {
      b.edges.add(
        firstEdge + i,
        fileId,
        wordCode(EDGE_KIND_WORDS, e.kind),
        symRow(e.from),
        this.targetId(e.target),
        e.line,
      );
    });
    this.addOccurrences(occurrences, standing, fileId, placeInFile);
    f.chunks.forEach((c, i) => {
      b.chunks.add(
        firstChunk + i,
        fileId,
        c.lineStart,
        c.lineEnd - c.lineStart,
        symRow(c.symbol),
        this.chunkText(c.content),
      );
      b.chunkFts.add(firstChunk + i, c.content + "\n" + c.ftsExtra, f.fileFts.path);
    });
    if (!this.bulkIds) this.flushRows();
    return fileId;
  }

  /** The next id of row table `table`, as its rows stand (rows a bulk load queues are not there yet). */
  private nextId(table: RowTable): number {
    return Number((this.stmts.nextId[table].get() as { n: number }).n);
  }

  /** The first of `n` consecutive ids for new rows of `table` (0 when `n` is 0). */
  private takeIds(table: RowTable, n: number): number {
    if (!n) return 0;
    if (!this.bulkIds) return this.nextId(table);
    const first = this.bulkIds[table];
    this.bulkIds[table] += n;
    return first;
  }

  /**
   * Queues file `fileId`'s occurrences (one per place: `firstAtEachPlace`),
   * those at the indexes in `standing` as call edges (see `call_edges.ts`),
   * and records the names they have on each line (see `ref_file_names.ts`).
   * `placeInFile` gives an enclosing symbol's place.
   */
  private addOccurrences(
    occurrences: readonly ExtractedOccurrence[],
    standing: ReadonlySet<number>,
    fileId: number,
    placeInFile: (i: number | null) => number | null,
  ): void {
    const lines: number[] = [];
    const nameIds: number[] = [];
    const refs = this.refsLoad ?? this.rows.refs;
    for (const [i, o] of occurrences.entries()) {
      const nameId = this.nameId(o.name);
      lines.push(o.line);
      nameIds.push(nameId);
      refs.add(
        nameId,
        fileId,
        o.line,
        o.column,
        standing.has(i) ? CALL_EDGE_KIND : REFERENCE_KINDS.indexOf(o.kind),
        o.qualifier === null ? null : o.qualifier === "" ? 0 : this.nameId(o.qualifier),
        placeInFile(o.from),
        o.hint ? this.nameId(o.hint) : null,
      );
    }
    if (lines.length) this.refFileNames.set(fileId, lines, nameIds);
  }

  /** How many files and symbols the index holds now (inside the write, before publishing). */
  totals(): { files: number; symbols: number } {
    const r = this.db.prepare("SELECT (SELECT count(*) FROM files) AS f, (SELECT count(*) FROM symbol_rows) AS s")
      .get() as { f: number; s: number };
    return { files: r.f, symbols: r.s };
  }

  setMeta(key: string, value: string): void {
    setMeta(this.db, key, value);
  }

  getMeta(key: string): string | null {
    return getMeta(this.db, key);
  }

  /**
   * Empties every table of the index inside the open transaction (full-text
   * tables with their `delete-all` command, the others with one whole-table
   * delete), so a forced rebuild loads like a cold index instead of deleting
   * row by row. Readers keep seeing the old rows until the commit.
   */
  truncateAll(): void {
    const tables = this.db.prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'meta'",
    ).all() as { name: string; sql: string | null }[];
    const virtual = tables.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql ?? "")).map((t) => t.name);
    this.forgetInternedIds(); // remembered from before the name rows that are about to go
    for (const t of tables) {
      if (virtual.includes(t.name)) {
        this.db.exec(`INSERT INTO "${t.name}"("${t.name}") VALUES ('delete-all')`);
      } else if (!virtual.some((v) => t.name.startsWith(v + "_"))) {
        this.db.exec(`DELETE FROM "${t.name}"`);
      }
    }
    this.names.rebuildWhole();
  }

  /** Brings the name lookup tables up to date with the rows written; call before the publishing commit. */
  publishNames(): void {
    this.names.publish();
  }

  /**
   * Prepares a bulk load into an empty index: drops the secondary indexes
   * (rebuilt by `createSecondaryIndexes`) and lets the full-text tables
   * gather large segments without merging them as they go (`endBulkLoad`
   * merges each table once and restores the settings a sync uses).
   */
  beginBulkLoad(): void {
    // Rows go in while the parse workers hold their heaps: a smaller page cache until they are gone.
    this.db.exec(`PRAGMA cache_size=-${BULK_ROWS_CACHE_KIB}`);
    this.names.rebuildWhole();
    for (const [name] of SECONDARY_INDEXES) this.db.exec(`DROP INDEX IF EXISTS ${name}`);
    this.db.exec(`DROP TABLE IF EXISTS refs_load; ${REFS_LOAD_SQL}`);
    this.refsLoad = new BatchInsert(this.db, `INSERT INTO refs_load(${REF_COLUMNS})`, 8);
    this.bulkIds = { sym: this.nextId("sym"), edge: this.nextId("edge"), chunk: this.nextId("chunk") };
    setFullTextSettings(this.db, FTS_TABLES, BULK_FTS);
  }

  /**
   * (Re)creates every secondary index, after bringing the name tables up to
   * date (`publishNames` then has nothing left to do unless rows change in
   * between): a whole rebuild of them frees pages as its full-text segments
   * merge, which the index builds then reuse instead of leaving them free in
   * the file (on the Go tree 171 pages, 0.7 MB).
   */
  createSecondaryIndexes(): void {
    this.names.publish();
    this.db.exec(createSecondaryIndexesSql());
  }

  /**
   * Ends a bulk load's row inserts: merges each full-text table into one
   * segment and restores its settings, records the chunk terms common enough
   * to be costly to count (`common_terms.ts`), and packs the references
   * (before the indexes are built, which reuse the pages this frees).
   */
  endBulkLoad(): void {
    this.flushRows();
    this.bulkIds = null;
    this.db.exec(`PRAGMA cache_size=-${WRITER_CACHE_KIB}`);
    mergeFullText(this.db, FTS_TABLES);
    setFullTextSettings(this.db, FTS_TABLES, SYNC_FTS);
    recordCommonTerms(this.db);
    this.sortLoadedRefs();
    this.packRefs();
  }

  /** Moves the references a bulk load gathered in file order into `refs`, in its (name) order. */
  private sortLoadedRefs(): void {
    if (!this.refsLoad) return;
    this.refsLoad.flush();
    this.refsLoad = null;
    this.db.exec(`INSERT INTO refs(${REF_COLUMNS}) SELECT ${REF_COLUMNS} FROM refs_load
      ORDER BY name_id, file_id, line, col;
      DROP TABLE refs_load;`);
  }

  /**
   * Copies the references into a fresh table of the same definition: rows
   * inserted one at a time, even in key order, leave about an eighth of each
   * page of a clustered table empty, a whole-table copy fills them (on the
   * Go tree 16.7 to 14.7 MiB, about 0.3 s).
   */
  private packRefs(): void {
    const def = this.db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'refs'").get() as {
      sql: string;
    };
    // A table renamed into place (the previous load's copy) reads `CREATE TABLE "refs"`: both forms are replaced.
    this.db.exec(def.sql.replace(/^CREATE TABLE (?:"refs"|refs\b)/, "CREATE TABLE refs_packed"));
    this.db.exec(
      "INSERT INTO refs_packed SELECT * FROM refs; DROP TABLE refs; ALTER TABLE refs_packed RENAME TO refs;",
    );
  }

  /** Folds the WAL back into the main file after a large publish. */
  checkpoint(): void {
    try {
      this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch { /* readers hold it; a later checkpoint will do */ }
  }

  close(): void {
    closeQuietly(this.db);
  }
}
