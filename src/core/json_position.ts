/**
 * Where a JSON text stops being JSON, as a line and column, found without
 * quoting any of it: for an error message about a file whose content must
 * not be echoed (a config file may be any file the user named, even a
 * secret one). One pass, no recursion, so any nesting depth is fine.
 */

/** A place in a text: 1-based line and column (in UTF-16 code units). */
export interface TextPosition {
  line: number;
  column: number;
}

const WS = new Set([" ", "\t", "\n", "\r"]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);

/** The end of the string starting at `s[i]` (a `"`), or `-(k + 1)` when it breaks at offset `k`. */
function stringEnd(s: string, i: number): number {
  for (let k = i + 1; k < s.length; k++) {
    const c = s[k];
    if (c === '"') return k + 1;
    if (c.charCodeAt(0) < 0x20) return -(k + 1);
    if (c !== "\\") continue;
    const e = s[k + 1];
    if (e === "u") {
      if (!/^[0-9A-Fa-f]{4}$/.test(s.slice(k + 2, k + 6))) return -(k + 2);
      k += 5;
    } else if (ESCAPES.has(e)) k++;
    else return -(k + 2);
  }
  return -(s.length + 1);
}

/** The end of the number or literal starting at `s[i]`, or `-(k + 1)` when it breaks at offset `k`. */
function scalarEnd(s: string, i: number): number {
  for (const word of ["true", "false", "null"]) {
    if (s[i] !== word[0]) continue;
    for (let k = 1; k < word.length; k++) if (s[i + k] !== word[k]) return -(i + k + 1);
    return i + word.length;
  }
  NUMBER.lastIndex = i;
  return NUMBER.test(s) ? NUMBER.lastIndex : -(i + 1);
}

/**
 * The offset of the first character where `s` stops being one JSON value
 * (`s.length` when it ends too early), or -1 when it is valid JSON.
 */
export function jsonErrorOffset(s: string): number {
  const closers: string[] = [];
  let i = 0;
  let expect: "value" | "key" | "after" = "value";
  for (;;) {
    while (i < s.length && WS.has(s[i])) i++;
    if (expect === "after") {
      if (!closers.length) return i < s.length ? i : -1;
      const close = closers[closers.length - 1];
      if (s[i] === ",") {
        i++;
        expect = close === "}" ? "key" : "value";
      } else if (s[i] === close) {
        i++;
        closers.pop();
      } else return i;
      continue;
    }
    if (i >= s.length) return i;
    if (expect === "key") {
      if (s[i] !== '"') return i;
      const end = stringEnd(s, i);
      if (end < 0) return -end - 1;
      i = end;
      while (i < s.length && WS.has(s[i])) i++;
      if (s[i] !== ":") return i;
      i++;
      expect = "value";
      continue;
    }
    const c = s[i];
    if (c === "{" || c === "[") {
      closers.push(c === "{" ? "}" : "]");
      i++;
      while (i < s.length && WS.has(s[i])) i++;
      if (s[i] === closers[closers.length - 1]) {
        i++;
        closers.pop();
        expect = "after";
      } else expect = c === "{" ? "key" : "value";
      continue;
    }
    const end = c === '"' ? stringEnd(s, i) : scalarEnd(s, i);
    if (end < 0) return -end - 1;
    i = end;
    expect = "after";
  }
}

/** The line and column of `offset` in `s`. */
export function positionOf(s: string, offset: number): TextPosition {
  let line = 1;
  let start = 0;
  for (let k = s.indexOf("\n"); k >= 0 && k < offset; k = s.indexOf("\n", k + 1)) {
    line++;
    start = k + 1;
  }
  return { line, column: offset - start + 1 };
}
