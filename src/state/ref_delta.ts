/**
 * How far a commit is from what a project already has indexed, estimated
 * without reading any file content: the commit's tree (`ls-tree`) against
 * each indexed commit's blob ids (exact), and against the working tree's
 * index by path and blob size (`cat-file --batch-check`: headers only). A
 * ref build starts from the nearest of these and parses only what differs,
 * so the estimate is what indexing the commit would cost. Requires
 * `--allow-run=git` and `--allow-read` on the repository and the Cruxe home.
 */
import { languageIdForPath, textLanguageForPath } from "../core/languages.ts";
import { SCHEMA_VERSION } from "../core/version.ts";
import { closeQuietly, type Db, openDb } from "./db.ts";
import { gitBlobSizes, gitListTree, type TreeEntry } from "../io/git.ts";
import { indexPath, openIndexForRead } from "./project_index.ts";
import { refsHomeFor } from "./project_refs.ts";
import { listedBlobIds } from "./read/file_blobs.ts";
import { fileSizes } from "./read/files.ts";
import { readRefStores, refsDir } from "./ref_stores.ts";
import type { ProjectRow, Registry } from "./registry.ts";

/** The estimate: files to parse, and the indexed state they differ from (`ref:<commit>` or `working_tree`). */
export interface RefDelta {
  files: number;
  from: string;
}

/**
 * The files of `commit` (those a language claims by name) that differ from
 * the nearest indexed state of `project`, plus the files that state has and
 * the commit lacks; null when git cannot list the tree or nothing is indexed.
 */
export async function refDelta(registry: Registry, project: ProjectRow, commit: string): Promise<RefDelta | null> {
  const entries = await gitListTree(project.repo_root, commit);
  if (!entries) return null;
  const files = entries.filter((e) =>
    e.type === "blob" && e.mode !== "120000" && (languageIdForPath(e.path) ?? textLanguageForPath(e.path))
  );
  const candidates = [...fromCommits(registry, project, files), await fromWorkingTree(registry, project, files)];
  let best: RefDelta | null = null;
  for (const c of candidates) if (c && (!best || c.files < best.files)) best = c;
  return best;
}

/** Files of the tree whose blob `known` (path → blob id or size) lacks or has otherwise, plus `known`'s extra paths. */
function differing<T>(files: TreeEntry[], known: Map<string, T>, value: (e: TreeEntry) => T | undefined): number {
  const paths = new Set(files.map((e) => e.path));
  let n = files.filter((e) => known.get(e.path) !== value(e)).length;
  for (const p of known.keys()) if (!paths.has(p)) n++;
  return n;
}

/** The delta to each commit published in the refs store `project`'s refs builds use (this build's schema only). */
function fromCommits(registry: Registry, project: ProjectRow, files: TreeEntry[]): RefDelta[] {
  const dir = refsDir(refsHomeFor(registry, project));
  let db: Db | null = null;
  try {
    db = openDb(indexPath(dir), { readOnly: true });
    const stores = readRefStores(db, dir).filter((s) => s.schemaVersion === SCHEMA_VERSION);
    return stores.map((s) => ({
      files: differing(files, listedBlobIds(db!, s.refId), (e) => e.oid),
      from: `ref:${s.commit}`,
    }));
  } catch {
    return []; // no refs store (or an unreadable one, rebuilt by the next ref build)
  } finally {
    closeQuietly(db);
  }
}

/** The delta to the working tree's index, by path and size (an equal size is taken as the same file). */
async function fromWorkingTree(registry: Registry, project: ProjectRow, files: TreeEntry[]): Promise<RefDelta | null> {
  const open = openIndexForRead(registry.projectDir(project.project_id));
  try {
    if (!open.db || open.status !== "compatible") return null;
    const sizes = await gitBlobSizes(project.repo_root, [...new Set(files.map((e) => e.oid))]);
    if (!sizes) return null;
    return { files: differing(files, fileSizes(open.db), (e) => sizes.get(e.oid)), from: "working_tree" };
  } finally {
    closeQuietly(open.db);
  }
}
