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

/** Warnings kept in memory for the status page. */
export const MAX_RECENT_WARNINGS = 50;
const recent: { at: string; message: string }[] = [];

/** Logs a warning (always shown) and keeps it among the recent ones. */
export function warn(msg: string): void {
  write("warn", msg);
  recent.push({ at: new Date().toISOString(), message: msg });
  if (recent.length > MAX_RECENT_WARNINGS) recent.shift();
}

/** The last MAX_RECENT_WARNINGS warnings this process logged, newest first. */
export function recentWarnings(): { at: string; message: string }[] {
  return [...recent].reverse();
}

/** Logs an informational line (with -v). */
export function info(msg: string): void {
  if (level >= 1) write("info", msg);
}

/** Logs a debug line (with -vv). */
export function debug(msg: string): void {
  if (level >= 2) write("debug", msg);
}
