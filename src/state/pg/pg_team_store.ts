/**
 * The team store in PostgreSQL (see `./team_store.ts`): repositories, jobs
 * claimed with `FOR UPDATE SKIP LOCKED` and a lease, and publishes in one
 * transaction each (a reader sees the old snapshot of a ref until the new one
 * is whole). Every statement is one of `./sql.ts`'s. Requires `--allow-net`
 * to the database.
 */
import { PgPool, type PgQuerier } from "./pg_pool.ts";
import { checkPgSchema, migratePgStore, PG_SCHEMA_VERSION } from "./schema.ts";
import * as SQL from "./sql.ts";
import type {
  ClaimedJob,
  RefreshRequest,
  SnapshotRows,
  TeamHead,
  TeamRepo,
  TeamStatus,
  TeamStore,
} from "./team_store.ts";
import { type ShardInfo, writeShard } from "./shards.ts";

/** Claims of one job before it is failed: a job whose every worker died is not retried forever. */
export const MAX_CLAIMS = 5;

/** Rows written per statement of a publish. */
const BATCH = 2000;

function repoOf(r: Record<string, unknown>): TeamRepo {
  return { id: Number(r.id), name: String(r.name), path: String(r.path), refPatterns: r.ref_patterns as string[] };
}

function shardOf(r: Record<string, unknown>): ShardInfo {
  return {
    id: Number(r.id),
    digest: String(r.digest),
    bytes: Number(r.bytes),
    storedBytes: Number(r.stored_bytes),
    refId: Number(r.ref_id),
    schemaVersion: Number(r.schema_version),
  };
}

function requestOf(r: Record<string, unknown>): RefreshRequest {
  return {
    id: Number(r.id),
    repoId: Number(r.repo_id),
    ref: String(r.ref),
    commit: r.commit_id === null || r.commit_id === undefined ? null : String(r.commit_id),
    answered: r.answered_at !== null && r.answered_at !== undefined,
    error: r.error === null || r.error === undefined ? null : String(r.error),
  };
}

/** Runs `sql` once per batch of `rows`, with `cols(batch)` as its parameters after `first`. */
async function inBatches<T>(
  q: PgQuerier,
  sql: string,
  first: unknown[],
  rows: T[],
  cols: (batch: T[]) => unknown[][],
): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await q.query(sql, [...first, ...cols(rows.slice(i, i + BATCH))]);
}

/** A team store in the PostgreSQL database at a URL. */
export class PgTeamStore implements TeamStore {
  private constructor(readonly pool: PgPool) {}

  /**
   * Opens the store at `url`. `migrate`: create or upgrade its schema (a
   * writer's or the setup's role); otherwise the schema must already be this
   * build's (`index_incompatible` when another, `storage_unavailable` when absent).
   */
  static async open(url: string, opts: { migrate: boolean; max?: number }): Promise<PgTeamStore> {
    const pool = new PgPool(url, { max: opts.max });
    try {
      if (opts.migrate) await migratePgStore(pool);
      else await checkPgSchema(pool);
    } catch (e) {
      await pool.close();
      throw e;
    }
    return new PgTeamStore(pool);
  }

  async addRepo(name: string, path: string, refPatterns: string[]): Promise<TeamRepo> {
    return repoOf((await this.pool.query(SQL.ADD_REPO, [name, path, refPatterns]))[0]);
  }

  async listRepos(): Promise<TeamRepo[]> {
    return (await this.pool.query(SQL.LIST_REPOS)).map(repoOf);
  }

  async enqueue(repoId: number, ref: string, commit: string): Promise<number | null> {
    const r = await this.pool.query(SQL.ENQUEUE_JOB, [repoId, ref, commit]);
    return r.length ? Number(r[0].id) : null;
  }

  async claim(worker: string, leaseSeconds: number): Promise<ClaimedJob | null> {
    return await this.pool.transaction(async (q) => {
      for (const g of await q.query(SQL.GIVE_UP_JOBS, [MAX_CLAIMS])) {
        await q.query(SQL.JOB_EVENT, [g.id, worker, "gave_up"]);
      }
      const r = await q.query(SQL.CLAIM_JOB, [worker, leaseSeconds, MAX_CLAIMS]);
      if (!r.length) return null;
      const j = r[0];
      await q.query(SQL.JOB_EVENT, [j.id, worker, "claimed"]);
      return {
        id: Number(j.id),
        repoId: Number(j.repo_id),
        repoName: String(j.name),
        repoPath: String(j.path),
        ref: String(j.ref),
        commit: String(j.commit_id),
        attempts: Number(j.attempts),
      };
    });
  }

  async openJobs(): Promise<number> {
    return Number((await this.pool.query(SQL.OPEN_JOBS))[0].n);
  }

  async renewLease(jobId: number, worker: string, leaseSeconds: number): Promise<boolean> {
    return (await this.pool.query(SQL.RENEW_LEASE, [jobId, worker, leaseSeconds])).length > 0;
  }

  async fail(jobId: number, worker: string, message: string): Promise<void> {
    await this.pool.transaction(async (q) => {
      await q.query(SQL.FAIL_JOB, [jobId, worker, message.slice(0, 2000)]);
      await q.query(SQL.FAIL_JOB_REQUESTS, [jobId, message.slice(0, 2000)]);
      await q.query(SQL.JOB_EVENT, [jobId, worker, "failed"]);
    });
  }

  /**
   * Writes the build's shard, file list and missing blobs, and moves the
   * ref's head to the new snapshot in one transaction, then drops the
   * snapshot it replaced (its shard goes with it when nothing else reads it);
   * nothing is written when the worker no longer holds the job (returns
   * false). Readers see the old head until the commit, then the new one whole.
   */
  async publish(job: ClaimedJob, worker: string, rows: SnapshotRows): Promise<boolean> {
    const blobIds = [...new Set(rows.files.map((f) => f.blob).filter((b): b is string => b !== null))];
    return await this.pool.transaction(async (q) => {
      if (!(await q.query(SQL.LOCK_HELD_JOB, [job.id, worker])).length) return false;
      const symbolTotal = rows.files.reduce((n, f) => n + f.symbolCount, 0);
      // Files with a language were indexed; the others are listed only so open_file can read them.
      const indexedFiles = rows.files.filter((f) => f.language !== "").length;
      const shard = await writeShard(q, rows.shard.path, rows.shard);
      const snap = Number(
        (await q.query(SQL.NEW_SNAPSHOT, [job.repoId, job.ref, job.commit, indexedFiles, symbolTotal, shard.id]))[
          0
        ]
          .id,
      );
      await this.writeBlobs(q, blobIds, rows);
      await inBatches(q, SQL.INSERT_FILES, [snap], rows.files, (b) => [
        b.map((f) => f.path),
        b.map((f) => f.blob),
        b.map((f) => f.language),
        b.map((f) => f.lineCount),
        b.map((f) => f.symbolCount),
      ]);
      const old = await q.query(SQL.LOCK_HEAD, [job.repoId, job.ref]);
      await q.query(SQL.SET_HEAD, [job.repoId, job.ref, snap, job.commit]);
      if (old.length) {
        await q.query(SQL.DROP_SNAPSHOT_BLOBS, [old[0].snapshot_id]);
        await q.query(SQL.DROP_SNAPSHOT, [old[0].snapshot_id]);
        await q.query(SQL.DROP_UNUSED_SHARDS);
      }
      await q.query(SQL.ANSWER_PUBLISHED, [job.repoId, job.ref, job.commit]);
      await q.query(SQL.FINISH_JOB, [job.id]);
      await q.query(SQL.JOB_EVENT, [job.id, worker, "published"]);
      return true;
    });
  }

  async head(repoId: number, ref: string): Promise<TeamHead | null> {
    const r = await this.pool.query(SQL.HEAD_OF, [repoId, ref]);
    if (!r.length) return null;
    const h = r[0];
    return {
      ref: String(h.ref),
      commit: String(h.commit_id),
      snapshotId: Number(h.snapshot_id),
      publishedAt: new Date(h.published_at as string).toISOString(),
      fileCount: Number(h.file_count),
      symbolCount: Number(h.symbol_count),
      shard: shardOf({ ...h, id: h.shard_id }),
    };
  }

  async requestRefresh(repoId: number, ref: string): Promise<number> {
    return Number((await this.pool.query(SQL.REQUEST_REFRESH, [repoId, ref]))[0].id);
  }

  async openRequests(): Promise<RefreshRequest[]> {
    return (await this.pool.query(SQL.OPEN_REQUESTS)).map((r) => requestOf(r));
  }

  async noteRequestCommit(id: number, commit: string): Promise<void> {
    await this.pool.query(SQL.NOTE_REQUEST_COMMIT, [id, commit]);
  }

  async answerRequest(id: number, commit: string | null, error: string | null): Promise<void> {
    await this.pool.query(SQL.ANSWER_REQUEST, [id, commit, error]);
  }

  async request(id: number): Promise<RefreshRequest | null> {
    const r = await this.pool.query(SQL.REQUEST_ROW, [id]);
    return r.length ? requestOf({ id, ...r[0] }) : null;
  }

  /** The bytes of the files among `paths` that snapshot `snapshotId` lists (a path it lacks is left out). */
  async fileBytes(snapshotId: number, paths: readonly string[]): Promise<Map<string, Uint8Array>> {
    const ids = await this.pool.query(SQL.FILE_BLOBS, [snapshotId, paths]);
    if (!ids.length) return new Map();
    const blobs = new Map(
      (await this.pool.query(SQL.BLOB_CONTENTS, [ids.map((r) => r.blob_oid)])).map((r) => [
        String(r.oid),
        r.content as Uint8Array,
      ]),
    );
    const out = new Map<string, Uint8Array>();
    for (const r of ids) {
      const b = blobs.get(String(r.blob_oid));
      if (b) out.set(String(r.path), b);
    }
    return out;
  }

  /** The digests of every shard some ref head reads now. */
  async headDigests(): Promise<Set<string>> {
    return new Set((await this.headShards()).map((s) => s.digest));
  }

  /** Every shard some ref head reads now. */
  async headShards(): Promise<ShardInfo[]> {
    return (await this.pool.query(SQL.HEAD_SHARDS)).map(shardOf);
  }

  /** Stores the contents of the blobs among `ids` the store lacks, read in batches. */
  private async writeBlobs(q: PgQuerier, ids: string[], rows: SnapshotRows): Promise<void> {
    for (let i = 0; i < ids.length; i += BATCH) {
      const missing = (await q.query(SQL.MISSING_BLOBS, [ids.slice(i, i + BATCH)])).map((r) => String(r.oid));
      if (!missing.length) continue;
      const bytes = await rows.readBlobs(missing);
      const have = missing.filter((id) => bytes.has(id));
      await q.query(SQL.INSERT_BLOBS, [have, have.map((id) => bytes.get(id)!)]);
    }
  }

  async status(): Promise<TeamStatus> {
    const [repos, heads, jobs] = await Promise.all([
      this.listRepos(),
      this.pool.query(SQL.LIST_HEADS),
      this.pool.query(SQL.JOB_COUNTS),
    ]);
    return {
      schemaVersion: PG_SCHEMA_VERSION,
      repos,
      heads: heads.map((h) => ({
        repo: String(h.name),
        ref: String(h.ref),
        commit: String(h.commit_id),
        publishedAt: new Date(h.published_at as string).toISOString(),
        files: Number(h.file_count),
        symbols: Number(h.symbol_count),
      })),
      jobs: Object.fromEntries(jobs.map((j) => [String(j.status), Number(j.n)])),
    };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
