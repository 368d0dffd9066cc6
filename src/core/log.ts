/**
 * Logging to stderr only: stdout belongs to the protocol in stdio mode and to
 * `--json` output in the CLI.
 */
import { printable } from "./printable.ts";

let level = 0; // 0 = warnings and errors, 1 = info (-v), 2 = debug (-vv)

/** Sets verbosity: 0 quiet, 1 info, 2 debug. */
export function setLogLevel(n: number): void {
  level = n;
}

/** True at debug verbosity (`-v -v`): commands then add their debug details to what they print. */
export function debugEnabled(): boolean {
  return level >= 2;
}

function write(tag: string, msg: string): void {
  try {
    console.error(`[cruxe ${tag}] ${printable(msg, true)}`);
  } catch {
    // stderr closed: nothing useful left to do with a log line.
  }
}

/** Logs a warning (always shown). */
export function warn(msg: string): void {
  write("warn", msg);
}

/** Logs an informational line (with -v). */
export function info(msg: string): void {
  if (level >= 1) write("info", msg);
}

/** Logs a debug line (with -vv). */
export function debug(msg: string): void {
  if (level >= 2) write("debug", msg);
}
