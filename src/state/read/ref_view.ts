/**
 * A read view of one ref's index: what the ref-comparing queries
 * (diff_context, compare_symbol_between_commits) read from. It is the
 * smallest thing both kinds of ref can give: the live working tree (its
 * project index, with file reads through the safe open) and a git ref
 * indexed from the object store (a read-only connection to the refs store
 * that reads as that commit's index, with file reads from git blobs).
 *
 * The connection reads the project-index schema (`files`, `symbols`,
 * `chunks`, read through `src/state/read/`). Symbol bodies come from the
 * stored chunks; `readFiles` is asked only for files whose text the store
 * does not hold (a file over the full-text limit, a chunk cut at its size
 * cap).
 */
import type { Db } from "../db.ts";

/** One ref's index, opened for reading. */
export interface RefView {
  /** A read connection to the ref's index. */
  db: Db;
  /** How answers name the ref: a branch, tag or commit id as asked, or `WORKTREE` for the working tree. */
  label: string;
  /** The commit the index was built from; null for the live working tree (it may hold uncommitted edits). */
  commitId: string | null;
  /** The working tree only: its checked-out branch (null when detached or outside git) and the commit HEAD is at. */
  workingTree?: { branch: string | null; headCommit: string | null };
  /** Set when a branch moved since it was indexed and the view is of its older commit: why, and the fix. */
  stale?: string;
  /**
   * The bytes of each readable repository file among `paths` (relative,
   * `/`-separated) at this ref; a path the ref has no readable file at is
   * left out. Optional: without it only the stored text is compared. Must
   * never read outside the repository (the working tree reads through the
   * safe open, a git ref through one batch of blob reads of the hardened git
   * module).
   */
  readFiles?(paths: readonly string[]): Promise<Map<string, Uint8Array>>;
}
