/**
 * A workspace directory as the filesystem and this process's permission
 * sandbox see it: its canonical path, and the error for a path the sandbox
 * does not cover. Filesystem access rules live in state, so the indexer, the
 * router and the CLI share them. Requires `--allow-read` on the path.
 */
import { realpathSync, statSync } from "node:fs";
import { CruxeError } from "../core/errors.ts";

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

/** `p`'s canonical path, or null when it does not resolve. Requires `--allow-read` on `p`. */
export function realpathOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * The path registered root `root` resolves to now when that is another path
 * (the root became, or moved behind, a symlink: it could lead anywhere);
 * null when it is still its own realpath, or does not resolve at all.
 * Requires `--allow-read` on the root.
 *
 * @example rootMovedTo("/work/app") // "/elsewhere" after `mv app app.old && ln -s /elsewhere app`
 */
export function rootMovedTo(root: string): string | null {
  const real = realpathOrNull(root);
  return real !== null && real !== withoutTrailingSlash(root) ? real : null;
}

function withoutTrailingSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, "") || "/" : path;
}

/**
 * Refuses (`forbidden`, see `rootMovedError`) registered root `root` whose
 * realpath, just taken by the caller, is `real`, another path.
 *
 * @example checkResolvedRoot("/work/app", Deno.realPathSync("/work/app"))
 */
export function checkResolvedRoot(root: string, real: string): void {
  if (real !== withoutTrailingSlash(root)) throw rootMovedError(root, real);
}

/** The `forbidden` error for registered root `root` that now resolves to `real` (see `rootMovedTo`). */
export function rootMovedError(root: string, real: string): CruxeError {
  return new CruxeError(
    "forbidden",
    `The repository root ${root} now resolves to ${real}; re-register it (cruxe init) to serve it again`,
    { repo_root: root, resolved: real, reason: "root_moved" },
  );
}

/**
 * Refuses (`forbidden`, see `rootMovedError`) a registered root that moved:
 * the scan, the watcher, every sync and every routed call check it, so a
 * root swapped for a symlink is never indexed or served from its new target.
 * Requires `--allow-read` on the root.
 */
export function checkRootUnmoved(root: string): void {
  const real = rootMovedTo(root);
  if (real !== null) throw rootMovedError(root, real);
}
