/**
 * What a store path must be: the Cruxe home and store directories are
 * directories, store files are regular files. Something else there (a file
 * named as the home, a directory or FIFO named `registry.db`) is refused up
 * front with `storage_unavailable` naming the path, what it is and what it
 * should be, before SQLite or `mkdir` would fail on it with an opaque error
 * (or block reading a FIFO). Requires `--allow-read` on the path (and
 * `--allow-write` for `ensureStoreDir`).
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { asStorageError, storageUnavailable } from "./storage_errors.ts";

/** What a file system entry is, in words ("a directory", "a FIFO", ...). */
function kindOf(info: Deno.FileInfo): string {
  if (info.isFile) return "a regular file";
  if (info.isDirectory) return "a directory";
  if (info.isFifo) return "a FIFO";
  if (info.isSocket) return "a socket";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  return "neither a file nor a directory";
}

/** The entry at `path` (symlinks followed), or null when there is none or it cannot be looked at. */
function statOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.statSync(path);
  } catch {
    return null; // absent, or a fault the open itself reports
  }
}

/**
 * Throws `storage_unavailable` (reason `not_a_file` or `not_a_directory`)
 * when `path` exists but is not a `want`; returns when it is, or does not
 * exist yet. `home` goes into the fix of a directory that is not one.
 */
export function requireKind(path: string, want: "file" | "directory", home?: string): void {
  const info = statOrNull(path);
  if (!info || (want === "file" ? info.isFile : info.isDirectory)) return;
  const should = want === "file" ? "a SQLite database file" : "a directory";
  throw storageUnavailable(
    path,
    want === "file" ? "not_a_file" : "not_a_directory",
    `found ${kindOf(info)}; it should be ${should}`,
    home,
  );
}

/**
 * Creates the store directory `dir` and its parents. A component that exists
 * but is not a directory is `storage_unavailable` naming it (`not_a_directory`);
 * other faults are the registry errors of `asStorageError`.
 */
export function ensureStoreDir(dir: string, home?: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    for (let p = dir; dirname(p) !== p; p = dirname(p)) requireKind(p, "directory", home);
    throw asStorageError(e, dir, { home });
  }
}
