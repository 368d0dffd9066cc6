/**
 * Every statement the PostgreSQL store runs besides its schema, in one place.
 * Each takes its values as parameters ($1, $2, ...): no SQL text is ever
 * built from input. Reads name the ref head in the same statement, so one
 * statement reads one published snapshot, never half of two.
 */

/** Registers a repository (or updates its refs): name, path, ref patterns. */
export const ADD_REPO = `
  INSERT INTO cruxe.repos (name, path, ref_patterns) VALUES ($1, $2, $3)
  ON CONFLICT (path) DO UPDATE SET ref_patterns = excluded.ref_patterns
  RETURNING id, name, path, ref_patterns`;

/** Every repository. */
export const LIST_REPOS = "SELECT id, name, path, ref_patterns FROM cruxe.repos ORDER BY name";

/**
 * Queues a job for (repo, ref, commit) unless one is open for it or the
 * ref's head already is that commit; returns the job's id when queued.
 */
export const ENQUEUE_JOB = `
  INSERT INTO cruxe.jobs (repo_id, ref, commit_id, status)
  SELECT $1, $2, $3, 'queued'
  WHERE NOT EXISTS (SELECT 1 FROM cruxe.ref_heads h WHERE h.repo_id = $1 AND h.ref = $2 AND h.commit_id = $3)
  ON CONFLICT (repo_id, ref, commit_id) WHERE status IN ('queued', 'running') DO NOTHING
  RETURNING id`;

/**
 * Claims the oldest job that is queued, or running with an expired lease
 * (its worker died) and claimed fewer than $3 times, for worker $1 with a
 * lease of $2 seconds. Rows another worker is claiming are skipped, so no
 * two workers claim one job.
 */
export const CLAIM_JOB = `
  WITH next AS (
    SELECT j.id FROM cruxe.jobs j
    WHERE (j.status = 'queued' OR (j.status = 'running' AND j.lease_until < now())) AND j.attempts < $3
    ORDER BY j.id
    FOR UPDATE SKIP LOCKED
    LIMIT 1
  )
  UPDATE cruxe.jobs j SET status = 'running', lease_owner = $1, lease_until = now() + make_interval(secs => $2),
    attempts = j.attempts + 1, started_at = now()
  FROM next, cruxe.repos r
  WHERE j.id = next.id AND r.id = j.repo_id
  RETURNING j.id, j.repo_id, j.ref, j.commit_id, j.attempts, r.path, r.name`;

/**
 * Fails the jobs whose lease expired on their last allowed claim ($1): each
 * killed every worker that took it (a repository that crashes the build).
 */
export const GIVE_UP_JOBS = `
  UPDATE cruxe.jobs SET status = 'failed', finished_at = now(), lease_until = NULL,
    error = 'gave up: its lease ran out on each of ' || attempts || ' claims (the build kills its worker?)'
  WHERE status = 'running' AND lease_until < now() AND attempts >= $1
  RETURNING id`;

/** Extends the lease of job $1 held by worker $2 by $3 seconds; no row when the worker lost it. */
export const RENEW_LEASE = `
  UPDATE cruxe.jobs SET lease_until = now() + make_interval(secs => $3)
  WHERE id = $1 AND lease_owner = $2 AND status = 'running'
  RETURNING id`;

/** Locks job $1 for its publish when worker $2 still holds it. */
export const LOCK_HELD_JOB = `
  SELECT id FROM cruxe.jobs WHERE id = $1 AND lease_owner = $2 AND status = 'running' FOR UPDATE`;

/** Marks job $1 failed with message $3 when worker $2 still holds it. */
export const FAIL_JOB = `
  UPDATE cruxe.jobs SET status = 'failed', error = $3, finished_at = now(), lease_until = NULL
  WHERE id = $1 AND lease_owner = $2 AND status = 'running'`;

/** Marks job $1 done (inside its publish transaction). */
export const FINISH_JOB = `
  UPDATE cruxe.jobs SET status = 'done', finished_at = now(), lease_until = NULL WHERE id = $1`;

/** Records what worker $2 did with job $1 ($3: claimed, published, failed, lost_lease). */
export const JOB_EVENT = "INSERT INTO cruxe.job_events (job_id, worker, event) VALUES ($1, $2, $3)";

/** A new snapshot of (repo, ref, commit) with its totals and shard ($6); returns its id. */
export const NEW_SNAPSHOT = `
  INSERT INTO cruxe.snapshots (repo_id, ref, commit_id, file_count, symbol_count, shard_id)
  VALUES ($1, $2, $3, $4, $5, $6)
  RETURNING id`;

/**
 * A new shard: digest (sha-256 of the SQLite file) $1, its size $2, its
 * stored (compressed) size $3, the commit's id inside it $4, its schema
 * version $5; returns its id.
 */
export const NEW_SHARD = `
  INSERT INTO cruxe.shards (digest, bytes, stored_bytes, ref_id, schema_version) VALUES ($1, $2, $3, $4, $5)
  RETURNING id`;

/** Part $2 (from 0) of shard $1: bytes $3. */
export const INSERT_SHARD_PART = "INSERT INTO cruxe.shard_parts (shard_id, seq, data) VALUES ($1, $2, $3)";

/** Records shard $1's digest $2, size $3 and stored size $4 (known once every part is written). */
export const FINISH_SHARD = "UPDATE cruxe.shards SET digest = $2, bytes = $3, stored_bytes = $4 WHERE id = $1";

/** Part $2 of shard $1 (no row past the last). */
export const SHARD_PART = "SELECT data FROM cruxe.shard_parts WHERE shard_id = $1 AND seq = $2";

/** The shards no snapshot reads any more (a replaced head's): deleted with their parts. */
export const DROP_UNUSED_SHARDS = `
  DELETE FROM cruxe.shards s WHERE NOT EXISTS (SELECT 1 FROM cruxe.snapshots n WHERE n.shard_id = s.id)`;

/** Blob contents by git id ($1 ids, $2 bytes), kept when already there (a blob id names its content). */
export const INSERT_BLOBS = `
  INSERT INTO cruxe.blobs (oid, content) SELECT * FROM unnest($1::text[], $2::bytea[])
  ON CONFLICT (oid) DO NOTHING`;

/** The git ids among $1 that the store has no content for. */
export const MISSING_BLOBS = `
  SELECT x.oid FROM unnest($1::text[]) AS x(oid) WHERE NOT EXISTS (SELECT 1 FROM cruxe.blobs b WHERE b.oid = x.oid)`;

/** A snapshot's files (snapshot $1, then one array per column). */
export const INSERT_FILES = `
  INSERT INTO cruxe.files (snapshot_id, path, blob_oid, language, line_count, symbol_count)
  SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::int[])`;

/** The current head of (repo $1, ref $2), locked for its replacement. */
export const LOCK_HEAD = "SELECT snapshot_id FROM cruxe.ref_heads WHERE repo_id = $1 AND ref = $2 FOR UPDATE";

/** Points (repo $1, ref $2) at snapshot $3 of commit $4: the publish readers see at once and whole. */
export const SET_HEAD = `
  INSERT INTO cruxe.ref_heads (repo_id, ref, snapshot_id, commit_id) VALUES ($1, $2, $3, $4)
  ON CONFLICT (repo_id, ref) DO UPDATE SET snapshot_id = excluded.snapshot_id, commit_id = excluded.commit_id,
    published_at = now()`;

/** Removes snapshot $1 (its files, symbols and chunks go with it). */
export const DROP_SNAPSHOT = "DELETE FROM cruxe.snapshots WHERE id = $1";

/** The published refs of every repository, with their snapshots' totals. */
export const LIST_HEADS = `
  SELECT r.name, r.path, h.ref, h.commit_id, h.published_at, s.file_count, s.symbol_count
  FROM cruxe.ref_heads h JOIN cruxe.repos r ON r.id = h.repo_id JOIN cruxe.snapshots s ON s.id = h.snapshot_id
  ORDER BY r.name, h.ref`;

/** Jobs queued or running (a running one may be another worker's, or a dead worker's awaiting takeover). */
export const OPEN_JOBS = "SELECT count(*)::int AS n FROM cruxe.jobs WHERE status IN ('queued', 'running')";

/** Jobs by status. */
export const JOB_COUNTS = "SELECT status, count(*)::int AS n FROM cruxe.jobs GROUP BY status ORDER BY status";

/**
 * The head reads of repository $1 and ref $2 go to: its commit, snapshot and
 * shard (digest, sizes, the commit's id in it, schema); no row when the ref has none.
 */
export const HEAD_OF = `
  SELECT h.ref, h.commit_id, h.snapshot_id, h.published_at, n.file_count, n.symbol_count, s.id AS shard_id,
    s.digest, s.bytes, s.stored_bytes, s.ref_id, s.schema_version
  FROM cruxe.ref_heads h JOIN cruxe.snapshots n ON n.id = h.snapshot_id JOIN cruxe.shards s ON s.id = n.shard_id
  WHERE h.repo_id = $1 AND h.ref = $2`;

/** Every shard some ref head reads (what a replica's cache keeps, and copies ahead of the first call). */
export const HEAD_SHARDS = `
  SELECT DISTINCT s.id, s.digest, s.bytes, s.stored_bytes, s.ref_id, s.schema_version
  FROM cruxe.ref_heads h JOIN cruxe.snapshots n ON n.id = h.snapshot_id JOIN cruxe.shards s ON s.id = n.shard_id`;

/** The blob ids of files $2 (paths) in snapshot $1 (what a replica reads file bytes by). */
export const FILE_BLOBS = `
  SELECT f.path, f.blob_oid FROM cruxe.files f WHERE f.snapshot_id = $1 AND f.path = ANY($2::text[])
    AND f.blob_oid IS NOT NULL`;

/** The contents of blobs $1. */
export const BLOB_CONTENTS = "SELECT oid, content FROM cruxe.blobs WHERE oid = ANY($1::text[])";

/**
 * The blobs of snapshot $1 (about to be dropped) that no other snapshot's
 * files name: deleted (a blob id names its content, so snapshots share them).
 */
export const DROP_SNAPSHOT_BLOBS = `
  DELETE FROM cruxe.blobs b WHERE b.oid IN (SELECT f.blob_oid FROM cruxe.files f WHERE f.snapshot_id = $1)
    AND NOT EXISTS (SELECT 1 FROM cruxe.files o WHERE o.blob_oid = b.oid AND o.snapshot_id <> $1)`;

/** A request that ref $2 of repository $1 be indexed now; returns its id. */
export const REQUEST_REFRESH = "INSERT INTO cruxe.refresh_requests (repo_id, ref) VALUES ($1, $2) RETURNING id";

/** The requests no worker answered yet, oldest first. */
export const OPEN_REQUESTS = `
  SELECT id, repo_id, ref, commit_id FROM cruxe.refresh_requests WHERE answered_at IS NULL ORDER BY id`;

/** Records the commit request $1's ref resolved to ($2), before its job is published. */
export const NOTE_REQUEST_COMMIT = "UPDATE cruxe.refresh_requests SET commit_id = $2 WHERE id = $1";

/** Answers request $1: published at commit $2, or failed with error $3. */
export const ANSWER_REQUEST = `
  UPDATE cruxe.refresh_requests SET commit_id = coalesce($2, commit_id), error = $3, answered_at = now()
  WHERE id = $1 AND answered_at IS NULL`;

/** Answers the open requests of (repo $1, ref $2) waiting for commit $3 (inside its publish). */
export const ANSWER_PUBLISHED = `
  UPDATE cruxe.refresh_requests SET answered_at = now()
  WHERE repo_id = $1 AND ref = $2 AND commit_id = $3 AND answered_at IS NULL`;

/** Fails the open requests waiting for the commit of job $1 with error $2. */
export const FAIL_JOB_REQUESTS = `
  UPDATE cruxe.refresh_requests r SET error = $2, answered_at = now()
  FROM cruxe.jobs j
  WHERE j.id = $1 AND r.repo_id = j.repo_id AND r.ref = j.ref AND r.commit_id = j.commit_id AND r.answered_at IS NULL`;

/** Request $1 as it stands. */
export const REQUEST_ROW =
  "SELECT repo_id, ref, commit_id, answered_at, error FROM cruxe.refresh_requests WHERE id = $1";
