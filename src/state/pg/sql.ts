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

/** A new snapshot of (repo, ref, commit) with its totals; returns its id. */
export const NEW_SNAPSHOT = `
  INSERT INTO cruxe.snapshots (repo_id, ref, commit_id, file_count, symbol_count) VALUES ($1, $2, $3, $4, $5)
  RETURNING id`;

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

/** A snapshot's symbols (snapshot $1, then one array per column). */
export const INSERT_SYMBOLS = `
  INSERT INTO cruxe.symbols (snapshot_id, id, path, name, name_lower, qualified_name, kind, language, signature,
    line_start, line_end, parent_id, symbol_id)
  SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
    $9::text[], $10::int[], $11::int[], $12::bigint[], $13::text[])`;

/**
 * A snapshot's chunks (snapshot $1, then one array per column): the terms
 * are the text's own words, the parts of its compound identifiers ($9) and
 * its symbol's name parts (weighted above the body), and its path's words.
 */
export const INSERT_CHUNKS = `
  INSERT INTO cruxe.chunks (snapshot_id, path, line_start, line_end, language, symbol_name, content, terms)
  SELECT $1, c.path, c.ls, c.le, c.lang, c.sym, c.content,
    setweight(to_tsvector('simple', coalesce(c.symterms, '')), 'A') ||
    setweight(to_tsvector('simple', c.pathterms), 'B') ||
    setweight(to_tsvector('simple', c.content || ' ' || c.extra), 'D')
  FROM unnest($2::text[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
    $10::text[]) AS c(path, ls, le, lang, sym, content, symterms, extra, pathterms)`;

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

/** One job's row and its events (job $1). */
export const JOB_ROW = `SELECT id, ref, commit_id, status, attempts, lease_owner, error FROM cruxe.jobs WHERE id = $1`;

/** The head (ref, commit) reads of repository $1 and ref $2 go to; no row when the ref has none. */
export const HEAD_OF = `
  SELECT h.ref, h.commit_id, h.snapshot_id FROM cruxe.ref_heads h WHERE h.repo_id = $1 AND h.ref = $2`;

/**
 * Definitions named $3 (lower-case) in the head of (repo $1, ref $2), with
 * the commit read; kind ($4) and language ($5) filters when not null.
 */
export const LOCATE_SYMBOL = `
  SELECT h.commit_id, s.name, s.qualified_name, s.kind, s.language, s.path, s.line_start, s.line_end, s.signature,
    s.symbol_id
  FROM cruxe.ref_heads h JOIN cruxe.symbols s ON s.snapshot_id = h.snapshot_id
  WHERE h.repo_id = $1 AND h.ref = $2 AND (s.name_lower = $3 OR lower(s.qualified_name) = $3)
    AND ($4::text IS NULL OR s.kind = $4) AND ($5::text IS NULL OR s.language = $5)
  ORDER BY (s.name_lower = $3 AND s.name <> $6), s.path, s.line_start
  LIMIT $7`;

/** The file $3 of the head of (repo $1, ref $2) and its symbols in source order (none: the file alone). */
export const FILE_OUTLINE = `
  SELECT h.commit_id, f.language, f.line_count, f.symbol_count, s.id, s.parent_id, s.name, s.qualified_name, s.kind,
    s.signature, s.line_start, s.line_end, s.symbol_id
  FROM cruxe.ref_heads h JOIN cruxe.files f ON f.snapshot_id = h.snapshot_id AND f.path = $3
  LEFT JOIN cruxe.symbols s ON s.snapshot_id = h.snapshot_id AND s.path = f.path
  WHERE h.repo_id = $1 AND h.ref = $2
  ORDER BY s.line_start, s.id`;

/**
 * The best chunk of each file of the head of (repo $1, ref $2) matching
 * tsquery text $3, files ranked by their best chunk's cover density (symbol
 * names weigh most, then path words, then the text) plus $7 times the
 * scores of the file's other matching chunks, divided by 1 + 0.3 per
 * directory level of its path (then path and line for ties),
 * at most $6; language ($4) and path prefix ($5, matched as a prefix, never
 * as a pattern) filters when not null. Up to 500 matching chunks are ranked
 * (the GIN index finds them).
 */
export const SEARCH_CHUNKS = `
  WITH q AS (SELECT to_tsquery('simple', $3) AS q),
  hits AS (
    SELECT h.commit_id, c.path, c.line_start, c.line_end, c.language, c.symbol_name, c.content,
      ts_rank_cd('{0.1, 0.2, 0.3, 1.0}', c.terms, q.q, 1) AS score
    FROM cruxe.ref_heads h JOIN cruxe.chunks c ON c.snapshot_id = h.snapshot_id, q
    WHERE h.repo_id = $1 AND h.ref = $2 AND c.terms @@ q.q
      AND ($4::text IS NULL OR c.language = $4) AND ($5::text IS NULL OR left(c.path, length($5)) = $5)
    ORDER BY score DESC, c.path, c.line_start
    LIMIT 500
  ),
  best AS (SELECT DISTINCT ON (path) * FROM hits ORDER BY path, score DESC, line_start),
  per_file AS (SELECT path, sum(score) AS total FROM hits GROUP BY path)
  SELECT b.commit_id, b.path, b.line_start, b.line_end, b.language, b.symbol_name, b.content,
    (b.score + $7::float8 * (f.total - b.score))
      / (1 + 0.3 * (length(b.path) - length(replace(b.path, '/', '')))) AS score
  FROM best b JOIN per_file f ON f.path = b.path
  ORDER BY 8 DESC, b.path, b.line_start
  LIMIT $6`;

/** The bytes of file $3 in the head of (repo $1, ref $2), with the commit read. */
export const OPEN_FILE = `
  SELECT h.commit_id, f.language, f.line_count, b.content
  FROM cruxe.ref_heads h JOIN cruxe.files f ON f.snapshot_id = h.snapshot_id AND f.path = $3
  JOIN cruxe.blobs b ON b.oid = f.blob_oid
  WHERE h.repo_id = $1 AND h.ref = $2`;
