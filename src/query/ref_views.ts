/**
 * Turning a ref name into a read view of that ref's index (`RefView`), for
 * the ref-comparing tools and commands, and the merge base of two refs.
 * `openRefView` is the one call every caller makes to get a ref's view.
 *
 * A project's views are its live working tree (its project index: no `ref`,
 * or the working tree's own branch name) and whatever indexed refs the
 * caller's `RefSource.indexedRef` opens; any other ref answers
 * `ref_not_indexed` with the `index_repo` call that would index it. File
 * reads of the working tree go through the safe open.
 */
import { CruxeError } from "../core/errors.ts";
import type { ProjectRow } from "../state/registry.ts";
import type { RefView } from "../state/ref_view.ts";
import { readRepoFile } from "../state/safe_open.ts";
import { checkRefName, gitMergeBase } from "../state/git.ts";
import { indexRefFix } from "../state/project_refs.ts";
import { type IndexView, requireIndex } from "./index_reader.ts";

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
 * The read view of `ref` (undefined: the live working tree) for the
 * project of `src`. The working tree answers to no ref and to its own
 * branch name; another ref is `src.indexedRef`'s view, and when there is
 * none `ref_not_indexed` with the `index_repo` call that indexes it in
 * `data.fix`. An unusable working-tree index throws what `requireIndex`
 * throws.
 */
export async function openRefView(src: RefSource, ref: string | undefined): Promise<RefView> {
  const view = src.working();
  const label = view.ref ?? src.project.default_ref;
  if (ref !== undefined && ref !== label && src.indexedRef) {
    const other = await src.indexedRef(ref);
    if (other) return other;
  }
  if (ref === undefined || ref === label) {
    const db = requireIndex(view);
    const root = src.project.repo_root;
    const maxBytes = src.maxFileBytes ?? 8 * 1024 * 1024;
    return {
      db,
      label,
      commitId: null,
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
  throw new CruxeError(
    "ref_not_indexed",
    `Ref ${ref} is not indexed for ${src.project.repo_root} (indexed: the working tree on ${label}). ` +
      `Index it with index_repo {"ref": "${ref}"} (cruxe index --ref ${ref}), then ask again.`,
    {
      requested_ref: ref,
      indexed_ref: label,
      fix: indexRefFix(src.project, ref),
    },
  );
}

/**
 * The commit where `head` (undefined: the working tree's `HEAD`) branched
 * from `base`, by `git merge-base`; `merge_base_failed` with the reason when
 * there is none (not a git repository, an unknown ref, unrelated histories).
 */
export async function mergeBaseOf(src: RefSource, base: string, head: string | undefined): Promise<string> {
  const r = await gitMergeBase(src.project.repo_root, base, head ?? "HEAD");
  if ("commit" in r) return r.commit;
  throw new CruxeError("merge_base_failed", `No merge base of ${base} and ${head ?? "HEAD"}: ${r.problem}`, {
    base_ref: base,
    head_ref: head ?? "HEAD",
    reason: r.problem,
  });
}
