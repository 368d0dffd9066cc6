/**
 * The registry store: projects, known workspaces and index jobs, shared by
 * every workspace of one Cruxe home. Requires `--allow-read`/`--allow-write`
 * on the home directory.
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Db, nowIso, openDb } from "./db.ts";
import { migrate, REGISTRY_MIGRATIONS } from "./schema.ts";

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
  >
>;

/** Handle on the registry database. */
export class Registry {
  readonly db: Db;
  readonly home: string;

  private constructor(home: string, db: Db) {
    this.home = home;
    this.db = db;
  }

  /** Opens (creating and migrating if needed) the registry under `home`. */
  static open(home: string): Registry {
    mkdirSync(home, { recursive: true });
    const db = openDb(join(home, "registry.db"));
    migrate(db, REGISTRY_MIGRATIONS);
    return new Registry(home, db);
  }

  /** Directory that holds a project's index. */
  projectDir(projectId: string): string {
    return join(this.home, "projects", projectId);
  }

  close(): void {
    try {
      this.db.close();
    } catch { /* already closed */ }
  }

  // ---- projects ---------------------------------------------------------

  upsertProject(p: Omit<ProjectRow, "created_at">): ProjectRow {
    this.db.prepare(
      `INSERT INTO projects(project_id, repo_root, name, vcs_mode, default_ref, created_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(project_id) DO UPDATE SET name = excluded.name, vcs_mode = excluded.vcs_mode,
         default_ref = excluded.default_ref`,
    ).run(p.project_id, p.repo_root, p.name, p.vcs_mode, p.default_ref, nowIso());
    return this.getProject(p.project_id)!;
  }

  getProject(projectId: string): ProjectRow | null {
    return (this.db.prepare("SELECT * FROM projects WHERE project_id = ?").get(projectId) as
      | ProjectRow
      | undefined) ?? null;
  }

  projectByRoot(root: string): ProjectRow | null {
    return (this.db.prepare("SELECT * FROM projects WHERE repo_root = ?").get(root) as
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
    return this.db.prepare("SELECT * FROM projects ORDER BY created_at, repo_root").all() as unknown as ProjectRow[];
  }

  deleteProject(projectId: string): void {
    this.db.prepare("DELETE FROM projects WHERE project_id = ?").run(projectId);
    this.db.prepare("DELETE FROM known_workspaces WHERE project_id = ?").run(projectId);
    this.db.prepare("DELETE FROM index_jobs WHERE project_id = ?").run(projectId);
  }

  // ---- known workspaces -------------------------------------------------

  upsertWorkspace(path: string, projectId: string, autoDiscovered: boolean): void {
    this.db.prepare(
      `INSERT INTO known_workspaces(path, project_id, auto_discovered, last_used_at, index_status)
       VALUES (?, ?, ?, ?, 'not_indexed')
       ON CONFLICT(path) DO UPDATE SET last_used_at = excluded.last_used_at`,
    ).run(path, projectId, autoDiscovered ? 1 : 0, nowIso());
  }

  getWorkspace(path: string): WorkspaceRow | null {
    return (this.db.prepare("SELECT * FROM known_workspaces WHERE path = ?").get(path) as
      | WorkspaceRow
      | undefined) ?? null;
  }

  listWorkspaces(): WorkspaceRow[] {
    return this.db.prepare("SELECT * FROM known_workspaces ORDER BY last_used_at DESC, path")
      .all() as unknown as WorkspaceRow[];
  }

  touchWorkspace(path: string): void {
    this.db.prepare("UPDATE known_workspaces SET last_used_at = ? WHERE path = ?").run(nowIso(), path);
  }

  setWorkspaceStatus(projectId: string, status: string): void {
    this.db.prepare("UPDATE known_workspaces SET index_status = ? WHERE project_id = ?").run(status, projectId);
  }

  // ---- jobs -------------------------------------------------------------

  createJob(j: Pick<JobRow, "job_id" | "project_id" | "ref" | "mode">): JobRow {
    const now = nowIso();
    this.db.prepare(
      `INSERT INTO index_jobs(job_id, project_id, ref, mode, status, progress_token, owner_pid, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?)`,
    ).run(j.job_id, j.project_id, j.ref, j.mode, `index-job-${j.job_id}`, Deno.pid, now, now);
    return this.getJob(j.job_id)!;
  }

  getJob(jobId: string): JobRow | null {
    return (this.db.prepare("SELECT * FROM index_jobs WHERE job_id = ?").get(jobId) as JobRow | undefined) ?? null;
  }

  updateJob(jobId: string, p: JobProgress): void {
    const keys = Object.keys(p) as (keyof JobProgress)[];
    if (!keys.length) return;
    const sets = keys.map((k) => `${k} = ?`).join(", ");
    const vals = keys.map((k) => p[k] ?? null) as (string | number | null)[];
    this.db.prepare(`UPDATE index_jobs SET ${sets}, updated_at = ? WHERE job_id = ?`).run(
      ...vals,
      nowIso(),
      jobId,
    );
  }

  activeJob(projectId: string): JobRow | null {
    return (this.db.prepare(
      "SELECT * FROM index_jobs WHERE project_id = ? AND status IN ('queued','running') ORDER BY created_at DESC LIMIT 1",
    ).get(projectId) as JobRow | undefined) ?? null;
  }

  recentJobs(projectId: string, limit = 5): JobRow[] {
    return this.db.prepare(
      "SELECT * FROM index_jobs WHERE project_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?",
    ).all(projectId, limit) as unknown as JobRow[];
  }

  /**
   * Marks jobs left `queued`/`running` by a process that is gone as
   * `interrupted`. Returns how many were marked.
   */
  reconcileInterrupted(isAlive: (pid: number) => boolean): number {
    const rows = this.db.prepare("SELECT job_id, owner_pid FROM index_jobs WHERE status IN ('queued','running')")
      .all() as { job_id: string; owner_pid: number | null }[];
    let n = 0;
    for (const r of rows) {
      if (r.owner_pid !== null && r.owner_pid !== Deno.pid && isAlive(r.owner_pid)) continue;
      if (r.owner_pid === Deno.pid) continue;
      this.db.prepare(
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
    return this.db.prepare(
      `SELECT * FROM index_jobs j WHERE j.project_id = ? AND j.status = 'interrupted'
         AND NOT EXISTS (SELECT 1 FROM index_jobs p WHERE p.project_id = j.project_id
           AND p.status = 'published' AND p.created_at >= j.created_at AND p.rowid > j.rowid)
       ORDER BY j.created_at DESC`,
    ).all(projectId) as unknown as JobRow[];
  }
}
