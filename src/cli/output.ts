/** Human output (tables, messages) and `--json` output for the CLI. stdout only here. */
import { toCruxeError } from "../core/errors.ts";
import { printable } from "../core/printable.ts";
import { stdoutStyle } from "./hits.ts";
import { candidateLines } from "./error_candidates.ts";

/** `n` and `noun`, plural unless `n` is 1 ("1 file", "3 files"). */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/**
 * Prints lines for people on stdout, control characters escaped (`printable`;
 * newlines inside a line stay, for blocks such as code). Every human-readable
 * line of the CLI goes through here, `printTable`, `printHits` or `reportError`.
 */
export function say(...lines: string[]): void {
  for (const line of lines) console.log(printable(line, true));
}

/** Prints a value as JSON on stdout. */
export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/**
 * Prints rows as an aligned table on stdout, control characters in cells escaped. On a terminal the widest columns
 * are cut (with `…`) until the table fits its width; piped, nothing is cut.
 */
export function printTable(headers: string[], rows: (string | number | null | undefined)[][]): void {
  const cells = [headers, ...rows.map((r) => r.map((c) => c === null || c === undefined ? "" : printable(String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const room = stdoutStyle().width - 2 * (widths.length - 1);
  while (widths.reduce((a, b) => a + b, 0) > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest] <= 12) break;
    widths[widest]--;
  }
  const fmt = (r: string[]) =>
    r.map((c, i) => (c.length > widths[i] ? c.slice(0, widths[i] - 1) + "…" : c.padEnd(widths[i]))).join("  ")
      .trimEnd();
  console.log(fmt(cells[0]));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of cells.slice(1)) console.log(fmt(r));
}

/**
 * Reports an error (JSON on stdout with --json, a message on stderr otherwise); returns the exit code as
 * `rg` and `grep` do: 1 when the error only says that nothing matched (no symbol by that name), else 2.
 */
export function reportError(err: unknown, json: boolean): number {
  const e = toCruxeError(err);
  if (json) printJson({ error: e.toJSON() });
  else {
    console.error(`error[${e.code}]: ${printable(e.message, true)}`);
    for (const line of candidateLines(e.data)) console.error(printable(line));
  }
  return exitCodeFor(e.code);
}

/** The exit code of an error: 1 when it only says that nothing matched, else 2. */
export function exitCodeFor(code: string): number {
  return NOTHING_MATCHED.has(code) ? EXIT_NOTHING : EXIT_ERROR;
}

/** Error codes that mean the query ran and found nothing. */
const NOTHING_MATCHED: ReadonlySet<string> = new Set(["symbol_not_found", "result_not_found"]);

/** Exit codes of the CLI, as `rg` and `grep` use them. */
export const EXIT_FOUND = 0, EXIT_NOTHING = 1, EXIT_ERROR = 2;
