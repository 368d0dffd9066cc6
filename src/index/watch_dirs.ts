/**
 * The directories a watch of a repository covers: exactly those the scan
 * descends into (never a symlink or anything below one, never a directory
 * the ignore rules or the built-in skips leave out), plus the parts of
 * `.git` whose changes matter (`HEAD`, `index.lock`, `info/exclude`,
 * `refs/heads`). A directory that cannot be read is left out and named, so
 * the rest is still watched. Requires `--allow-read` on the repository.
 */
import { join } from "node:path";
import type { WatchFilter } from "./watch_filter.ts";

/** What a walk for watching found. */
export interface WatchDirs {
  /** Directories to watch, relative to the root (`""` is the root itself). */
  dirs: string[];
  /** Directories left out because they could not be read, with why. */
  unreadable: { path: string; reason: string; error?: Error }[];
}

/** Lists a directory's entries (a seam for tests; `Deno.readDirSync` otherwise). */
export type ReadDir = (abs: string) => Iterable<Deno.DirEntry>;

const readDirSync: ReadDir = (abs) => Deno.readDirSync(abs);

/**
 * The directories to watch at and below `start` (relative to `root`; `""`
 * for the whole repository, which also adds the `.git` parts). `start`
 * itself is included when it is a real directory (not a symlink) the filter
 * keeps. Never throws for a subdirectory; an unreadable `start` is reported
 * like any other.
 */
export function watchDirectories(
  root: string,
  filter: WatchFilter,
  start = "",
  readDir: ReadDir = readDirSync,
): WatchDirs {
  const out: WatchDirs = { dirs: [], unreadable: [] };
  const list = (rel: string): Deno.DirEntry[] | null => {
    try {
      return [...readDir(rel ? join(root, rel) : root)];
    } catch (e) {
      out.unreadable.push({ path: rel || ".", reason: (e as Error).message, error: e as Error });
      return null;
    }
  };
  if (start && (!isRealDirectory(join(root, start)) || filter.classify(start, true) === "ignored")) return out;
  const stack = [start];
  while (stack.length) {
    const rel = stack.pop()!;
    const entries = list(rel);
    if (!entries) continue;
    out.dirs.push(rel);
    for (const e of entries) {
      if (!e.isDirectory || e.isSymlink) continue; // a symlink is never followed
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (child === ".git" || filter.classify(child, true) === "ignored") continue;
      stack.push(child);
    }
  }
  if (start === "") addGitDirs(root, out, list);
  return out;
}

/** `.git`, `.git/info` and `.git/refs/heads` with its subdirectories (branch names with `/`), none through a link. */
function addGitDirs(root: string, out: WatchDirs, list: (rel: string) => Deno.DirEntry[] | null): void {
  const real = (rel: string) => isRealDirectory(join(root, rel));
  if (!real(".git")) return;
  out.dirs.push(".git");
  if (real(".git/info")) out.dirs.push(".git/info");
  const stack = real(".git/refs") && real(".git/refs/heads") ? [".git/refs/heads"] : [];
  while (stack.length) {
    const rel = stack.pop()!;
    const entries = list(rel);
    if (!entries) continue;
    out.dirs.push(rel);
    for (const e of entries) if (e.isDirectory && !e.isSymlink) stack.push(`${rel}/${e.name}`);
  }
}

function isRealDirectory(abs: string): boolean {
  try {
    return Deno.lstatSync(abs).isDirectory;
  } catch {
    return false;
  }
}
