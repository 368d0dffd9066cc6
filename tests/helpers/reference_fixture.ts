/** Helpers of the reference tests: a repository written from a file map, flat answers, symbols by name. */
import { join } from "node:path";
import type { FindReferencesResult, Reference } from "../../src/query/find_references.ts";
import type { Db } from "../../src/state/db.ts";
import { tempDir } from "./temp_dir.ts";

/** Writes `files` (path → text) into a new temporary directory and returns it. */
export function writeRepo(files: Record<string, string>, prefix: string): string {
  const dir = tempDir(prefix);
  for (const [p, text] of Object.entries(files)) {
    Deno.mkdirSync(join(dir, p, ".."), { recursive: true });
    Deno.writeTextFileSync(join(dir, p), text);
  }
  return dir;
}

/** A page's references, grouped or not, as one list with paths. */
export function flatReferences(r: FindReferencesResult): Reference[] {
  return r.references ?? r.files!.flatMap((f) => f.references.map((x) => ({ ...x, path: f.path }) as Reference));
}

/** The handle of the symbol of `path` whose qualified name is or ends with `.qualified`. */
export function symbolIn(db: Db, path: string, qualified: string): string {
  const r = db.prepare(
    "SELECT symbol_id FROM symbols WHERE path = ? AND (qualified_name = ?2 OR qualified_name LIKE '%.' || ?2)",
  ).get(path, qualified) as { symbol_id: string } | undefined;
  if (!r) throw new Error(`no symbol ${qualified} in ${path}`);
  return r.symbol_id;
}
