/**
 * Read access to project indexes: one cached read connection per project,
 * reopened after a job publishes. Readers only ever see committed data.
 * Requires `--allow-read` on the store.
 */
import type { Db } from "../state/db.ts";
import { getMeta } from "../state/db.ts";
import { openIndexForRead } from "../state/project_index.ts";
import type { ProjectRow, Registry } from "../state/registry.ts";
import type { SchemaStatus } from "../core/metadata.ts";
import { SCHEMA_VERSION } from "../core/version.ts";
import { CruxeError } from "../core/errors.ts";
import { adoptNameIndex } from "./symbol_name_index.ts";

/** An open view of one project's index. */
export interface IndexView {
  project: ProjectRow;
  db: Db | null;
  schemaStatus: SchemaStatus;
  currentSchemaVersion: number;
  requiredSchemaVersion: number;
  ref: string | null;
  lastIndexedAt: string | null;
  /** When the index was published, in ms since the epoch (changes on every publish). */
  publishedAtMs: number | null;
  fileCount: number;
  symbolCount: number;
}

/** Caches read connections by project. */
export class IndexReaders {
  private views = new Map<string, IndexView>();
  /** Connections closed after an incremental publish, whose name index the next connection takes over. */
  private handOver = new Map<string, Db>();

  constructor(private registry: Registry) {}

  /** The current view of a project's index (opened on first use). */
  view(project: ProjectRow): IndexView {
    const cached = this.views.get(project.project_id);
    if (cached) return cached;
    const { db, status, current } = openIndexForRead(this.registry.projectDir(project.project_id));
    const previous = this.handOver.get(project.project_id);
    this.handOver.delete(project.project_id);
    if (previous && db && status === "compatible") adoptNameIndex(previous, db);
    const meta = (k: string) => {
      if (!db || status !== "compatible") return null;
      try {
        return getMeta(db, k);
      } catch {
        return null;
      }
    };
    const hasIndex = meta("last_indexed_at") !== null;
    const view: IndexView = {
      project,
      db,
      schemaStatus: status === "compatible" && !hasIndex ? "not_indexed" : status,
      currentSchemaVersion: current,
      requiredSchemaVersion: SCHEMA_VERSION,
      ref: meta("ref"),
      lastIndexedAt: meta("last_indexed_at"),
      publishedAtMs: meta("published_at_ms") === null ? null : Number(meta("published_at_ms")),
      fileCount: Number(meta("file_count") ?? 0),
      symbolCount: Number(meta("symbol_count") ?? 0),
    };
    this.views.set(project.project_id, view);
    return view;
  }

  /**
   * Forgets a project's view (after a publish, a reset or an eviction).
   * `incremental`: the store was updated in place by an incremental sync, so
   * the next view may take over (and patch) the old one's name index.
   */
  invalidate(projectId: string, incremental = false): void {
    const v = this.views.get(projectId);
    this.views.delete(projectId);
    if (incremental && v?.db) this.handOver.set(projectId, v.db);
    else this.handOver.delete(projectId);
    try {
      v?.db?.close();
    } catch { /* already closed */ }
  }

  closeAll(): void {
    for (const id of [...this.views.keys()]) this.invalidate(id);
  }
}

/**
 * The database of a view that can answer queries, or the registry error
 * saying why not (`index_incompatible` with the fix, `index_not_ready`).
 */
export function requireIndex(view: IndexView): Db {
  if (view.schemaStatus === "reindex_required" || view.schemaStatus === "corrupt_manifest") {
    throw new CruxeError(
      "index_incompatible",
      `The index of ${view.project.repo_root} is ${view.schemaStatus} (schema ${view.currentSchemaVersion}, this build needs ${view.requiredSchemaVersion}). Run \`cruxe index --force\` to rebuild it.`,
      { schema_status: view.schemaStatus, fix: "cruxe index --force" },
    );
  }
  if (!view.db || view.schemaStatus === "not_indexed") {
    throw new CruxeError(
      "index_not_ready",
      `${view.project.repo_root} has not been indexed yet. Run \`cruxe index\` (or call index_repo).`,
      { schema_status: "not_indexed" },
    );
  }
  return view.db;
}
