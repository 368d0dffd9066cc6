/**
 * Whether a repository's git objects and refs are its own. git reads objects
 * from every directory `objects/info/alternates` names (and follows symlinks
 * in `objects/` and in `refs/`), so a repository could make `index --ref`
 * serve another repository's code from outside every allowed root: git runs
 * as a subprocess, outside the permission sandbox. The rules:
 *
 * - `objectStoreProblem` (cheap: it runs on every git call): `objects/`,
 *   `objects/info` and `objects/pack` are real directories; nothing in
 *   `objects/pack/` is a symlink; `info/alternates` names only directories
 *   inside the git directory (checked again there, to git's depth of 5);
 *   `info/http-alternates` names nothing. Otherwise the root is scanned as a
 *   plain directory, and the reason is shown.
 * - `refFileProblem`: the files a revision's name can be read from (git's
 *   `<name>`, `refs/<name>`, `refs/tags/<name>`, … lookup, `HEAD` and
 *   `packed-refs`) and every directory on the way are not symlinks.
 * - `looseObjectLink`: no fan-out directory or loose object file is a
 *   symlink (checked before a commit is resolved and its tree read: a
 *   repository's own commit could name a tree linked in from elsewhere).
 * - `hasOwnObject`: a commit git resolved is in the repository's own object
 *   directory (a regular loose object file, or an entry of a regular pack
 *   index beside its pack), looked up without git.
 *
 * Requires `--allow-read` on the git directory.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { isWithinRoot } from "../core/path_policy.ts";
import { realpathOrNull } from "./workspace_dir.ts";

/** git's own limit on alternates naming alternates. */
const MAX_ALTERNATE_DEPTH = 5;
/** Largest alternates file read (a bigger one is refused). */
const MAX_ALTERNATES_BYTES = 64 * 1024;

function lstatOrNull(p: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(p);
  } catch {
    return null;
  }
}

/** The first symlink among `dir`'s entries, or null (an unreadable directory has none to follow). */
function symlinkIn(dir: string): string | null {
  try {
    for (const e of Deno.readDirSync(dir)) if (e.isSymlink) return join(dir, e.name);
  } catch { /* missing or unreadable: git finds nothing there either */ }
  return null;
}

/** The non-comment lines of a small regular file; a string saying why when it is something else. */
function listFile(path: string): string[] | string | null {
  const st = lstatOrNull(path);
  if (!st) return null;
  if (!st.isFile) return `${path} is not a regular file`;
  if (st.size > MAX_ALTERNATES_BYTES) return `${path} is larger than ${MAX_ALTERNATES_BYTES} bytes`;
  try {
    return Deno.readTextFileSync(path).split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  } catch {
    return `${path} cannot be read`;
  }
}

/** Why the object directory `objects` (inside canonical `gitDir`) borrows objects from elsewhere, or null. */
function objectsDirProblem(objects: string, gitDir: string, depth: number): string | null {
  const st = lstatOrNull(objects);
  if (!st) return null;
  if (st.isSymlink) return `${objects} is a symlink`;
  if (!st.isDirectory) return `${objects} is not a directory`;
  for (const sub of ["info", "pack"]) {
    if (lstatOrNull(join(objects, sub))?.isSymlink) return `${join(objects, sub)} is a symlink`;
  }
  const linked = symlinkIn(join(objects, "pack"));
  if (linked) return `${linked} is a symlink`;
  const http = listFile(join(objects, "info", "http-alternates"));
  if (typeof http === "string") return http;
  if (http?.length) return `${join(objects, "info", "http-alternates")} names other object stores`;
  const alternates = listFile(join(objects, "info", "alternates"));
  if (typeof alternates === "string") return alternates;
  for (const line of alternates ?? []) {
    const real = line.startsWith('"') ? null : realpathOrNull(isAbsolute(line) ? line : resolve(objects, line));
    if (!real || !isWithinRoot(gitDir, real)) {
      return `${join(objects, "info", "alternates")} borrows objects from ${line}, outside ${gitDir}`;
    }
    if (depth >= MAX_ALTERNATE_DEPTH) return `${join(objects, "info", "alternates")} nests too deep`;
    const deeper = objectsDirProblem(real, gitDir, depth + 1);
    if (deeper) return deeper;
  }
  return null;
}

/**
 * Why the repository whose refs and objects live in `commonDir` (a linked
 * worktree's main git directory, else its git directory) reads objects
 * that are not its own (see the module comment), or null when they are.
 *
 * @example objectStoreProblem("/r/.git") // "/r/.git/objects/info/alternates borrows objects from /o/.git/objects, …"
 */
export function objectStoreProblem(commonDir: string): string | null {
  const real = realpathOrNull(commonDir);
  return real ? objectsDirProblem(join(real, "objects"), real, 0) : `${commonDir} cannot be resolved`;
}

/**
 * The first fan-out directory or loose object file of `commonDir` that is a
 * symlink, or null. `objectStoreProblem` does not list them (it runs on
 * every call); before a commit is resolved, every loose object is checked,
 * so no tree or blob of the commit can be read through a link.
 *
 * @example looseObjectLink("/r/.git") // null
 */
export function looseObjectLink(commonDir: string): string | null {
  const objects = join(commonDir, "objects");
  try {
    for (const e of Deno.readDirSync(objects)) {
      if (!/^[0-9a-f]{2}$/.test(e.name)) continue;
      const linked = e.isSymlink ? join(objects, e.name) : e.isDirectory ? symlinkIn(join(objects, e.name)) : null;
      if (linked) return `${linked} is a symlink`;
    }
  } catch { /* missing or unreadable: git finds nothing there either */ }
  return null;
}

/** The first symlink (or non-regular file) on the way from `base` to `rel`, or null. */
function linkOnTheWay(base: string, rel: string): string | null {
  let at = base;
  for (const part of rel.split("/")) {
    at = join(at, part);
    const st = lstatOrNull(at);
    if (!st) return null;
    if (st.isSymlink) return `${at} is a symlink`;
    if (!st.isFile && !st.isDirectory) return `${at} is not a regular file`;
  }
  return null;
}

/** Largest ref file read (`packed-refs` of a repository with many tags included). */
const MAX_REF_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The text of ref file `rel` (`HEAD`, `refs/heads/main`, `packed-refs`)
 * below git directory `base`, or null when it is missing, not a regular
 * file, reached through a symlink (at the end or on the way), or too large.
 *
 * @example readRefFile("/r/.git", "refs/heads/main") // "4b825dc…\n"
 */
export function readRefFile(base: string, rel: string): string | null {
  if (linkOnTheWay(base, rel)) return null;
  const st = lstatOrNull(join(base, rel));
  if (!st?.isFile || st.size > MAX_REF_FILE_BYTES) return null;
  try {
    return Deno.readTextFileSync(join(base, rel));
  } catch {
    return null;
  }
}

/** Refs git keeps per worktree (in the git directory, not the common one). */
const PER_WORKTREE = /^(HEAD|ORIG_HEAD|FETCH_HEAD|MERGE_HEAD|refs\/(bisect|worktree|rewritten)\/)/;

/**
 * Why a ref file revision `rev` may be read from is not a regular file of
 * the repository (a symlink, on the way or at the end; see the module
 * comment), or null. `HEAD` that names a branch is followed to that
 * branch's file.
 *
 * @example refFileProblem("/r/.git", "/r/.git", "main~2") // null, or "/r/.git/refs/heads/main is a symlink"
 */
export function refFileProblem(gitDir: string, commonDir: string, rev: string): string | null {
  const name = rev.split(/[~^:]|@\{/)[0] || "HEAD";
  const names = name === "@" || name === "HEAD"
    ? ["HEAD"]
    : [name, `refs/${name}`, `refs/tags/${name}`, `refs/heads/${name}`, `refs/remotes/${name}`];
  if (names[0] !== "HEAD") names.push(`refs/remotes/${name}/HEAD`);
  const where = (ref: string) => PER_WORKTREE.test(ref) ? gitDir : commonDir;
  for (const ref of names) {
    const problem = linkOnTheWay(where(ref), ref);
    if (problem) return problem;
  }
  const packed = lstatOrNull(join(commonDir, "packed-refs"));
  if (packed && !packed.isFile) return `${join(commonDir, "packed-refs")} is not a regular file`;
  if (names[0] === "HEAD") {
    let head = "";
    try {
      head = Deno.readTextFileSync(join(gitDir, "HEAD"));
    } catch { /* no HEAD: nothing to follow */ }
    const target = head.match(/^ref:\s*(refs\/\S+)/)?.[1];
    if (target) return linkOnTheWay(where(target), target);
  }
  return null;
}

/** `length` bytes of `fd` from `position` (fewer at the end of the file). */
function readAt(fd: number, length: number, position: number): Uint8Array {
  const buf = new Uint8Array(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n <= 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** True when the pack index at `path` (version 1 or 2) lists object `id`: a binary search of its sorted names. */
function packIndexHas(path: string, id: Uint8Array): boolean {
  const fd = openSync(path, "r");
  try {
    const head = readAt(fd, 8, 0);
    const v2 = head[0] === 0xff && head[1] === 0x74 && head[2] === 0x4f && head[3] === 0x63;
    const fanAt = v2 ? 8 : 0;
    const fan = readAt(fd, 1024, fanAt);
    if (fan.length < 1024) return false;
    const dv = new DataView(fan.buffer, fan.byteOffset, fan.byteLength);
    let lo = id[0] ? dv.getUint32((id[0] - 1) * 4) : 0;
    let hi = dv.getUint32(id[0] * 4);
    const entry = v2 ? id.length : id.length + 4;
    const nameAt = fanAt + 1024 + (v2 ? 0 : 4);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const name = readAt(fd, id.length, nameAt + mid * entry);
      if (name.length < id.length) return false;
      const c = compare(name, id);
      if (c === 0) return true;
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return false;
  } finally {
    closeSync(fd);
  }
}

/**
 * True when object `oid` (a full hex id) is in the object directory of
 * `commonDir` itself: a regular loose object file, or listed by a regular
 * pack index whose pack is a regular file. Alternates are not consulted.
 *
 * @example hasOwnObject("/r/.git", "4b825dc642cb6eb9a060e54bf8d69288fbee4904")
 */
export function hasOwnObject(commonDir: string, oid: string): boolean {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(oid)) return false;
  const objects = join(commonDir, "objects");
  if (lstatOrNull(objects)?.isDirectory !== true) return false;
  if (lstatOrNull(join(objects, oid.slice(0, 2), oid.slice(2)))?.isFile) {
    return lstatOrNull(join(objects, oid.slice(0, 2)))?.isDirectory === true;
  }
  const id = new Uint8Array(oid.length / 2);
  for (let i = 0; i < id.length; i++) id[i] = parseInt(oid.slice(2 * i, 2 * i + 2), 16);
  const pack = join(objects, "pack");
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(pack)];
  } catch {
    return false;
  }
  for (const e of entries) {
    if (!e.isFile || !e.name.endsWith(".idx")) continue;
    if (lstatOrNull(join(pack, e.name.slice(0, -4) + ".pack"))?.isFile !== true) continue;
    try {
      if (packIndexHas(join(pack, e.name), id)) return true;
    } catch { /* unreadable index: not an object we can vouch for */ }
  }
  return false;
}
