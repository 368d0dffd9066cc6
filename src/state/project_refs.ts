/**
 * The git refs of a registered project: which names mean its working tree,
 * resolving a ref to its commit, and finding the indexed commit in its refs
 * store or in another worktree's of the same repository (same objects, so
 * an indexed commit serves every worktree). Requires `--allow-run=git` to
 * resolve refs and `--allow-read` on the Cruxe home.
 */
import { CruxeError } from "../core/errors.ts";
import { checkRefName, gitCommonDir, gitResolveRef, type ResolvedRef } from "../io/git.ts";
import { existsSync } from "node:fs";
import { findRefStore as findIn, refsStorePath, type RefStoreInfo } from "./ref_stores.ts";
import type { ProjectRow, Registry } from "./registry.ts";
import { TOOL } from "../core/tool_names.ts";

/**
 * The explicit name of the working tree (the files on disk, uncommitted edits
 * included) wherever a ref is taken. Reserved: a branch or tag of that name
 * is reached as `refs/heads/WORKTREE` or `refs/tags/WORKTREE`.
 */
export const WORKTREE_REF = "WORKTREE";

/**
 * True for the names of the working tree rather than a git ref: no ref,
 * `WORKTREE`, and the older spelling `live`. A branch, tag or commit name
 * always means that commit, even the checked-out branch's.
 */
export function isLiveRef(ref: string | undefined): boolean {
  return ref === undefined || ref === WORKTREE_REF || ref === "live";
}

/**
 * The store directories of the other registered worktrees of `project`'s
 * repository (same git common directory). Their refs stores index commits of
 * the same object store, so they serve this worktree too.
 */
export function worktreeStoreDirs(registry: Registry, project: ProjectRow): string[] {
  if (project.vcs_mode !== "git") return [];
  const common = gitCommonDir(project.repo_root);
  if (!common) return [];
  return registry.listProjects()
    .filter((p) => p.project_id !== project.project_id && p.vcs_mode === "git" && gitCommonDir(p.repo_root) === common)
    .map((p) => registry.projectDir(p.project_id));
}

/**
 * The published index of `commit` of `project`: in its own refs store, else
 * (shared) another worktree's; undefined when none. `otherDirs` defaults to
 * `worktreeStoreDirs` (pass it when already known).
 */
export function findRefStore(
  registry: Registry,
  project: ProjectRow,
  commit: string,
  otherDirs?: string[],
): RefStoreInfo | undefined {
  const own = findIn(registry.projectDir(project.project_id), commit);
  if (own) return own;
  for (const dir of otherDirs ?? worktreeStoreDirs(registry, project)) {
    const found = findIn(dir, commit);
    if (found) return found;
  }
  return undefined;
}

/**
 * The project store directory whose refs store indexes `project`'s refs:
 * its own when it has one, else that of another registered worktree of the
 * same repository that has one (same objects: one store serves them all and
 * a commit is indexed once), else its own.
 */
export function refsHomeFor(registry: Registry, project: ProjectRow): string {
  const own = registry.projectDir(project.project_id);
  if (existsSync(refsStorePath(own))) return own;
  return worktreeStoreDirs(registry, project).find((d) => existsSync(refsStorePath(d))) ?? own;
}

/**
 * Resolves a git ref of `project` to its commit, or `ref_not_indexed`
 * saying why it cannot be indexed (not a git repository, no such ref).
 * A name that git could read as an option is `invalid_input`.
 */
export async function resolveProjectRef(project: ProjectRow, ref: string): Promise<ResolvedRef> {
  checkRefName(ref);
  const resolved = project.vcs_mode === "git" ? await gitResolveRef(project.repo_root, ref) : null;
  if (resolved) return resolved;
  const why = project.vcs_mode === "git"
    ? `no branch, tag, remote branch or commit named ${ref} exists in ${project.repo_root}`
    : `${project.repo_root} is not a git repository, so only its working tree (ref "${WORKTREE_REF}") is indexed`;
  throw new CruxeError("ref_not_indexed", `Ref ${ref} cannot be indexed: ${why}.`, {
    requested_ref: ref,
    reason: project.vcs_mode === "git" ? "unknown_ref" : "not_git",
  });
}

/** The `index_repo` call that indexes `ref` of `project` (what a `ref_not_indexed` answer tells the agent to run). */
export function indexRefFix(project: Pick<ProjectRow, "repo_root">, ref: string) {
  return { tool: TOOL.index_repo, arguments: { workspace: project.repo_root, ref, wait: true } };
}
