/**
 * open_file: a line window of one text file of a repository, read from disk
 * through the safe open (`io/safe_open.ts`): the request path must be
 * relative and free of `..`; no directory on the way may be a symlink; a
 * symlink as the last component is followed only when it resolves inside the
 * canonical repository root; a swap while the file is opened is refused.
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
import { realpathSync } from "node:fs";
import { CruxeError } from "../core/errors.ts";
import { relativePathProblem } from "../core/path_policy.ts";
import { readRepoFile } from "../io/safe_open.ts";
import { checkResolvedRoot } from "../io/workspace_dir.ts";
import { languageIdForPath } from "../core/languages.ts";
import { cutUtf8 } from "./_cut_utf8.ts";

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
  checkResolvedRoot(registeredRoot, real);
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

/**
 * Reads a line window of `input.path` inside `repoRoot`. Errors: `forbidden`
 * (absolute, `..`, NUL, symlink escape, symlinked directory on the way, not
 * readable by this process — a 0000 file and a 0000 directory alike),
 * `file_not_found` (missing, not a regular file, trailing `/`, changed while
 * being opened), `unsupported_media` (NUL byte or invalid UTF-8, or larger
 * than 16 MiB), `invalid_input` (bad window, see the module comment).
 * Requires `--allow-read` on `repoRoot`.
 *
 * @example openFile("/home/dev/app", { path: "src/main.ts", startLine: 10, endLine: 40 })
 */
export function openFile(repoRoot: string, input: OpenFileInput): OpenFileResult {
  const window = windowArgs(input);
  if (typeof input.path !== "string") throw new CruxeError("invalid_input", "path must be a string");
  const problem = relativePathProblem(input.path);
  if (problem) throw new CruxeError("forbidden", `Refused path: ${problem}`, { path: input.path });
  const root = canonicalRoot(repoRoot);
  const rel = input.path.replace(/\\/g, "/");
  const { bytes } = readRepoFile(root, rel, { maxBytes: MAX_FILE_BYTES, followFinalSymlink: true });
  return fileWindow(rel, bytes, window);
}

/** The checked window of an open_file request. */
export interface WindowArgs {
  startArg?: number;
  endArg?: number;
  maxBytes: number;
}

/** Checks the window of `input` (see the module comment); `invalid_input` for a bad one. */
export function windowArgs(input: OpenFileInput): WindowArgs {
  const startArg = intOrUndefined(input.startLine, "startLine");
  const endArg = intOrUndefined(input.endLine, "endLine");
  const maxArg = intOrUndefined(input.maxBytes, "maxBytes");
  if (startArg !== undefined && startArg < 1) throw new CruxeError("invalid_input", "startLine must be >= 1");
  if (endArg !== undefined && endArg < 1) throw new CruxeError("invalid_input", "endLine must be >= 1");
  if (startArg !== undefined && endArg !== undefined && startArg > endArg) {
    throw new CruxeError("invalid_input", `startLine (${startArg}) is after endLine (${endArg})`);
  }
  if (maxArg !== undefined && maxArg < 1) throw new CruxeError("invalid_input", "maxBytes must be >= 1");
  return { startArg, endArg, maxBytes: Math.min(maxArg ?? DEFAULT_MAX_BYTES, MAX_MAX_BYTES) };
}

/**
 * The window `args` of the file `rel` whose bytes are `bytes` (read from disk
 * or from a store): `unsupported_media` for binary or invalid UTF-8,
 * `invalid_input` for a start past its end.
 */
export function fileWindow(rel: string, bytes: Uint8Array, args: WindowArgs): OpenFileResult {
  const { startArg, endArg, maxBytes } = args;
  if (bytes.includes(0)) {
    throw new CruxeError("unsupported_media", `${rel} looks binary (NUL byte); open_file serves text only`, {
      path: rel,
    });
  }
  let text: string;
  try {
    text = fatalUtf8.decode(bytes);
  } catch {
    throw new CruxeError("unsupported_media", `${rel} is not valid UTF-8 text`, { path: rel });
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
        content = cutUtf8(line, maxBytes).text;
        end = i;
      } else end = i - 1;
      break;
    }
    content += line;
    used += n;
  }
  if (totalLines === 0) end = 0;
  const wanted = endArg === undefined ? totalLines : Math.min(endArg, totalLines);
  const lang = languageIdForPath(rel);
  return {
    path: rel.replace(/^(\.\/)+/, ""),
    startLine: totalLines === 0 ? 0 : start,
    endLine: end,
    totalLines,
    truncated: cutByBytes || end < wanted,
    content,
    ...(lang ? { language: lang } : {}),
  };
}
