/**
 * Safe open: the one way Cruxe reads the content of a repository file. The
 * repository is untrusted: any entry can be a symlink, a FIFO, or be swapped
 * for one while we look at it. So a read here:
 *
 * 1. refuses a path that is absolute, climbs with `..`, or ends in `/` or
 *    `/.` (those name a directory, never a file);
 * 2. walks the directory components with `lstat`: every one must be a real
 *    directory. A symlink there is refused wherever it points, also inside
 *    the root: the scan never indexes below one, so nothing indexed lives
 *    there, and the rule needs no target to be resolved;
 * 3. checks the last component with `lstat` before opening: it must be a
 *    regular file (opening a FIFO would block). A symlink as last component
 *    is followed only when the caller asks (`followFinalSymlink`, open_file's
 *    contract) and its realpath lies inside the root; that path is then read
 *    under the same rules;
 * 4. opens (non-blocking, not following a final symlink where the platform
 *    honours it), `fstat`s the handle: a regular file, the same device and
 *    inode as step 3 saw;
 * 5. resolves the path again (realpath): it must lie inside the canonical
 *    root, compared by path components, and be the very path asked for (no
 *    component turned into a symlink); `stat` of that path must be the
 *    handle's device and inode; and the directory walk of step 2 must find
 *    the same directories again.
 *
 * A swap before the open is caught by steps 4-5 (the handle is another file
 * than the one the path leads to inside the root), a swap after it by step 5
 * (the path no longer resolves to the handle). Since Deno offers no
 * `openat` and no `/proc/self/fd` without all permissions, the checks are
 * lookups by path: step 5 is repeated (`CONFIRM_ROUNDS`), so slipping through
 * would need a directory on the way swapped and restored in step with each
 * of about a dozen consecutive lookups microseconds apart.
 *
 * Errors name only the request path, never where a link points: `forbidden`
 * for escapes, symlinked directories, and anything the process may not read
 * (a Deno permission denial, a 0000 file or a 0000 directory alike);
 * `file_not_found` for missing entries, non-regular files, trailing slashes
 * and entries that changed while being opened; `unsupported_media` for files
 * over the caller's size limit.
 *
 * Requires `--allow-read` on the repository root.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { CruxeError } from "../core/errors.ts";
import { isWithinRoot } from "../core/path_policy.ts";
import { checkResolvedRoot } from "./workspace_dir.ts";

/** What `readRepoFile` may do. */
export interface SafeReadOptions {
  /** Files larger than this are refused with `unsupported_media` (before any byte is read). */
  maxBytes: number;
  /** Follow a last-component symlink whose realpath lies inside the root (default: refuse it). */
  followFinalSymlink?: boolean;
}

/** A file read by `readRepoFile`. */
export interface RepoFile {
  /** The repository-relative path actually read (differs from the request only through a followed symlink). */
  path: string;
  bytes: Uint8Array;
}

/** Read-only, non-blocking (a FIFO swapped in cannot hang us), no final symlink where the platform honours it. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

interface Identity {
  dev: number;
  ino: number | null;
}

const same = (a: Identity, b: Identity) => a.dev === b.dev && a.ino === b.ino;

function notFound(shown: string, why = "no such file in this repository"): CruxeError {
  return new CruxeError("file_not_found", `No file ${shown}: ${why}`, { path: shown });
}

function forbidden(shown: string, why: string): CruxeError {
  return new CruxeError("forbidden", `Refused path ${shown}: ${why}`, { path: shown });
}

/**
 * A filesystem failure as a registry error naming only the request path (a
 * Deno permission message names the resolved target, which may be outside).
 */
function refusal(e: unknown, shown: string): CruxeError {
  if (e instanceof CruxeError) return e;
  const code = (e as { code?: unknown })?.code;
  if (
    e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied || code === "EACCES" ||
    code === "EPERM"
  ) {
    return forbidden(shown, "not readable by this server");
  }
  return notFound(shown);
}

/** `fn()`, with any filesystem failure turned into `refusal`. */
function fsCall<T>(shown: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw refusal(e, shown);
  }
}

/**
 * The segments of a repository-relative path (`/`-separated; empty and `.`
 * segments dropped). Refuses (`forbidden`) an absolute path, a `..` segment
 * or a NUL byte, and (`file_not_found`) a trailing `/` or `/.` (both name
 * a directory) or nothing left.
 * Request-level policy (encoded `..`, `~`, `\` as a separator) is the
 * caller's: scanned names may legitimately hold those characters.
 */
function pathSegments(path: string): string[] {
  if (typeof path !== "string") throw new CruxeError("invalid_input", "path must be a string");
  const segs = path.split("/").filter((seg) => seg !== "" && seg !== ".");
  if (path.startsWith("/") || path.includes("\0") || segs.includes("..")) {
    throw forbidden(path, "not a path inside the repository");
  }
  const last = path.slice(path.lastIndexOf("/") + 1);
  if (last === "" || last === "." || !segs.length) {
    throw notFound(path, "a path ending in / (or /.) names a directory, not a file");
  }
  return segs;
}

/** Identities of the directories `root/segs[0]`, `root/segs[0]/segs[1]`, … (all but the last segment). */
function walkDirectories(root: string, segs: string[], shown: string): Identity[] {
  const ids: Identity[] = [];
  let abs = root;
  for (let i = 0; i < segs.length - 1; i++) {
    abs = join(abs, segs[i]);
    const st = fsCall(shown, () => Deno.lstatSync(abs));
    if (st.isSymlink) throw forbidden(shown, `${segs.slice(0, i + 1).join("/")} is a symlinked directory`);
    if (!st.isDirectory) throw notFound(shown);
    ids.push({ dev: st.dev, ino: st.ino });
  }
  return ids;
}

/**
 * The canonical form of a repository root, or `project_not_found`; a root
 * that now resolves to another path (swapped for a symlink) is `forbidden`.
 */
function canonicalRootOf(root: string): string {
  let real: string;
  try {
    real = Deno.realPathSync(root);
  } catch {
    throw new CruxeError("project_not_found", `Repository root ${root} is not readable`, { repo_root: root });
  }
  checkResolvedRoot(root, real);
  return real;
}

/**
 * True when a directory component of `rel` (repository-relative, `/`
 * separated) is a symlink: the rule the scan and `readRepoFile` share, so a
 * file below a symlinked directory is neither indexed nor read. `cache`
 * remembers directories already looked at within one scan.
 * Requires `--allow-read` on `root`.
 *
 * @example underSymlinkedDirectory("/repo", "h/.bashrc", new Map()) // true when /repo/h is a symlink
 */
export function underSymlinkedDirectory(root: string, rel: string, cache: Map<string, boolean>): boolean {
  const segs = rel.split("/");
  let prefix = "";
  for (let i = 0; i < segs.length - 1; i++) {
    prefix = prefix ? `${prefix}/${segs[i]}` : segs[i];
    let linked = cache.get(prefix);
    if (linked === undefined) {
      try {
        linked = Deno.lstatSync(join(root, prefix)).isSymlink;
      } catch {
        linked = false; // missing or unreadable: the file's own lstat reports it
      }
      cache.set(prefix, linked);
    }
    if (linked) return true;
  }
  return false;
}

/**
 * Reads the repository file `path` (relative to `root`) through the checks
 * in the module comment, or throws `forbidden` / `file_not_found` /
 * `unsupported_media` (`project_not_found` when the root itself is gone,
 * `forbidden` when it now resolves to another path).
 * Never returns content from outside the canonical root.
 * Requires `--allow-read` on `root`.
 *
 * @example readRepoFile("/home/dev/app", "src/main.ts", { maxBytes: 1 << 20 }).bytes
 */
export function readRepoFile(root: string, path: string, opts: SafeReadOptions): RepoFile {
  const canonical = canonicalRootOf(root);
  let segs = pathSegments(path);
  let dirs = walkDirectories(canonical, segs, path);
  let abs = join(canonical, ...segs);
  let before = fsCall(path, () => Deno.lstatSync(abs));
  if (before.isSymlink) {
    if (!opts.followFinalSymlink) throw forbidden(path, "it is a symlink");
    const real = fsCall(path, () => Deno.realPathSync(abs));
    if (!isWithinRoot(canonical, real)) throw forbidden(path, "it resolves outside the repository (symlink escape)");
    if (real === canonical) throw notFound(path, "not a regular file");
    segs = real.slice(canonical === "/" ? 1 : canonical.length + 1).split("/");
    dirs = walkDirectories(canonical, segs, path);
    abs = real;
    before = fsCall(path, () => Deno.lstatSync(abs));
    if (before.isSymlink) throw notFound(path, "it changed while being opened");
  }
  if (!before.isFile) throw notFound(path, "not a regular file");
  const tooLarge = (size: number) =>
    new CruxeError("unsupported_media", `${path} is ${size} bytes; files up to ${opts.maxBytes} bytes are read`, {
      path,
      size,
      limit: opts.maxBytes,
    });
  if (before.size > opts.maxBytes) throw tooLarge(before.size);

  const fd = fsCall(path, () => openSync(abs, OPEN_FLAGS));
  try {
    const handle = fsCall(path, () => fstatSync(fd));
    const held: Identity = { dev: handle.dev, ino: handle.ino };
    if (!handle.isFile() || !same(held, before)) throw notFound(path, "it changed while being opened");
    // No check that the file shares its directory's device: on an overlay file system whose layers sit on
    // different file systems, files report their layer's device and directories the overlay's.
    for (let round = 0; round < CONFIRM_ROUNDS; round++) confirmPlace(canonical, segs, abs, dirs, held, path);
    if (handle.size > opts.maxBytes) throw tooLarge(handle.size);
    return { path: segs.join("/"), bytes: readAll(fd, handle.size, path) };
  } finally {
    closeSync(fd);
  }
}

/**
 * How many times the held handle's place is confirmed. Each round needs a
 * directory on the way to be real for its walk and realpath and a link for
 * its stat: a swapped-in link survives only by alternating in step with
 * every one of those lookups, twice per round.
 */
const CONFIRM_ROUNDS = 4;

/**
 * Throws unless `abs` now leads, inside the root and with no symlink on the
 * way, to the file held (`held`), through the very directories `dirs` that
 * were walked before opening.
 */
function confirmPlace(
  canonical: string,
  segs: string[],
  abs: string,
  dirs: Identity[],
  held: Identity,
  shown: string,
): void {
  const real = fsCall(shown, () => Deno.realPathSync(abs));
  if (!isWithinRoot(canonical, real)) throw forbidden(shown, "it resolves outside the repository (symlink escape)");
  if (real !== abs) throw notFound(shown, "it changed while being opened");
  const now = fsCall(shown, () => Deno.statSync(real));
  if (!same(now, held)) throw notFound(shown, "it changed while being opened");
  const again = walkDirectories(canonical, segs, shown);
  if (again.some((d, i) => !same(d, dirs[i]))) throw notFound(shown, "it changed while being opened");
}

/** Up to `size` bytes from the start of `fd` (fewer when the file shrank meanwhile). */
function readAll(fd: number, size: number, shown: string): Uint8Array {
  const buf = new Uint8Array(size);
  let off = 0;
  while (off < size) {
    const n = fsCall(shown, () => readSync(fd, buf, off, size - off, off));
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}
