/**
 * Text made safe to show on a terminal: names, paths, messages and code come
 * from repositories and requests, and a control character in them (ESC and
 * the rest of C0, DEL, the C1 range, bidirectional overrides) would reach the
 * terminal and steer it. Every human-readable output goes through
 * `printable`; machine output (`--json`, the protocol) does not, since JSON
 * has its own escaping.
 */

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every control character written as a visible escape (`\x1b`,
 * `\u202e`). With `keepLines`, newlines and tabs stay (a block of lines, a
 * log message); without it (one line, a table cell), they are escaped too.
 *
 * @example printable("a\x1b[31mb") // "a\\x1b[31mb"
 */
export function printable(text: string, keepLines = false): string {
  return text.replace(CONTROL, (c) => {
    if (keepLines && (c === "\n" || c === "\t")) return c;
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
