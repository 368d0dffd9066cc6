/**
 * Registering a directory as a project: canonical path, VCS mode, default
 * ref. Requires `--allow-read` on the path and `--allow-run=git`.
 */
import { basename } from "node:path";
import { projectId } from "../core/ids.ts";
import type { ProjectRow, Registry } from "../state/registry.ts";
import { hasGit, refFor } from "../io/git.ts";
import { canonicalDir } from "../io/workspace_dir.ts";

/** Registers (or refreshes) a project for a directory. */
export function registerProject(
  registry: Registry,
  path: string,
  opts: { autoDiscovered?: boolean; name?: string } = {},
): ProjectRow {
  const root = canonicalDir(path);
  const vcs = hasGit(root) ? "git" : "plain";
  const id = projectId(root);
  const existing = registry.getProject(id);
  const row = registry.upsertProject({
    project_id: id,
    repo_root: root,
    name: opts.name ?? existing?.name ?? uniqueName(registry, basename(root) || "root", id),
    vcs_mode: vcs,
    default_ref: refFor(root, vcs),
  });
  registry.upsertWorkspace(root, id, opts.autoDiscovered ?? false);
  return row;
}

/** A repository name not used by another project (`name`, then `name-2`, ...). */
function uniqueName(registry: Registry, base: string, id: string): string {
  const taken = new Set(registry.listProjects().filter((p) => p.project_id !== id).map((p) => p.name));
  if (!taken.has(base)) return base;
  for (let i = 2;; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}
