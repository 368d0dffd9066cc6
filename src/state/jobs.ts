/**
 * What a running or finished index job looks like to its readers: the
 * progress events it emits, the summary it ends with, and the in-process
 * handle of a running job. The job runner (`src/index/job_runner.ts`)
 * produces these; status, progress and tool code only read them.
 */
import type { CruxeError, ErrorCode } from "../core/errors.ts";
import type { JobRow, ProjectRow } from "./registry.ts";

/** A job's stage, in the order a job goes through them. */
export type Stage = "discovery" | "parsing" | "indexing" | "finalizing" | "done" | "failed";

/** One progress report of a running job. */
export interface ProgressEvent {
  stage: Stage;
  filesScanned: number;
  filesIndexed: number;
  filesTotal: number;
  symbols: number;
  percentage: number;
  message: string;
}

/** What an index run did. */
export interface IndexSummary {
  mode: "full" | "incremental";
  /** What was scanned: the whole tree, or only the paths a watcher named (`filesScanned` counts those). */
  scope: "tree" | "paths";
  filesScanned: number;
  filesIndexed: number;
  changedFiles: number;
  added: number;
  modified: number;
  deleted: number;
  renamed: number;
  unchanged: number;
  symbols: number;
  parseErrors: number;
  skipped: Record<string, number>;
  durationMs: number;
  totalFiles: number;
  totalSymbols: number;
  /**
   * Where the time went, in ms: `scan` (walk), `diff` (stat, read, hash), `parse_wait` (the writer idle,
   * waiting on parse workers), `write` (row inserts), `indexes` (secondary indexes after a bulk load),
   * `names` (name lookup tables), `commit` (commit and checkpoint).
   */
  timings: Record<"scan" | "diff" | "parse_wait" | "write" | "indexes" | "names" | "commit", number>;
}

/** What listeners hear about a job. */
export type JobEvent =
  | { type: "progress"; job: JobRow; project: ProjectRow; event: ProgressEvent; gitRef?: ActiveJob["gitRef"] }
  | {
    type: "end";
    job: JobRow;
    project: ProjectRow;
    /** Set when the job indexed a git ref into the refs store (the working tree's index did not change). */
    gitRef?: ActiveJob["gitRef"];
    summary: IndexSummary | null;
    error: string | null;
    /** Registry code of the failure (e.g. `index_incompatible`), when the job failed. */
    errorCode?: ErrorCode;
    /** The failure's `data` (e.g. `path` and `reason` of `storage_unavailable`). */
    errorData?: Record<string, unknown>;
  };

/** A job this process is running. */
export interface ActiveJob {
  job: JobRow;
  project: ProjectRow;
  done: Promise<JobRow>;
  last: ProgressEvent | null;
  worker: Worker;
  /** Parse workers this job uses (terminated with it). */
  parsers: Map<number, Worker>;
  /** Why the job failed (set when it ends failed): its registry error. */
  error?: CruxeError;
  /** Set for a job indexing a git ref into the refs store (not the working tree). */
  gitRef?: { ref: string; commit: string; kind: string };
}
