/**
 * What the team store holds and what its users ask of it: repositories,
 * index jobs with leases, and one published snapshot per (repository, ref)
 * that queries read (its shard: the build's SQLite index, which replicas
 * copy and query exactly as a local ref's index is queried). `PgTeamStore` (`./pg_team_store.ts`) is the PostgreSQL
 * implementation; the single-user SQLite store under the Cruxe home keeps its
 * own modules.
 */
import type { ShardInfo } from "./shards.ts";

/** A registered repository. */
export interface TeamRepo {
  id: number;
  name: string;
  /** Its git directory or checkout on the workers' machines. */
  path: string;
  /** Refs indexed: names, or patterns with `*` (`release/*`). */
  refPatterns: string[];
}

/** A job a worker claimed. */
export interface ClaimedJob {
  id: number;
  repoId: number;
  repoName: string;
  repoPath: string;
  ref: string;
  commit: string;
  /** 1 for the first claim; more when a worker's lease ran out and the job was taken over. */
  attempts: number;
}

/** One file of a snapshot. */
export interface SnapshotFile {
  path: string;
  /** Its git blob id (where `open_file` reads its bytes from). */
  blob: string | null;
  language: string;
  lineCount: number;
  symbolCount: number;
}

/** A whole build of one commit, published at once. */
export interface SnapshotRows {
  files: SnapshotFile[];
  /** The build's SQLite index holding this commit alone (a refs store), written as the snapshot's shard. */
  shard: { path: string; refId: number; schemaVersion: number };
  /** Blob contents the store may lack, by git id (read on demand: only the missing ones are loaded). */
  readBlobs(oids: string[]): Promise<Map<string, Uint8Array>>;
  /** Removes the shard's file (after the publish, or when the job is given up). */
  discard(): void;
}

/** The published head of one (repository, ref): the commit readers see and the shard holding its index. */
export interface TeamHead {
  ref: string;
  commit: string;
  snapshotId: number;
  publishedAt: string;
  fileCount: number;
  symbolCount: number;
  shard: ShardInfo;
}

/** A client's request that a ref be indexed now. */
export interface RefreshRequest {
  id: number;
  repoId: number;
  ref: string;
  /** The commit its ref resolved to (null until a worker resolved it). */
  commit: string | null;
  /** Set when answered: published (`error` null) or failed. */
  answered: boolean;
  error: string | null;
}

/** What the store holds, for `cruxe status`. */
export interface TeamStatus {
  schemaVersion: number;
  repos: TeamRepo[];
  heads: { repo: string; ref: string; commit: string; publishedAt: string; files: number; symbols: number }[];
  jobs: Record<string, number>;
}

/** The store operations team mode needs. */
export interface TeamStore {
  addRepo(name: string, path: string, refPatterns: string[]): Promise<TeamRepo>;
  listRepos(): Promise<TeamRepo[]>;
  /** Queues (repo, ref, commit) unless it is open or published; the job id, or null. */
  enqueue(repoId: number, ref: string, commit: string): Promise<number | null>;
  claim(worker: string, leaseSeconds: number): Promise<ClaimedJob | null>;
  /** Jobs queued or running. */
  openJobs(): Promise<number>;
  /** False when the worker no longer holds the job (its lease ran out and another took it). */
  renewLease(jobId: number, worker: string, leaseSeconds: number): Promise<boolean>;
  /** Publishes the job's snapshot atomically when the worker still holds it; false when it does not. */
  publish(job: ClaimedJob, worker: string, rows: SnapshotRows): Promise<boolean>;
  fail(jobId: number, worker: string, message: string): Promise<void>;
  status(): Promise<TeamStatus>;
  /** The head of (repo, ref), or null when the ref has none published. */
  head(repoId: number, ref: string): Promise<TeamHead | null>;
  /** Records a request that `ref` of `repoId` be indexed now; its id. */
  requestRefresh(repoId: number, ref: string): Promise<number>;
  /** The requests no worker answered yet. */
  openRequests(): Promise<RefreshRequest[]>;
  /** Records the commit a request's ref resolved to (its job is queued or running). */
  noteRequestCommit(id: number, commit: string): Promise<void>;
  /** Answers a request: its ref is published at `commit`, or it failed with `error`. */
  answerRequest(id: number, commit: string | null, error: string | null): Promise<void>;
  /** One request as it stands, or null when there is none with that id. */
  request(id: number): Promise<RefreshRequest | null>;
  close(): Promise<void>;
}
