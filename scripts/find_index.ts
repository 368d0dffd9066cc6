/** Finding the Cruxe index of a repository root inside a Cruxe home, for benchmarks that read indexes directly. */
import { join } from "node:path";
import { type Db, getMeta, openDb } from "../src/state/db.ts";

/** The open index whose recorded `repo_root` is `root`, or null. Requires `--allow-read` on the home. */
export function findIndex(home: string, root: string): Db | null {
  try {
    for (const e of Deno.readDirSync(join(home, "projects"))) {
      try {
        const db = openDb(join(home, "projects", e.name, "index.db"));
        if (getMeta(db, "repo_root") === root) return db;
        db.close();
      } catch { /* not an index */ }
    }
  } catch { /* no home */ }
  return null;
}
