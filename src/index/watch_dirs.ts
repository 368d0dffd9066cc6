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

/** Lists a directory's entries without holding the event loop (`Deno.readDir` by default). */
export type ReadDirAsync = (abs: string) => Promise<Iterable<Deno.DirEntry>>;

const readDirSync: ReadDir = (abs) => Deno.readDirSync(abs);
const readDirAsync: ReadDirAsync = (abs) => Array.fromAsync(Deno.readDir(abs));

/** A directory's entries, or the error listing it threw. */
type Listed = Iterable<Deno.DirEntry> | Error;

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
  const steps = walkSteps(root, filter, start, out);
  for (let step = steps.next(); !step.done;) {
    let listed: Listed;
    try {
      listed = [...readDir(step.value)];
    } catch (e) {
      listed = e as Error;
    }
    step = steps.next(listed);
  }
  return out;
}

/**
 * `watchDirectories`, listing each directory asynchronously: on a large tree
 * (the kernel's 5,000 directories, cold pages) the walk takes seconds, and
 * the server answers calls meanwhile.
 */
export async function watchDirectoriesAsync(
  root: string,
  filter: WatchFilter,
  start = "",
  readDir: ReadDirAsync = readDirAsync,
): Promise<WatchDirs> {
  const out: WatchDirs = { dirs: [], unreadable: [] };
  const steps = walkSteps(root, filter, start, out);
  for (let step = steps.next(); !step.done;) {
    let listed: Listed;
    try {
      listed = await readDir(step.value);
    } catch (e) {
      listed = e as Error;
    }
    step = steps.next(listed);
  }
  return out;
}

/**
 * The walk both listings share, as steps: it yields each absolute directory
 * to list and is resumed with its entries (or the error listing threw), and
 * fills `out`.
 */
function* walkSteps(root: string, filter: WatchFilter, start: string, out: WatchDirs): Generator<string, void, Listed> {
  function* list(rel: string): Generator<string, Deno.DirEntry[] | null, Listed> {
    const listed = yield rel ? join(root, rel) : root;
    if (!(listed instanceof Error)) return [...listed];
    out.unreadable.push({ path: rel || ".", reason: listed.message, error: listed });
    return null;
  }
  if (start && (!isRealDirectory(join(root, start)) || filter.classify(start, true) === "ignored")) return;
  const stack = [start];
  while (stack.length) {
    const rel = stack.pop()!;
    const entries = yield* list(rel);
    if (!entries) continue;
    out.dirs.push(rel);
    for (const e of entries) {
      if (!e.isDirectory || e.isSymlink) continue; // a symlink is never followed
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (child === ".git" || filter.classify(child, true) === "ignored") continue;
      stack.push(child);
    }
  }
  if (start !== "") return;
  // `.git`, `.git/info` and `.git/refs/heads` with its subdirectories (branch names with `/`), none through a link.
  const real = (rel: string) => isRealDirectory(join(root, rel));
  if (!real(".git")) return;
  out.dirs.push(".git");
  if (real(".git/info")) out.dirs.push(".git/info");
  const refs = real(".git/refs") && real(".git/refs/heads") ? [".git/refs/heads"] : [];
  while (refs.length) {
    const rel = refs.pop()!;
    const entries = yield* list(rel);
    if (!entries) continue;
    out.dirs.push(rel);
    for (const e of entries) if (e.isDirectory && !e.isSymlink) refs.push(`${rel}/${e.name}`);
  }
}

function isRealDirectory(abs: string): boolean {
  try {
    return Deno.lstatSync(abs).isDirectory;
  } catch {
    return false;
  }
}
