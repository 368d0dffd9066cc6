/**
 * The registry store: projects, known workspaces and index jobs, shared by
 * every workspace of one Cruxe home. Requires `--allow-read`/`--allow-write`
 * on the home directory.
 */
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import {
  closeQuietly,
  type Db,
  getMeta,
  moveAside,
  nowIso,
  openDb,
  openOrSnapshot,
  quickCheck,
  tableNames,
} from "./db.ts";
import { migrate, REGISTRY_MIGRATIONS } from "./schema.ts";
import { indexPath } from "./project_index.ts";
import { CruxeError } from "../core/errors.ts";
import { asStorageError, type StorageReason, storageReason, storageUnavailable, unwritable } from "./storage_errors.ts";
import { ensureStoreDir } from "./store_kind.ts";

/** The registry's file inside a Cruxe home. */
export function registryPath(home: string): string {
  return join(home, "registry.db");
}

/** Tables a usable registry has. */
const REGISTRY_TABLES = ["meta", "projects", "known_workspaces", "index_jobs"];

export interface ProjectRow {
  project_id: string;
  repo_root: string;
  name: string;
  vcs_mode: "git" | "plain";
  default_ref: string;
  created_at: string;
}

export interface WorkspaceRow {
  path: string;
  project_id: string;
  auto_discovered: number;
  last_used_at: string;
  index_status: string;
}

export type JobStatus = "queued" | "running" | "published" | "failed" | "interrupted";
export type JobMode = "full" | "incremental";

export interface JobRow {
  job_id: string;
  project_id: string;
  ref: string;
  mode: JobMode;
  status: JobStatus;
  progress_token: string;
  files_scanned: number;
  files_indexed: number;
  symbols_extracted: number;
  estimated_completion_pct: number;
  changed_files: number | null;
  parse_errors: number;
  duration_ms: number | null;
  error_message: string | null;
  recovery_acknowledged: number;
  owner_pid: number | null;
  /** Stage of a running job (discovery, parsing, indexing, finalizing), written with its progress. */
  stage: string | null;
  created_at: string;
  started_at: string | null;
  updated_at: string;
  finished_at: string | null;
}

/** Progress fields a running job updates. */
export type JobProgress = Partial<
  Pick<
    JobRow,
    | "files_scanned"
    | "files_indexed"
    | "symbols_extracted"
    | "estimated_completion_pct"
    | "changed_files"
    | "parse_errors"
    | "status"
    | "duration_ms"
    | "error_message"
    | "started_at"
    | "finished_at"
    | "stage"
  >
>;

/** A prepared statement whose storage faults become registry errors naming the registry file. */
interface GuardedStatement {
  run(...args: (string | number | null)[]): void;
  get(...args: (string | number | null)[]): unknown;
  all(...args: (string | number | null)[]): unknown[];
}

/**
 * The `ref` a job indexing a git ref records: its name and commit, so it is
 * never taken for a job on the working tree (whose `ref` is a branch name).
 */
export function refJobLabel(name: string, commit: string): string {
  return `${name}@${commit}`;
}

/** What `refJobLabel` writes, for SHA-1 and SHA-256 repositories. */
const REF_JOB_GLOBS = [`*@${"[0-9a-f]".repeat(40)}`, `*@${"[0-9a-f]".repeat(64)}`];

/** Handle on the registry database. */
export class Registry {
  readonly db: Db;
  readonly home: string;
  readonly path: string;
  /**
   * Set when the home cannot be written (read-only file system, permissions,
   * a full disk): the registry was opened read-only, queries still answer,
   * nothing is recorded.
   */
  get readOnly(): StorageReason | null {
    return this.readOnlyReason;
  }
  private readOnlyReason: StorageReason | null;

  private constructor(home: string, db: Db, readOnly: StorageReason | null) {
    this.home = home;
    this.db = db;
    this.path = registryPath(home);
    this.readOnlyReason = readOnly;
  }

  /**
   * Opens (creating and migrating if needed) the registry under `home`. A
   * damaged registry is `storage_unavailable` (reason `corrupt`, fix `cruxe
   * doctor --repair`); a home that cannot be written opens an existing
   * registry read-only (`readOnly`), and is `storage_unavailable` when there is none.
   * A home that is not a directory, or a registry that is not a regular file,
   * is `storage_unavailable` naming it (`not_a_directory` / `not_a_file`).
   */
  static open(home: string): Registry {
    const path = registryPath(home);
    ensureStoreDir(home, home);
    try {
      // A home this process cannot write still reads its registry (a snapshot), unmigrated.
      const { db, snapshot } = openOrSnapshot(path, (db, snapshot) => {
        if (!snapshot) migrate(db, REGISTRY_MIGRATIONS);
        checkRegistry(db, path);
      });
      return new Registry(home, db, snapshot ?? unwritable(path));
    } catch (e) {
      throw asStorageError(e, path, { home });
    }
  }

  /** Directory that holds a project's index. */
  projectDir(projectId: string): string {
    return join(this.home, "projects", projectId);
  }

  close(): void {
    closeQuietly(this.db);
  }

  /**
   * Runs `write` (a start-up write: registering a workspace, reconciling
   * jobs). When the disk is full it turns this registry read-only, as for an
   * unwritable home (queries answer from the existing indexes, indexing and
   * syncing are off), and runs `write` again under that; any other fault is
   * thrown.
   */
  writeOrReadOnly<T>(write: () => T): T {
    try {
      return write();
    } catch (e) {
      if (this.readOnlyReason || storageReason(e) !== "disk_full") throw e;
      this.readOnlyReason = "disk_full";
      return write();
    }
  }

  /** Turns the registry read-only for `reason` (kept if it already is): nothing is written from now on. */
  goReadOnly(reason: StorageReason): void {
    this.readOnlyReason ??= reason;
  }

  /** The error for a write refused because the home cannot be written. */
  readOnlyError(): Error {
    return storageUnavailable(this.home, this.readOnly ?? "read_only", "the Cruxe home is not writable", this.home);
  }

  /** A statement whose SQLite faults become `storage_unavailable` errors naming this registry. */
  /** Prepared statements by SQL text (the registry runs a handful of statements, many times). */
  private statements = new Map<string, GuardedStatement>();

  private sql(text: string): GuardedStatement {
    const have = this.statements.get(text);
    if (have) return have;
    const guard = <T>(fn: () => T): T => {
      try {
        return fn();
      } catch (e) {
        throw asStorageError(e, this.path, { home: this.home });
      }
    };
    const stmt = guard(() => this.db.prepare(text));
    const guarded: GuardedStatement = {
      run: (...args) => void guard(() => stmt.run(...args)),
      get: (...args) => guard(() => stmt.get(...args)),
      all: (...args) => guard(() => stmt.all(...args)),
    };
    this.statements.set(text, guarded);
    return guarded;
  }

  // ---- projects ---------------------------------------------------------

  upsertProject(p: Omit<ProjectRow, "created_at">): ProjectRow {
    if (this.readOnly) {
      const known = this.getProject(p.project_id);
      if (known) return known;
      throw this.readOnlyError();
    }
    this.sql(
      `INSERT INTO projects(project_id, repo_root, name, vcs_mode, default_ref, created_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(project_id) DO UPDATE SET name = excluded.name, vcs_mode = excluded.vcs_mode,
         default_ref = excluded.default_ref`,
    ).run(p.project_id, p.repo_root, p.name, p.vcs_mode, p.default_ref, nowIso());
    return this.getProject(p.project_id)!;
  }

  getProject(projectId: string): ProjectRow | null {
    return (this.sql("SELECT * FROM projects WHERE project_id = ?").get(projectId) as
      | ProjectRow
      | undefined) ?? null;
  }

  projectByRoot(root: string): ProjectRow | null {
    return (this.sql("SELECT * FROM projects WHERE repo_root = ?").get(root) as
      | ProjectRow
      | undefined) ?? null;
  }

  /** The registered project whose root is `path` or one of its ancestors (nearest first), if any. */
  projectContaining(path: string): ProjectRow | null {
    for (let p = path;; p = dirname(p)) {
      const found = this.projectByRoot(p);
      if (found) return found;
      if (dirname(p) === p) return null;
    }
  }

  listProjects(): ProjectRow[] {
    return this.sql("SELECT * FROM projects ORDER BY created_at, repo_root").all() as unknown as ProjectRow[];
  }

  deleteProject(projectId: string): void {
    this.sql("DELETE FROM projects WHERE project_id = ?").run(projectId);
    this.sql("DELETE FROM known_workspaces WHERE project_id = ?").run(projectId);
    this.sql("DELETE FROM index_jobs WHERE project_id = ?").run(projectId);
  }

  // ---- known workspaces -------------------------------------------------

  upsertWorkspace(path: string, projectId: string, autoDiscovered: boolean): void {
    if (this.readOnly) {
      if (this.getWorkspace(path)) return;
      throw this.readOnlyError();
    }
    this.sql(
      `INSERT INTO known_workspaces(path, project_id, auto_discovered, last_used_at, index_status)
       VALUES (?, ?, ?, ?, 'not_indexed')
       ON CONFLICT(path) DO UPDATE SET last_used_at = excluded.last_used_at`,
    ).run(path, projectId, autoDiscovered ? 1 : 0, nowIso());
  }

  getWorkspace(path: string): WorkspaceRow | null {
    return (this.sql("SELECT * FROM known_workspaces WHERE path = ?").get(path) as
      | WorkspaceRow
      | undefined) ?? null;
  }

  listWorkspaces(): WorkspaceRow[] {
    return this.sql("SELECT * FROM known_workspaces ORDER BY last_used_at DESC, path")
      .all() as unknown as WorkspaceRow[];
  }

  /**
   * Records a use of a workspace. Best effort: only eviction order depends on
   * it, so a registry that cannot be written (read-only home, full disk) never
   * stops a query here.
   */
  touchWorkspace(path: string): void {
    if (this.readOnly) return;
    try {
      this.sql("UPDATE known_workspaces SET last_used_at = ? WHERE path = ?").run(nowIso(), path);
    } catch (e) {
      if (!(e instanceof CruxeError && e.code === "storage_unavailable")) throw e;
    }
  }

  setWorkspaceStatus(projectId: string, status: string): void {
    if (this.readOnly) return;
    this.sql("UPDATE known_workspaces SET index_status = ? WHERE project_id = ?").run(status, projectId);
  }

  // ---- jobs -------------------------------------------------------------

  createJob(j: Pick<JobRow, "job_id" | "project_id" | "ref" | "mode">): JobRow {
    const now = nowIso();
    this.sql(
      `INSERT INTO index_jobs(job_id, project_id, ref, mode, status, progress_token, owner_pid, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?)`,
    ).run(j.job_id, j.project_id, j.ref, j.mode, `index-job-${j.job_id}`, Deno.pid, now, now);
    return this.getJob(j.job_id)!;
  }

  getJob(jobId: string): JobRow | null {
    return (this.sql("SELECT * FROM index_jobs WHERE job_id = ?").get(jobId) as JobRow | undefined) ?? null;
  }

  updateJob(jobId: string, p: JobProgress): void {
    const keys = Object.keys(p) as (keyof JobProgress)[];
    if (!keys.length) return;
    const sets = keys.map((k) => `${k} = ?`).join(", ");
    const vals = keys.map((k) => p[k] ?? null) as (string | number | null)[];
    this.sql(`UPDATE index_jobs SET ${sets}, updated_at = ? WHERE job_id = ?`).run(
      ...vals,
      nowIso(),
      jobId,
    );
  }

  /**
   * The latest queued or running job of a project's working tree, or with
   * `commit` of the store of that commit (whatever ref name it was asked by).
   */
  activeJob(projectId: string, commit?: string): JobRow | null {
    const which = commit === undefined ? "NOT (ref GLOB ? OR ref GLOB ?)" : "ref GLOB ?";
    const args = commit === undefined ? REF_JOB_GLOBS : [`*@${commit}`];
    return (this.sql(
      `SELECT * FROM index_jobs WHERE project_id = ? AND ${which} AND status IN ('queued','running')
       ORDER BY created_at DESC LIMIT 1`,
    ).get(projectId, ...args) as JobRow | undefined) ?? null;
  }

  recentJobs(projectId: string, limit = 5): JobRow[] {
    return this.sql(
      "SELECT * FROM index_jobs WHERE project_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?",
    ).all(projectId, limit) as unknown as JobRow[];
  }

  /**
   * Marks jobs left `queued`/`running` by a process that is gone as
   * `interrupted`. Returns how many were marked.
   */
  reconcileInterrupted(isAlive: (pid: number) => boolean): number {
    if (this.readOnly) return 0;
    const rows = this.sql("SELECT job_id, owner_pid FROM index_jobs WHERE status IN ('queued','running')")
      .all() as { job_id: string; owner_pid: number | null }[];
    let n = 0;
    for (const r of rows) {
      if (r.owner_pid !== null && r.owner_pid !== Deno.pid && isAlive(r.owner_pid)) continue;
      if (r.owner_pid === Deno.pid) continue;
      this.sql(
        `UPDATE index_jobs SET status = 'interrupted', finished_at = ?, updated_at = ?,
           error_message = COALESCE(error_message, 'process stopped before the job finished')
         WHERE job_id = ?`,
      ).run(nowIso(), nowIso(), r.job_id);
      n++;
    }
    return n;
  }

  /** Interrupted jobs not yet followed by a published job of the same project. */
  unresolvedInterrupted(projectId: string): JobRow[] {
    return this.sql(
      `SELECT * FROM index_jobs j WHERE j.project_id = ? AND j.status = 'interrupted'
         AND NOT EXISTS (SELECT 1 FROM index_jobs p WHERE p.project_id = j.project_id
           AND p.status = 'published' AND p.created_at >= j.created_at AND p.rowid > j.rowid)
       ORDER BY j.created_at DESC`,
    ).all(projectId) as unknown as JobRow[];
  }
}

/**
 * Refuses a registry that is not usable: a missing table or a failed
 * `quick_check` (the registry is small, so the check costs milliseconds).
 */
function checkRegistry(db: Db, path: string): void {
  const tables = tableNames(db);
  const missing = REGISTRY_TABLES.filter((t) => !tables.has(t));
  if (missing.length) throw storageUnavailable(path, "corrupt", `missing table ${missing.join(", ")}`);
  const check = quickCheck(db);
  if (check !== "ok") throw storageUnavailable(path, "corrupt", `quick_check: ${check}`);
}

/** The ids of the project store directories under `home` (whether or not the registry knows them). */
export function storeIds(home: string): string[] {
  try {
    return [...Deno.readDirSync(join(home, "projects"))].filter((e) => e.isDirectory).map((e) => e.name).sort();
  } catch {
    return []; // no projects yet
  }
}

/** What `rebuildRegistry` did. */
export interface RegistryRebuild {
  /** Where the damaged registry was moved (null when there was none). */
  movedTo: string | null;
  /** Projects restored from their stores. */
  restored: { project_id: string; repo_root: string }[];
  /** Stores that could not be restored, with why. */
  skipped: { store: string; reason: string }[];
}

/**
 * Rebuilds a damaged registry from the project stores under `home`: the
 * damaged file is moved aside (`registry.db.corrupt-<timestamp>`), a fresh
 * registry is created, and every index that records its project (id, root,
 * name, VCS mode, ref) is registered again. Job history is not recovered.
 */
export function rebuildRegistry(home: string): RegistryRebuild {
  const path = registryPath(home);
  let movedTo: string | null = null;
  try {
    // Whatever sits there, the main file or only its -wal/-shm (a FIFO, say), is moved aside.
    if ([path, `${path}-wal`, `${path}-shm`].some((p) => existsSync(p))) movedTo = moveAside(path);
  } catch (e) {
    throw asStorageError(e, path, { home });
  }
  const registry = Registry.open(home);
  const restored: RegistryRebuild["restored"] = [];
  const skipped: RegistryRebuild["skipped"] = [];
  try {
    for (const id of storeIds(home)) {
      const store = indexPath(registry.projectDir(id));
      if (!existsSync(store)) continue;
      let db: Db | null = null;
      try {
        db = openDb(store, { readOnly: true });
        const root = getMeta(db, "repo_root");
        if (!root) {
          skipped.push({ store, reason: "the index was never published, so it does not record its root" });
          continue;
        }
        if (registry.projectByRoot(root)) {
          skipped.push({ store, reason: `${root} is already restored from another store` });
          continue;
        }
        registry.upsertProject({
          project_id: id, // the store's directory is where the registry looks for it
          repo_root: root,
          name: getMeta(db, "project_name") ?? (basename(root) || "root"),
          vcs_mode: getMeta(db, "vcs_mode") === "git" ? "git" : "plain",
          default_ref: getMeta(db, "ref") ?? "live",
        });
        registry.upsertWorkspace(root, id, getMeta(db, "auto_discovered") === "1");
        registry.setWorkspaceStatus(id, "ready");
        restored.push({ project_id: id, repo_root: root });
      } catch (e) {
        skipped.push({ store, reason: (e as Error).message });
      } finally {
        closeQuietly(db);
      }
    }
  } finally {
    registry.close();
  }
  return { movedTo, restored, skipped };
}
