/**
 * Reading the config file (`--config PATH`, or `<home>/config.json`) the way
 * a repository file is read: it must be a regular file (a FIFO, a device like
 * `/dev/zero` or a directory is refused, never opened to block or read
 * forever), at most MAX_CONFIG_BYTES, opened non-blocking. A parse error
 * names the line and column only: the file may be any file the user named,
 * and its content is never echoed. Every refusal is `invalid_input` naming
 * the file. Requires `--allow-read` on the file.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { CruxeError } from "../core/errors.ts";
import { jsonErrorOffset, positionOf } from "../core/json_position.ts";

/** Largest config file read. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** Read-only and non-blocking: a FIFO swapped in after the check still cannot hang the open. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

function refused(path: string, why: string): CruxeError {
  return new CruxeError("invalid_input", `Config file ${path} ${why}`, { path });
}

function tooLarge(path: string, size: number): CruxeError {
  return refused(path, `is ${size} bytes; config files up to ${MAX_CONFIG_BYTES} bytes are read`);
}

/** The bytes of the regular file at `path` (at most MAX_CONFIG_BYTES), or null when nothing is there. */
function readRegularFile(path: string): Uint8Array | null {
  let st: Deno.FileInfo;
  try {
    st = Deno.statSync(path);
  } catch (e) {
    // Nothing there: no file, or a path below something that is not a directory (a home that is a file).
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return null;
    throw refused(path, "cannot be read");
  }
  if (!st.isFile) throw refused(path, "is not a regular file");
  if (st.size > MAX_CONFIG_BYTES) throw tooLarge(path, st.size);
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch {
    throw refused(path, "cannot be read");
  }
  try {
    if (!fstatSync(fd).isFile()) throw refused(path, "is not a regular file");
    const buf = new Uint8Array(MAX_CONFIG_BYTES + 1);
    let off = 0;
    for (let n; off < buf.length && (n = readSync(fd, buf, off, buf.length - off, off)) > 0;) off += n;
    if (off > MAX_CONFIG_BYTES) throw tooLarge(path, off);
    return buf.subarray(0, off);
  } catch (e) {
    throw e instanceof CruxeError ? e : refused(path, "cannot be read");
  } finally {
    closeSync(fd);
  }
}

/**
 * The parsed config file at `path`: an object, or null when there is no file
 * there. Throws `invalid_input` naming `path` for anything else: not a
 * regular file, too large, unreadable, not JSON (with the line and column
 * only), or JSON that is not an object.
 */
export function readConfigObject(path: string): Record<string, unknown> | null {
  const bytes = readRegularFile(path);
  if (!bytes) return null;
  const text = new TextDecoder().decode(bytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const offset = jsonErrorOffset(text);
    const { line, column } = positionOf(text, offset < 0 ? 0 : offset);
    throw refused(path, `is not valid JSON (at line ${line}, column ${column})`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw refused(path, "must hold a JSON object");
  }
  return parsed as Record<string, unknown>;
}
