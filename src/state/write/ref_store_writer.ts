/**
 * Writing one commit into a project's refs store (layout: `./ref_stores.ts`).
 * The ordinary index writer, with a file's rows belonging to a version any
 * number of commits list: replacing or deleting a file takes it off the new
 * commit's list instead of deleting rows other commits read, a new file
 * becomes a new version on the list, and the meta is the commit's own. The
 * new commit starts, inside the write transaction, from the list of the
 * commit it is built from; publishing (in the same transaction) retires the
 * commit's previous build and the evicted commits and deletes every version
 * no commit lists any more. Requires what `IndexWriter` requires.
 */
import { type Db, getMeta, setMeta, tableNames, transaction } from "../db.ts";
import { VERSION } from "../../core/version.ts";
import { BatchInsert } from "./batch_insert.ts";
import type { FileRows } from "../file_rows.ts";
import { IndexWriter, type ManifestEntry } from "../project_index.ts";
import { refsStorePath } from "../ref_stores.ts";
import { REF_POOL_SQL, REF_SKIPPED_BLOBS_SQL } from "../schema.ts";

/**
 * The list of a refs store just seeded from the working tree's index: its
 * files as they were copied, compared by content by the first commit built
 * from it, and dropped when that commit is published.
 */
export const SEED_REF = 0;

/** Where one commit's write starts from, set before it begins. */
export interface RefWritePlan {
  /** The list the new commit starts from: a published commit's id, `SEED_REF`, or null (an empty list). */
  baseRefId: number | null;
  /** Commits to remove when this one is published (the eviction). */
  evict: readonly string[];
  /**
   * Versions already in the store (another commit's) that the new commit has
   * (path → file id): they replace the base's version of the path instead of
   * being parsed again.
   */
  adopt?: ReadonlyMap<string, number>;
}

type Row = Record<string, unknown>;

/** Store meta key: the Cruxe version whose language rules filled `skipped_blobs`. */
const SKIPPED_BY = "skipped_blobs_by";

/** Write access to one commit of a refs store; one at a time (the caller holds `refsWriteLock`). */
export class RefStoreWriter extends IndexWriter {
  /** The new commit's id, given out when the write transaction begins. */
  private refId: number | null = null;
  private readonly refStmts;
  private plan: RefWritePlan = { baseRefId: null, evict: [] };

  private constructor(db: Db, private readonly commitId: string) {
    super(db);
    this.refStmts = {
      manifest: db.prepare(
        `SELECT f.path AS path, f.hash AS hash, f.size AS size, f.mtime_ms AS mtime_ms
         FROM ref_files m JOIN files f ON f.id = m.file_id WHERE m.ref_id = ?`,
      ),
      manifestUnder: db.prepare(
        `SELECT f.path AS path, f.hash AS hash, f.size AS size, f.mtime_ms AS mtime_ms
         FROM ref_files m JOIN files f ON f.id = m.file_id WHERE m.ref_id = ? AND (f.path = ? OR (f.path > ? AND f.path < ?))`,
      ),
      fileId: db.prepare(
        "SELECT f.id AS id FROM files f JOIN ref_files m ON m.file_id = f.id AND m.ref_id = ? WHERE f.path = ?",
      ),
      link: db.prepare("INSERT OR IGNORE INTO ref_files(ref_id, file_id) VALUES (?, ?)"),
      unlink: db.prepare("DELETE FROM ref_files WHERE ref_id = ? AND file_id = ?"),
      getMeta: db.prepare("SELECT value FROM ref_meta WHERE ref_id = ? AND key = ?"),
      setMeta: db.prepare("INSERT OR REPLACE INTO ref_meta(ref_id, key, value) VALUES (?, ?, ?)"),
      version: db.prepare("SELECT path, hash, size, mtime_ms FROM files WHERE id = ?"),
      unlinkPath: db.prepare(
        "DELETE FROM ref_files WHERE ref_id = ? AND file_id IN (SELECT id FROM files WHERE path = ?)",
      ),
    };
  }

  /**
   * Opens the refs store of `projectDir` to write `commit`: created empty
   * when absent, and given the refs tables when it is a copy of a project
   * index just seeded (its files become the `SEED_REF` list). The caller has
   * removed a store this build cannot use.
   */
  static openRefs(projectDir: string, commit: string): RefStoreWriter {
    const db = IndexWriter.openWritable(refsStorePath(projectDir));
    try {
      if (!tableNames(db).has("ref_commits")) transaction(db, () => db.exec(REF_POOL_SQL));
      db.exec(REF_SKIPPED_BLOBS_SQL);
      // Which blobs are skipped follows this build's languages: another version judges them again.
      if (getMeta(db, SKIPPED_BY) !== VERSION) {
        transaction(db, () => {
          db.exec("DELETE FROM skipped_blobs");
          setMeta(db, SKIPPED_BY, VERSION);
        });
      }
    } catch (e) {
      db.close();
      throw e;
    }
    return new RefStoreWriter(db, commit);
  }

  /** Sets the list the commit starts from and the commits its publish evicts (before `begin`). */
  startFrom(plan: RefWritePlan): void {
    this.plan = plan;
    this.startManifest = null;
  }

  /** The list reads and meta go to: the new commit's once begun, before that the base's (-1: none). */
  private get listRef(): number {
    return this.refId ?? this.plan.baseRefId ?? -1;
  }

  private entries(rows: Iterable<Row>, into = new Map<string, ManifestEntry>()): Map<string, ManifestEntry> {
    for (const r of rows) {
      into.set(r.path as string, { hash: r.hash as string, size: Number(r.size), mtime_ms: Number(r.mtime_ms) });
    }
    return into;
  }

  /** The start list's manifest, read once before the write begins (the build plans with it, then the index run). */
  private startManifest: Map<string, ManifestEntry> | null = null;

  override manifest(): Map<string, ManifestEntry> {
    if (this.refId !== null) return this.entries(this.refStmts.manifest.iterate(this.refId) as Iterable<Row>);
    if (!this.startManifest) {
      const m = this.entries(this.refStmts.manifest.iterate(this.listRef) as Iterable<Row>);
      for (const id of this.plan.adopt?.values() ?? []) this.entries(this.version(id), m);
      this.startManifest = m;
    }
    return new Map(this.startManifest);
  }

  /** The manifest row of the version `id` (none when it is gone). */
  private version(id: number): Row[] {
    const r = this.refStmts.version.get(id) as Row | undefined;
    return r ? [r] : [];
  }

  override manifestOf(paths: Iterable<string>): Map<string, ManifestEntry> {
    const m = new Map<string, ManifestEntry>();
    for (const p of paths) {
      this.entries(this.refStmts.manifestUnder.iterate(this.listRef, p, `${p}/`, `${p}0`) as Iterable<Row>, m);
    }
    return m;
  }

  /** Begins the write and starts the new commit's list from the base's, with the adopted versions in place. */
  override begin(): void {
    super.begin();
    const r = this.db.prepare(
      `SELECT max(coalesce((SELECT max(id) FROM ref_commits), 0), coalesce((SELECT max(ref_id) FROM ref_files), 0),
         coalesce((SELECT max(ref_id) FROM ref_meta), 0)) + 1 AS n`,
    ).get() as { n: number };
    const id = Number(r.n);
    const base = this.plan.baseRefId;
    if (base !== null) {
      this.db.prepare("INSERT INTO ref_files(ref_id, file_id) SELECT ?, file_id FROM ref_files WHERE ref_id = ?")
        .run(id, base);
      this.db.prepare("INSERT INTO ref_meta(ref_id, key, value) SELECT ?, key, value FROM ref_meta WHERE ref_id = ?")
        .run(id, base);
    }
    for (const [path, version] of this.plan.adopt ?? []) {
      const old = this.refStmts.fileId.get(id, path) as { id: number } | undefined;
      if (old) this.unlinked.add(Number(old.id));
      this.refStmts.unlinkPath.run(id, path);
      this.refStmts.link.run(id, version);
    }
    this.refId = id;
  }

  override rollback(): void {
    super.rollback();
    this.refId = null;
    this.unlinked.clear();
  }

  private fileIdOf(path: string): number | null {
    const r = this.refStmts.fileId.get(this.listRef, path) as { id: number } | undefined;
    return r ? Number(r.id) : null;
  }

  /** Versions taken off the new commit's list: each is deleted at publish unless another commit lists it. */
  private unlinked = new Set<number>();

  /** Takes the file off the new commit's list (its rows stay while another commit lists them). */
  override deleteFile(path: string): void {
    const id = this.fileIdOf(path);
    if (id === null) return;
    this.refStmts.unlink.run(this.listRef, id);
    this.unlinked.add(id);
  }

  /** Nothing: a version's stat is shared by every commit listing it (and a blob's stat is its size alone). */
  override touchFile(): void {}

  /** Set when this write bulk-loads (the store holds no other commit's rows). */
  private bulk = false;

  /**
   * A bulk load (indexes dropped and rebuilt, full text merged whole) only
   * into a store no other commit lists anything in: otherwise its cost would
   * grow with every commit's rows, so the rows go in as a sync's do.
   */
  override beginBulkLoad(): void {
    const others = this.db.prepare("SELECT 1 FROM ref_files WHERE ref_id != ? LIMIT 1").get(this.listRef);
    this.bulk = others === undefined;
    if (this.bulk) super.beginBulkLoad();
  }

  override endBulkLoad(): void {
    if (this.bulk) super.endBulkLoad();
  }

  /** Writes the file as a new version on the new commit's list. */
  /** A commit's files are git blobs, not files to read back: its chunks keep their text. */
  protected override chunkText(text: string): string | null {
    return text;
  }

  override insertFile(f: FileRows): number {
    const id = super.insertFile(f);
    this.refStmts.link.run(this.listRef, id);
    return id;
  }

  /**
   * Empties the new commit's list, never the store (a ref build starts a
   * forced rebuild from an empty list instead, so this is a guard).
   */
  override truncateAll(): void {
    for (const r of this.db.prepare("SELECT file_id FROM ref_files WHERE ref_id = ?").all(this.listRef)) {
      this.unlinked.add(Number((r as { file_id: number }).file_id));
    }
    this.db.prepare("DELETE FROM ref_files WHERE ref_id = ?").run(this.listRef);
  }

  override totals(): { files: number; symbols: number } {
    const r = this.db.prepare(
      `SELECT count(*) AS f, coalesce(sum(f.symbol_count), 0) AS s FROM ref_files m JOIN files f ON f.id = m.file_id
       WHERE m.ref_id = ?`,
    ).get(this.listRef) as { f: number; s: number };
    return { files: Number(r.f), symbols: Number(r.s) };
  }

  override getMeta(key: string): string | null {
    const r = this.refStmts.getMeta.get(this.listRef, key) as { value: string } | undefined;
    return r ? r.value : null;
  }

  override setMeta(key: string, value: string): void {
    if (this.refId === null) throw new Error("a commit's meta is written inside its write transaction");
    this.refStmts.setMeta.run(this.refId, key, value);
  }

  /**
   * Records the git blob id of every version on the new commit's list that
   * has none yet (`blobs`: path → blob id of the commit's files read or
   * kept), and as skipped each path of `read` (the blobs the build read) the
   * list does not hold: found binary or not code, never read again there.
   */
  recordBlobs(blobs: ReadonlyMap<string, string>, read: ReadonlySet<string>): void {
    const listed = new Set(
      (this.db.prepare("SELECT f.path AS path FROM ref_files m JOIN files f ON f.id = m.file_id WHERE m.ref_id = ?")
        .all(this.listRef) as { path: string }[]).map((r) => r.path),
    );
    const skipped = new BatchInsert(this.db, "INSERT OR IGNORE INTO skipped_blobs(path, blob)", 2);
    for (const path of read) {
      const blob = blobs.get(path);
      if (blob && !listed.has(path)) skipped.add(path, blob);
    }
    skipped.flush();
    const missing = this.db.prepare(
      `SELECT f.id AS id, f.path AS path FROM ref_files m JOIN files f ON f.id = m.file_id
       LEFT JOIN version_blobs b ON b.file_id = f.id WHERE m.ref_id = ? AND b.file_id IS NULL`,
    ).all(this.listRef) as { id: number; path: string }[];
    const ins = new BatchInsert(this.db, "INSERT OR REPLACE INTO version_blobs(file_id, blob)", 2);
    for (const r of missing) {
      const blob = blobs.get(r.path);
      if (blob) ins.add(r.id, blob);
    }
    ins.flush();
  }

  /**
   * Publishes the new commit's row (retiring its previous build, the seed
   * list and the evicted commits), deletes every version no commit lists any
   * more, then brings the name tables up to date.
   */
  override publishNames(): void {
    if (this.refId === null) throw new Error("a commit is published inside its write transaction");
    const d = this.db;
    const byCommit = d.prepare("SELECT id FROM ref_commits WHERE commit_id = ?");
    const retire = [SEED_REF];
    for (const c of [this.commitId, ...this.plan.evict]) {
      const r = byCommit.get(c) as { id: number } | undefined;
      if (r) retire.push(Number(r.id));
    }
    const listed = d.prepare("SELECT file_id FROM ref_files WHERE ref_id = ?");
    for (const id of retire) {
      for (const r of listed.all(id)) this.unlinked.add(Number((r as { file_id: number }).file_id));
      d.prepare("DELETE FROM ref_files WHERE ref_id = ?").run(id);
      d.prepare("DELETE FROM ref_meta WHERE ref_id = ?").run(id);
      d.prepare("DELETE FROM ref_commits WHERE id = ?").run(id);
    }
    d.prepare("INSERT INTO ref_commits(id, commit_id) VALUES (?, ?)").run(this.refId, this.commitId);
    // The versions that left a list: deleted when no list names them any more.
    const stillListed = d.prepare("SELECT 1 FROM ref_files WHERE file_id = ? LIMIT 1");
    const pathOf = d.prepare("SELECT path FROM files WHERE id = ?");
    const dropBlob = d.prepare("DELETE FROM version_blobs WHERE file_id = ?");
    for (const id of this.unlinked) {
      if (stillListed.get(id)) continue;
      const row = pathOf.get(id) as { path: string } | undefined;
      if (row) this.deleteRows(id, row.path);
      dropBlob.run(id);
    }
    this.unlinked.clear();
    super.publishNames();
  }
}
