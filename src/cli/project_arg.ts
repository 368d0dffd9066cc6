/** Which project a CLI command acts on: `--workspace`/`--path`, else the current directory. */
import { CruxeError } from "../core/errors.ts";
import type { ProjectRow, Registry } from "../state/registry.ts";
import { registerProject } from "../index/project_setup.ts";
import { canonicalDir } from "../io/workspace_dir.ts";

/**
 * The registered project at or above `path`; registers `path` when `register`
 * is set and none is found, else `project_not_found` with the fix.
 */
export function projectForPath(registry: Registry, path: string, register: boolean): ProjectRow {
  const root = canonicalDir(path);
  const found = registry.projectContaining(root);
  if (found) {
    registry.touchWorkspace(found.repo_root);
    return found;
  }
  if (register) return registerProject(registry, root);
  throw new CruxeError(
    "project_not_found",
    `No Cruxe project at ${root}. Run \`cruxe init --workspace ${root}\` or \`cruxe index --path ${root}\` first.`,
    { path: root },
  );
}
