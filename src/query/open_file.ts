/**
 * open_file: a line window of one text file of a repository, read from disk.
 * The file must resolve (realpath, symlinks followed) inside the canonical
 * repository root; the request path must be relative and free of `..`.
 * Requires `--allow-read` on the repository root.
 *
 * Window rules (clamping vs. errors):
 * - `startLine` defaults to 1; `endLine` defaults to `startLine + MAX_WINDOW_LINES - 1`.
 * - Not an integer, `startLine < 1`, `endLine < 1`, `startLine > endLine`,
 *   or `startLine` past the last line (of a non-empty file) → `invalid_input`
 *   (its `data` carries `totalLines` so the caller can retry).
 * - `endLine` past the end of the file is clamped to the last line (not truncation).
 * - A window wider than `MAX_WINDOW_LINES` is cut to that many lines, and
 *   content over `maxBytes` is cut at a line boundary (or, for one huge line,
 *   at a character boundary): both set `truncated: true` and `endLine` says
 *   where the content stops.
 * - `truncated` is also true when `endLine` was omitted and the file goes on
 *   past the window: the caller should page on from `endLine + 1`.
 */
import { join } from "node:path";
import { realpathSync } from "node:fs";
import { CruxeError } from "../core/errors.ts";
import { isWithinRoot, relativePathProblem } from "../core/path_policy.ts";
import { languageForPath } from "../index/languages/registry.ts";

/** Most lines one call returns. */
export const MAX_WINDOW_LINES = 200;
/** Default byte cap of `content`. */
export const DEFAULT_MAX_BYTES = 64 * 1024;
/** Largest `maxBytes` a caller may ask for. */
export const MAX_MAX_BYTES = 256 * 1024;
/** Files larger than this are refused rather than read whole. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** Inputs of open_file. */
export interface OpenFileInput {
  path: string;
  startLine?: number;
  endLine?: number;
  maxBytes?: number;
}

/** The window open_file returns. */
export interface OpenFileResult {
  path: string;
  startLine: number;
  endLine: number;
  totalLines: number;
  truncated: boolean;
  content: string;
  language?: string;
}

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The canonical root of a repository, or `project_not_found`. */
export function canonicalRoot(repoRoot: string): string {
  try {
    const real = realpathSync(repoRoot);
    if (Deno.statSync(real).isDirectory) return real;
  } catch { /* reported below */ }
  throw new CruxeError("project_not_found", `Repository root ${repoRoot} is not a readable directory`, {
    repo_root: repoRoot,
  });
}

/**
 * Refuses (`forbidden`) a registered repository root that no longer is its
 * own realpath: registration stored the canonical path, so a root that has
 * since become (or moved behind) a symlink could point anywhere.
 * Requires `--allow-read` on the root.
 */
export function checkRegisteredRoot(registeredRoot: string): string {
  const real = canonicalRoot(registeredRoot);
  if (real !== registeredRoot.replace(/\/+$/, "")) {
    throw new CruxeError(
      "forbidden",
      `The repository root ${registeredRoot} now resolves to ${real}; re-register it (cruxe init) to serve it again`,
      { repo_root: registeredRoot, resolved: real },
    );
  }
  return real;
}

/**
 * Resolves a request path to a canonical file path inside `root` (already
 * canonical), or throws `forbidden` / `file_not_found`. Never reads content.
 */
export function resolveInsideRoot(root: string, path: string): string {
  if (typeof path !== "string") throw new CruxeError("invalid_input", "path must be a string");
  const problem = relativePathProblem(path);
  if (problem) throw new CruxeError("forbidden", `Refused path: ${problem}`, { path });
  const joined = join(root, path.replace(/\\/g, "/"));
  // Lexical check first: join() folds `.` segments, and nothing may leave the root even before realpath.
  if (!isWithinRoot(root, joined)) throw new CruxeError("forbidden", "Refused path: outside the repository", { path });
  let real: string;
  try {
    real = realpathSync(joined);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable || (e as { code?: string }).code === "EACCES") {
      throw new CruxeError("forbidden", "Refused path: not readable by this server", { path });
    }
    throw new CruxeError("file_not_found", `No file ${path} in this repository`, { path });
  }
  if (!isWithinRoot(root, real)) {
    throw new CruxeError("forbidden", "Refused path: it resolves outside the repository (symlink escape)", { path });
  }
  return real;
}

function intOrUndefined(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v)) {
    throw new CruxeError("invalid_input", `${name} must be an integer`, { [name]: v });
  }
  return v;
}

/** Splits text into lines; a final newline does not start another line. */
function splitLines(text: string): string[] {
  if (!text) return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The longest prefix of `s` whose UTF-8 encoding fits in `bytes`, cut at a character boundary. */
function utf8Prefix(s: string, bytes: number): string {
  const enc = new TextEncoder();
  let used = 0;
  let out = "";
  for (const ch of s) {
    const n = enc.encode(ch).length;
    if (used + n > bytes) break;
    used += n;
    out += ch;
  }
  return out;
}

/**
 * Reads a line window of `input.path` inside `repoRoot`. Errors: `forbidden`
 * (absolute, `..`, NUL, symlink escape), `file_not_found` (missing, not a
 * regular file), `unsupported_media` (NUL byte or invalid UTF-8, or larger
 * than 16 MiB), `invalid_input` (bad window, see the module comment).
 * Requires `--allow-read` on `repoRoot`.
 *
 * @example openFile("/home/dev/app", { path: "src/main.ts", startLine: 10, endLine: 40 })
 */
export function openFile(repoRoot: string, input: OpenFileInput): OpenFileResult {
  const startArg = intOrUndefined(input.startLine, "startLine");
  const endArg = intOrUndefined(input.endLine, "endLine");
  const maxArg = intOrUndefined(input.maxBytes, "maxBytes");
  if (startArg !== undefined && startArg < 1) throw new CruxeError("invalid_input", "startLine must be >= 1");
  if (endArg !== undefined && endArg < 1) throw new CruxeError("invalid_input", "endLine must be >= 1");
  if (startArg !== undefined && endArg !== undefined && startArg > endArg) {
    throw new CruxeError("invalid_input", `startLine (${startArg}) is after endLine (${endArg})`);
  }
  if (maxArg !== undefined && maxArg < 1) throw new CruxeError("invalid_input", "maxBytes must be >= 1");
  const maxBytes = Math.min(maxArg ?? DEFAULT_MAX_BYTES, MAX_MAX_BYTES);

  const root = canonicalRoot(repoRoot);
  const real = resolveInsideRoot(root, input.path);
  const bytes = readRegularFile(real, input.path);
  if (bytes.includes(0)) {
    throw new CruxeError("unsupported_media", `${input.path} looks binary (NUL byte); open_file serves text only`, {
      path: input.path,
    });
  }
  let text: string;
  try {
    text = fatalUtf8.decode(bytes);
  } catch {
    throw new CruxeError("unsupported_media", `${input.path} is not valid UTF-8 text`, { path: input.path });
  }

  const lines = splitLines(text);
  const totalLines = lines.length;
  const start = startArg ?? 1;
  if (start > Math.max(totalLines, 1)) {
    throw new CruxeError("invalid_input", `startLine ${start} is past the end of the file (${totalLines} lines)`, {
      totalLines,
    });
  }
  const requestedEnd = endArg ?? start + MAX_WINDOW_LINES - 1;
  let end = Math.min(requestedEnd, totalLines, start + MAX_WINDOW_LINES - 1);
  let content = "";
  let used = 0;
  let cutByBytes = false;
  const enc = new TextEncoder();
  for (let i = start; i <= end; i++) {
    const line = lines[i - 1] + (i < totalLines || text.endsWith("\n") ? "\n" : "");
    const n = enc.encode(line).length;
    if (used + n > maxBytes) {
      cutByBytes = true;
      if (i === start) {
        content = utf8Prefix(line, maxBytes);
        end = i;
      } else end = i - 1;
      break;
    }
    content += line;
    used += n;
  }
  if (totalLines === 0) end = 0;
  const wanted = endArg === undefined ? totalLines : Math.min(endArg, totalLines);
  const lang = languageForPath(input.path.replace(/\\/g, "/"))?.id;
  return {
    path: input.path.replace(/\\/g, "/").replace(/^(\.\/)+/, ""),
    startLine: totalLines === 0 ? 0 : start,
    endLine: end,
    totalLines,
    truncated: cutByBytes || end < wanted,
    content,
    ...(lang ? { language: lang } : {}),
  };
}

/**
 * Bytes of a regular file. The type is checked before opening (opening a FIFO
 * would block) and again on the open handle, so a file swapped between the
 * two checks is refused rather than read.
 */
function readRegularFile(real: string, shown: string): Uint8Array {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(real);
  } catch {
    throw new CruxeError("file_not_found", `No file ${shown} in this repository`, { path: shown });
  }
  if (!info.isFile) throw new CruxeError("file_not_found", `${shown} is not a regular file`, { path: shown });
  if (info.size > MAX_FILE_BYTES) {
    throw new CruxeError("unsupported_media", `${shown} is ${info.size} bytes; open_file reads files up to 16 MiB`, {
      path: shown,
      size: info.size,
    });
  }
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(real, { read: true });
  } catch {
    throw new CruxeError("file_not_found", `${shown} cannot be opened`, { path: shown });
  }
  try {
    const again = file.statSync();
    if (!again.isFile || (info.ino !== null && again.ino !== info.ino) || again.size > MAX_FILE_BYTES) {
      throw new CruxeError("file_not_found", `${shown} changed while it was being opened`, { path: shown });
    }
    const buf = new Uint8Array(again.size);
    let off = 0;
    while (off < buf.length) {
      const n = file.readSync(buf.subarray(off));
      if (n === null || n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  } finally {
    file.close();
  }
}
