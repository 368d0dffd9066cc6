/**
 * Registering a directory as a project: canonical path, VCS mode, default
 * ref. Requires `--allow-read` on the path and `--allow-run=git`.
 */
import { basename } from "node:path";
import { realpathSync, statSync } from "node:fs";
import { CruxeError } from "../core/errors.ts";
import { projectId } from "../core/ids.ts";
import type { ProjectRow, Registry } from "../state/registry.ts";
import { currentRef, hasGit } from "./git.ts";

/** Canonical absolute path of an existing directory, or a `project_not_found` error. */
export function canonicalDir(path: string): string {
  if (!path || path.includes("\0")) throw new CruxeError("invalid_input", "Workspace path is empty or contains NUL");
  let real: string;
  try {
    real = realpathSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw outsideSandbox(path);
    throw new CruxeError("project_not_found", `Workspace ${path} does not exist`, { path });
  }
  let isDir = false;
  try {
    isDir = statSync(real).isDirectory();
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw outsideSandbox(path);
    throw new CruxeError("project_not_found", `Workspace ${path} cannot be read: ${(e as Error).message}`, { path });
  }
  if (!isDir) throw new CruxeError("project_not_found", `Workspace ${path} is a file, not a directory`, { path });
  return real;
}

/**
 * The error for a path this process's Deno permissions do not cover: a
 * sandboxed server only reads the workspaces and allowed roots it started with.
 */
export function outsideSandbox(path: string): CruxeError {
  return new CruxeError(
    "workspace_not_allowed",
    `${path} is outside what this server may read (its permission sandbox covers the workspaces and ` +
      `--allowed-root folders it started with). Restart the server with --workspace ${path}, or with an ` +
      `--allowed-root that contains it.`,
    { path },
  );
}

/** The ref an index of `root` is labelled with: the branch, or `live` outside git. */
export function refFor(root: string, vcs: "git" | "plain"): string {
  return vcs === "git" ? currentRef(root) ?? "live" : "live";
}

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
