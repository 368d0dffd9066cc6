/**
 * The comparison baseline: plain BM25 over whole files (one FTS5 row per
 * file, unicode61 tokens, no identifier splitting, no re-ranking). Built once
 * per repository into its own SQLite file. Needs read access to the tree and
 * write access to the cache file.
 */
import { DatabaseSync } from "node:sqlite";
import { existsSync } from "node:fs";

/** A whole-file BM25 index of one directory. */
export class FileBm25 {
  private constructor(private db: DatabaseSync) {}

  /** Opens the cache at `dbPath`, (re)building it from `paths` under `root` when `stamp` changed. */
  static open(dbPath: string, root: string, paths: string[], stamp: string): FileBm25 {
    const fresh = !existsSync(dbPath);
    const db = new DatabaseSync(dbPath);
    db.exec("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT)");
    db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(path UNINDEXED, body)");
    const old = (db.prepare("SELECT v FROM meta WHERE k = 'stamp'").get() as { v: string } | undefined)?.v;
    if (fresh || old !== stamp) {
      db.exec("BEGIN");
      db.exec("DELETE FROM docs");
      const ins = db.prepare("INSERT INTO docs(path, body) VALUES (?, ?)");
      for (const p of paths) {
        try {
          ins.run(p, Deno.readTextFileSync(`${root}/${p}`));
        } catch { /* unreadable: skipped, like the indexer */ }
      }
      db.prepare("INSERT OR REPLACE INTO meta(k, v) VALUES ('stamp', ?)").run(stamp);
      db.exec("COMMIT");
    }
    return new FileBm25(db);
  }

  /** Files ranked by BM25 for the query's words (any of them). */
  search(query: string, limit: number): { path: string }[] {
    const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, 64);
    if (!words.length) return [];
    const expr = words.map((w) => `"${w}"`).join(" OR ");
    return this.db.prepare("SELECT path FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT ?").all(expr, limit) as {
      path: string;
    }[];
  }

  close(): void {
    this.db.close();
  }
}
