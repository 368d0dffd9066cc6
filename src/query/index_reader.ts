/**
 * Read access to project indexes: one cached read connection per project,
 * reopened after a job publishes. Readers only ever see committed data.
 * Requires `--allow-read` on the store.
 */
import { dirname } from "node:path";
import type { Db } from "../state/db.ts";
import { closeQuietly, getMeta } from "../state/db.ts";
import { existsSync } from "node:fs";
import {
  damagedMarkerPath,
  indexPath,
  type IndexReadOpen,
  markDamaged,
  openIndexForRead,
  storeIdentity,
} from "../state/project_index.ts";
import {
  asStorageError,
  corruptIndex,
  corruptRefsStore,
  type StorageReason,
  storageReason,
} from "../state/storage_errors.ts";
import { indexRefFix } from "../state/project_refs.ts";
import type { ProjectRow, Registry } from "../state/registry.ts";
import type { SchemaStatus } from "../core/metadata.ts";
import { SCHEMA_VERSION } from "../core/version.ts";
import { publishedRefId, type RefStoreInfo, scopeToRef } from "../state/ref_stores.ts";
import { CruxeError } from "../core/errors.ts";

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
  /** What the last whole-tree scan skipped, counted by reason; null when no scan recorded it. */
  skipped?: Record<string, number> | null;
  /** The index file. */
  storePath: string;
  /** `storeIdentity` of the file when the view was opened. */
  storeId?: string | null;
  /** Why the index is `corrupt_manifest`, when it is. */
  problem?: string;
  /** Set when the store cannot be written: the index answers read-only and cannot be synced. */
  readOnly?: StorageReason;
  /** Set for the index of a git ref (the commit as it was indexed), absent for the working tree's. */
  gitRef?: { ref: string; commit: string; kind: string };
  /** Set for a view of one commit of a refs store: the commit and its id there (a new id per build). */
  scope?: { refId: number; commit: string };
}

/**
 * How long a healthy view is trusted without looking at its file again: a
 * store another process replaced (`index --force`) or marked damaged is seen
 * within this long. Publishes and damage found by this process are seen at
 * once (they invalidate the view).
 */
const RECHECK_MS = 500;

/** How long the connection of a replaced view of a commit stays open for a query still reading it. */
const RETIRED_GRACE_MS = 60_000;

/** Caches read connections by project. */
export class IndexReaders {
  private views = new Map<string, IndexView>();
  /** When each cached healthy view was last found current (by view key). */
  private checkedAt = new Map<string, number>();

  /** `clock` (ms, monotonic) is for tests; views are re-checked against their file every `recheckMs`. */
  constructor(
    private registry: Registry,
    private readonly clock: () => number = () => performance.now(),
    private readonly recheckMs = RECHECK_MS,
  ) {}

  /**
   * The current view of a project's index (opened on first use, reopened when
   * another process replaced the file or found it damaged). A healthy view is
   * checked against its file (a stat and the damaged marker) at most once per
   * `recheckMs`; any other view on every call.
   */
  view(project: ProjectRow): IndexView {
    return this.viewAt(project.project_id, project, this.registry.projectDir(project.project_id));
  }

  /**
   * The view of one indexed commit of a refs store (this project's or another
   * worktree's), cached like the working tree's and reopened when the commit
   * is rebuilt or evicted.
   */
  refView(project: ProjectRow, store: RefStoreInfo): IndexView {
    const scope = { refId: store.refId, commit: store.commit };
    return this.viewAt(`${project.project_id}@${store.commit}`, project, store.dir, scope);
  }

  /**
   * The cached view of `commit` of a project while it still reads the
   * commit's current build (one indexed lookup in its store), else undefined:
   * what spares a query on a ref from opening the refs store to look it up.
   */
  cachedRefView(project: ProjectRow, commit: string): IndexView | undefined {
    const key = `${project.project_id}@${commit}`;
    const v = this.views.get(key);
    if (!v?.db || !v.scope || v.schemaStatus !== "compatible" || !this.current(key, v)) return undefined;
    return this.stillPublished(v.db, v.scope) ? v : undefined;
  }

  private viewAt(key: string, project: ProjectRow, dir: string, scope?: IndexView["scope"]): IndexView {
    const cached = this.views.get(key);
    const same = !scope || (cached?.scope?.refId === scope.refId && cached.storePath === indexPath(dir));
    if (cached && this.current(key, cached) && same) return cached;
    if (this.retired.length) this.closeRetired();
    if (cached?.scope) {
      // A commit's view replaced (rebuilt, evicted, another store): a query may still be reading it.
      this.views.delete(key);
      this.checkedAt.delete(key);
      this.retire(cached.db);
    } else if (cached) this.invalidate(key);
    const storeId = storeIdentity(indexPath(dir));
    const refs = scope !== undefined;
    const opened = openIndexForRead(dir, { refs });
    const { db, status, current, problem, readOnly } = scope ? scoped(opened, scope.refId) : opened;
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
      skipped: skippedCounts(meta("skipped")),
      storePath: indexPath(dir),
      storeId,
      ...(problem ? { problem } : {}),
      ...(!refs && (readOnly || this.registry.readOnly) ? { readOnly: readOnly ?? this.registry.readOnly! } : {}),
      ...(scope ? { scope } : {}),
    };
    const commit = meta("ref_commit");
    if (commit) view.gitRef = { ref: meta("ref_name") ?? commit, commit, kind: meta("ref_kind") ?? "commit" };
    this.views.set(key, view);
    this.checkedAt.set(key, this.clock());
    return view;
  }

  /** Forgets a project's view (after a publish, a reset or an eviction); `key` may also name an indexed commit's. */
  invalidate(key: string): void {
    const v = this.views.get(key);
    this.views.delete(key);
    this.checkedAt.delete(key);
    closeQuietly(v?.db);
  }

  /** Forgets a project's views of its indexed commits (before the project is dropped). */
  invalidateRefs(projectId: string): void {
    for (const k of [...this.views.keys()]) if (k.startsWith(`${projectId}@`)) this.invalidate(k);
  }

  /** Connections of retired views of commits, closed RETIRED_GRACE_MS later (a query may still be reading one). */
  private retired: { db: Db; at: number }[] = [];

  /** Keeps `db` open a while longer, then closes it (see `closeRetired`). */
  private retire(db: Db | null): void {
    if (db) this.retired.push({ db, at: this.clock() });
  }

  /** Closes retired connections past their grace (all of them with `all`). */
  private closeRetired(all = false): void {
    const now = this.clock();
    const keep = this.retired.filter((r) => !all && now - r.at < RETIRED_GRACE_MS);
    for (const r of this.retired) if (!keep.includes(r)) closeQuietly(r.db);
    this.retired = keep;
  }

  /**
   * Forgets a project's views of commits whose build is no longer published
   * (rebuilt or evicted) or whose store was replaced; their connections are
   * closed at the next call, so a query still reading one finishes first.
   */
  dropRetiredRefs(projectId: string): void {
    this.closeRetired();
    for (const [k, v] of [...this.views]) {
      if (!k.startsWith(`${projectId}@`)) continue;
      const gone = !v.db || !v.scope || storeIdentity(v.storePath) !== v.storeId || !this.stillPublished(v.db, v.scope);
      if (!gone) continue;
      this.views.delete(k);
      this.checkedAt.delete(k);
      this.retire(v.db);
    }
  }

  /** False when the file under a cached view was replaced, or another process marked it damaged. */
  private current(key: string, v: IndexView): boolean {
    // Not indexed yet, or of an older schema: cheap to reopen, and another process may be publishing the first
    // index into the same file (its migrations commit one by one) or upgrading it in place.
    if (v.schemaStatus === "not_indexed" || v.schemaStatus === "reindex_required") return false;
    const now = this.clock();
    if (v.schemaStatus === "compatible" && now - (this.checkedAt.get(key) ?? -Infinity) < this.recheckMs) return true;
    if (storeIdentity(v.storePath) !== v.storeId) return false;
    // A commit rebuilt (a new id) or evicted since the view opened it.
    if (v.scope && (!v.db || !this.stillPublished(v.db, v.scope))) return false;
    const ok = v.schemaStatus === "corrupt_manifest" || !existsSync(damagedMarkerPath(dirname(v.storePath)));
    if (ok) this.checkedAt.set(key, now);
    return ok;
  }

  private stillPublished(db: Db, scope: NonNullable<IndexView["scope"]>): boolean {
    try {
      return publishedRefId(db, scope.commit) === scope.refId;
    } catch {
      return false;
    }
  }

  /**
   * Records that a project's index is damaged (found by a query): from now on
   * its view is `corrupt_manifest` and every query answers `index_incompatible`,
   * in this process and (through a marker beside the file) in every other one.
   * Nothing is recorded when the file was replaced since the view opened it.
   */
  markCorrupt(project: ProjectRow, detail: string): void {
    const dir = this.registry.projectDir(project.project_id);
    const old = this.views.get(project.project_id);
    // A view of a file another process has since replaced (index --force) says nothing about the new file.
    if (old && storeIdentity(old.storePath) !== old.storeId) {
      this.invalidate(project.project_id);
      return;
    }
    markDamaged(dir, detail);
    this.invalidate(project.project_id);
    this.views.set(project.project_id, {
      project,
      db: null,
      schemaStatus: "corrupt_manifest",
      currentSchemaVersion: old?.currentSchemaVersion ?? 0,
      requiredSchemaVersion: SCHEMA_VERSION,
      ref: old?.ref ?? null,
      lastIndexedAt: old?.lastIndexedAt ?? null,
      publishedAtMs: old?.publishedAtMs ?? null,
      fileCount: old?.fileCount ?? 0,
      symbolCount: old?.symbolCount ?? 0,
      storePath: indexPath(dir),
      storeId: storeIdentity(indexPath(dir)),
      problem: detail,
    });
  }

  /**
   * What a failure while answering from a project's index means: a damaged
   * index is marked (`markCorrupt`) and answers `index_incompatible`; another
   * storage fault is `storage_unavailable` naming the file; anything else is
   * returned unchanged.
   */
  fault(project: ProjectRow, err: unknown, view?: IndexView): unknown {
    if (err instanceof CruxeError) return err;
    const reason = storageReason(err);
    if (!reason) return err;
    const path = view?.storePath ?? indexPath(this.registry.projectDir(project.project_id));
    const detail = err instanceof Error ? err.message : String(err);
    if (reason === "corrupt" && view?.scope) {
      // A damaged refs store is marked on its own: no commit is listed from it until a ref build replaces it.
      markDamaged(dirname(path), detail);
      this.invalidateRefs(project.project_id);
      const ref = view.gitRef?.ref ?? view.scope.commit;
      return corruptRefsStore(path, ref, detail, indexRefFix(project, ref));
    }
    if (reason === "corrupt") {
      this.markCorrupt(project, detail);
      return corruptIndex(path, project.repo_root, detail);
    }
    return asStorageError(err, path, { home: this.registry.home });
  }

  closeAll(): void {
    for (const id of [...this.views.keys()]) this.invalidate(id);
    this.closeRetired(true);
  }
}

/**
 * An opened refs store made to read as the commit `refId` (`scopeToRef`):
 * `not_indexed` when no commit has that id any more (rebuilt or evicted
 * since it was looked up); a failure reads as damage.
 */
function scoped(opened: IndexReadOpen, refId: number): IndexReadOpen {
  if (!opened.db || opened.status !== "compatible") return opened;
  try {
    if (scopeToRef(opened.db, refId)) return opened;
    opened.db.close();
    return { db: null, status: "not_indexed", current: opened.current };
  } catch (e) {
    opened.db.close();
    return { db: null, status: "corrupt_manifest", current: opened.current, problem: (e as Error).message };
  }
}

/** How an index's schema state is fixed: an older build's store by a sync (in place), anything else unusable by a rebuild. */
export function schemaFix(
  state: { schemaStatus: string; currentSchemaVersion: number; requiredSchemaVersion: number },
  root: string,
): string | null {
  if (state.schemaStatus === "reindex_required" && state.currentSchemaVersion < state.requiredSchemaVersion) {
    return `cruxe sync --path ${root}`;
  }
  if (state.schemaStatus === "reindex_required" || state.schemaStatus === "corrupt_manifest") {
    return `cruxe index --force --path ${root}`;
  }
  return null;
}

/**
 * The database of a view that can answer queries, or the registry error
 * saying why not (`index_incompatible` with the fix, `index_not_ready`).
 */
export function requireIndex(view: IndexView): Db {
  if (view.schemaStatus === "corrupt_manifest" && view.problem) {
    throw corruptIndex(view.storePath, view.project.repo_root, view.problem);
  }
  const fix = schemaFix(view, view.project.repo_root);
  if (fix?.startsWith("cruxe sync")) {
    // An older build's store: the next sync upgrades it in place (rows carried over), far cheaper than a rebuild.
    const root = view.project.repo_root;
    throw new CruxeError(
      "index_incompatible",
      `The index of ${root} was written by an older Cruxe (schema ${view.currentSchemaVersion}, this build needs ${view.requiredSchemaVersion}). Run \`cruxe sync --path ${root}\` (or call sync_repo): it upgrades the index in place.`,
      { schema_status: view.schemaStatus, fix: `cruxe sync --path ${root}` },
    );
  }
  if (fix) {
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

/** The `skipped` meta value (reason → count), or null when absent or unreadable. */
function skippedCounts(text: string | null): Record<string, number> | null {
  if (!text) return null;
  try {
    const parsed = JSON.parse(text);
    if (!parsed || typeof parsed !== "object") return null;
    return Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v === "number")) as Record<
      string,
      number
    >;
  } catch {
    return null;
  }
}
