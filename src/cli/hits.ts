/**
 * Result lines as `path:line: text` (as grep and ripgrep print them, so
 * editors can jump to them), cut to the terminal's width, coloured on a
 * terminal unless `NO_COLOR` is set. Requires `--allow-env` (`COLUMNS`).
 */
import { printable } from "../core/printable.ts";

/** One result line. */
export interface Hit {
  path: string;
  line: number;
  text: string;
}

/** How lines are drawn: width in columns (Infinity: uncut) and whether to colour. */
export interface HitStyle {
  width: number;
  color: boolean;
}

/** The style for stdout: the terminal's width and colour on a TTY (no colour with `NO_COLOR`); else `COLUMNS` or uncut. */
export function stdoutStyle(): HitStyle {
  const tty = Deno.stdout.isTerminal();
  let width = Number(Deno.env.get("COLUMNS")) || Infinity;
  if (tty) {
    try {
      width = Deno.consoleSize().columns || width;
    } catch { /* not a console after all */ }
  }
  return { width, color: tty && !Deno.noColor };
}

const PATH = "\x1b[35m";
const LINE = "\x1b[32m";
const MATCH = "\x1b[1;31m";
const RESET = "\x1b[0m";

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Words of the query worth highlighting (three letters or more). */
function highlighter(terms: string[]): RegExp | null {
  const words = [...new Set(terms.flatMap((t) => t.split(/[^A-Za-z0-9_]+/)).filter((w) => w.length >= 3))];
  return words.length ? new RegExp(`(${words.map(escapeRe).join("|")})`, "gi") : null;
}

/** One line for `hit` in `style`: never longer than `style.width` visible characters; control characters escaped. */
export function formatHit(hit: Hit, style: HitStyle, terms: string[] = []): string {
  const path = printable(hit.path);
  const head = `${path}:${hit.line}: `;
  let text = printable(hit.text.replace(/\s+/g, " ").trim());
  const room = style.width - head.length;
  if (room < 1) {
    // Not even the location fits: cut it, so the line still does not wrap.
    return head.length > style.width ? head.slice(0, Math.max(1, style.width - 1)) + "…" : head.trimEnd();
  }
  if (text.length > room) text = text.slice(0, Math.max(0, room - 1)) + "…";
  if (!style.color) return head + text;
  const re = highlighter(terms);
  const shown = re ? text.replace(re, `${MATCH}$1${RESET}`) : text;
  return `${PATH}${path}${RESET}:${LINE}${hit.line}${RESET}: ${shown}`;
}

/** Prints hits on stdout, or `No results` when there are none. */
export function printHits(hits: Hit[], terms: string[] = [], style = stdoutStyle()): void {
  if (!hits.length) {
    console.log("No results.");
    return;
  }
  for (const h of hits) console.log(formatHit(h, style, terms));
}
