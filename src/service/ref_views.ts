/**
 * Turning a ref name into the view the ref-comparing tools read (`RefView`:
 * the index plus how to read that state's files), and the merge base of two
 * refs. An indexed ref is resolved by `readViewFor` (`./ref_router.ts`), the
 * one place a (workspace, ref) pair becomes an index; this module adds the
 * working tree's files and a commit's blobs to it.
 *
 * A project's views are its live working tree (its project index: no `ref`,
 * `WORKTREE` or `live`) and whatever indexed refs the caller's
 * `RefSource.indexedRef` opens. A branch, tag or commit name always means
 * that commit, the checked-out branch's too; one not indexed answers
 * `ref_not_indexed` with the `index_repo` call that would index it. File
 * reads of the working tree go through the safe open.
 */
import { CruxeError } from "../core/errors.ts";
import type { ProjectRow } from "../state/registry.ts";
import type { RefView } from "../state/read/ref_view.ts";
import { readRepoFile } from "../io/safe_open.ts";
import { checkRefName, currentRef, gitMergeBase, gitResolveCommit } from "../io/git.ts";
import { indexRefFix, isLiveRef, WORKTREE_REF } from "../state/project_refs.ts";
import { type IndexView, requireIndex } from "../query/index_reader.ts";

/** What a ref is resolved against: the project, and its live working-tree index. */
export interface RefSource {
  project: ProjectRow;
  /** The current view of the project's (working-tree) index. */
  working(): IndexView;
  /** Largest file `readFiles` reads (bigger ones are compared by their stored text only). */
  maxFileBytes?: number;
  /**
   * The view of an indexed ref other than the working tree, or null when
   * `ref` is not indexed (it may throw a registry error of its own, such as
   * an index still being built). Absent: only the working tree is indexed.
   */
  indexedRef?(ref: string): Promise<RefView | null>;
}

/**
 * A ref input: trimmed, a revision git can take and that cannot be read as
 * an option (`-…`), a range, a path or a glob; else `invalid_input` naming
 * `field`. Absent or blank gives undefined.
 */
export function parseRef(value: unknown, field: string, required = false): string | undefined {
  if (value === undefined || value === null || (typeof value === "string" && !value.trim())) {
    if (required) throw new CruxeError("invalid_input", `${field} is required`, { field });
    return undefined;
  }
  if (typeof value !== "string") throw new CruxeError("invalid_input", `${field} must be a string`, { field });
  const ref = value.trim();
  checkRefName(ref, field);
  return ref;
}

/**
 * The read view of `ref` for the project of `src`: the live working tree
 * for no ref, `WORKTREE` or `live` (labelled `WORKTREE`, with its branch and
 * HEAD commit); any other name is `src.indexedRef`'s view of that commit,
 * and when there is none `ref_not_indexed` with the `index_repo` call that
 * indexes it in `data.fix`. An unusable working-tree index throws what
 * `requireIndex` throws.
 */
export async function openRefView(src: RefSource, ref: string | undefined): Promise<RefView> {
  if (!isLiveRef(ref)) {
    const other = src.indexedRef ? await src.indexedRef(ref!) : null;
    if (other) return other;
    throw new CruxeError(
      "ref_not_indexed",
      `Ref ${ref} is not indexed for ${src.project.repo_root} (indexed: the working tree, ${WORKTREE_REF}). ` +
        `Index it with index_repo {"ref": "${ref}"} (cruxe index --ref ${ref}), then ask again.`,
      { requested_ref: ref, indexed_ref: WORKTREE_REF, fix: indexRefFix(src.project, ref!) },
    );
  }
  const db = requireIndex(src.working());
  const root = src.project.repo_root;
  const maxBytes = src.maxFileBytes ?? 8 * 1024 * 1024;
  return {
    db,
    label: WORKTREE_REF,
    commitId: null,
    workingTree: await workingTreeHead(src.project),
    readFiles: (paths) => {
      const out = new Map<string, Uint8Array>();
      for (const path of paths) {
        try {
          out.set(path, readRepoFile(root, path, { maxBytes }).bytes);
        } catch { /* not readable now: left out */ }
      }
      return Promise.resolve(out);
    },
  };
}

/** The working tree's checked-out branch (null when detached or outside git) and the commit its HEAD is at. */
async function workingTreeHead(project: ProjectRow): Promise<{ branch: string | null; headCommit: string | null }> {
  if (project.vcs_mode !== "git") return { branch: null, headCommit: null };
  const headCommit = await gitResolveCommit(project.repo_root, "HEAD");
  const current = currentRef(project.repo_root);
  // A detached HEAD is named by its commit's first digits, not by a branch.
  const detached = current !== null && headCommit !== null && headCommit.startsWith(current);
  return { branch: detached ? null : current, headCommit };
}

/**
 * The commit where `head` (undefined or the working tree: its `HEAD`) branched
 * from `base`, by `git merge-base`; `merge_base_failed` with the reason when
 * there is none (not a git repository, an unknown ref, unrelated histories).
 */
export async function mergeBaseOf(src: RefSource, base: string, head: string | undefined): Promise<string> {
  const other = isLiveRef(head) ? "HEAD" : head!;
  const r = await gitMergeBase(src.project.repo_root, base, other);
  if ("commit" in r) return r.commit;
  throw new CruxeError("merge_base_failed", `No merge base of ${base} and ${other}: ${r.problem}`, {
    base_ref: base,
    head_ref: other,
    reason: r.problem,
  });
}
