/**
 * A refs store seeded with a copy of the working tree's index must hold its
 * chunks' text: the working tree's index leaves it to the files, and a
 * commit's versions are served when those files have moved on.
 * Requires `--allow-read` on the repository and `--allow-write` on the store.
 */
import { CruxeError } from "../../core/errors.ts";
import { type Db, openDb, transaction } from "../db.ts";
import { type StoredChunk, withChunkText } from "../read/chunk_text.ts";

/**
 * In the store at `path` (a copy of a working tree's index), stores the
 * text of every chunk whose file is its source, read back from the file and
 * verified by digest. A file whose text cannot be had (changed since it was
 * indexed) gets an empty digest, so the first build reads it as changed and
 * parses its blob instead of reusing the copied rows.
 */
export function storeSeedChunkText(path: string): void {
  const db = openDb(path);
  try {
    const paths = (db.prepare("SELECT DISTINCT path FROM chunks WHERE content IS NULL").all() as { path: string }[])
      .map((r) => r.path);
    transaction(db, () => {
      for (const p of paths) storeFileText(db, p);
    });
  } finally {
    db.close();
  }
}

function storeFileText(db: Db, path: string): void {
  const rows = db.prepare(
    "SELECT id, path, line_start, line_end, content FROM chunks WHERE path = ? AND content IS NULL",
  )
    .all(path) as unknown as (StoredChunk & { id: number })[];
  const set = db.prepare("UPDATE chunk_rows SET content = ? WHERE id = ?");
  try {
    const texts = withChunkText(db, rows);
    if (texts.length === rows.length) {
      for (const r of texts) set.run(r.content, r.id);
      return;
    }
  } catch (e) {
    if (!(e instanceof CruxeError && e.code === "index_stale")) throw e;
  }
  db.prepare("UPDATE files SET hash = '' WHERE path = ?").run(path);
}
