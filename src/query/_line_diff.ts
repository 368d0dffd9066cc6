/**
 * Line diffs for comparing a symbol's body at two refs: Myers' O(ND)
 * shortest edit script over lines (common prefix and suffix trimmed first),
 * unified hunks with a few lines of context, and a similarity ratio used to
 * recognise a renamed or moved body. Pure: no I/O.
 *
 * Cost is bounded: when the two sides differ by more than `MAX_EDIT_DISTANCE`
 * lines the script gives up on alignment and reports the middle as removed
 * then added (still a correct diff, just not a minimal one).
 */

/** One line of an edit script: kept (`=`), removed from the base (`-`) or added in the head (`+`). */
export interface DiffOp {
  op: "=" | "-" | "+";
  text: string;
}

/** A unified-diff hunk: 1-based start lines and counts on both sides, and its lines prefixed ` `, `-` or `+`. */
export interface DiffHunk {
  base_start: number;
  base_lines: number;
  head_start: number;
  head_lines: number;
  lines: string[];
}

/** Largest edit distance aligned line by line (beyond it the middle is replaced wholesale). */
export const MAX_EDIT_DISTANCE = 1000;

/**
 * The shortest edit script turning `a` into `b`, as a sequence of kept,
 * removed and added lines (removals before additions within a change).
 *
 * @example diffLines(["a", "b"], ["a", "c"]) // = a, - b, + c
 */
export function diffLines(a: readonly string[], b: readonly string[]): DiffOp[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const out: DiffOp[] = [];
  for (let i = 0; i < pre; i++) out.push({ op: "=", text: a[i] });
  const midA = a.slice(pre, a.length - suf);
  const midB = b.slice(pre, b.length - suf);
  out.push(...myers(midA, midB));
  for (let i = a.length - suf; i < a.length; i++) out.push({ op: "=", text: a[i] });
  return out;
}

/** Myers' greedy forward search with the trace kept for backtracking; wholesale replace past the bound. */
function myers(a: readonly string[], b: readonly string[]): DiffOp[] {
  const n = a.length, m = b.length;
  if (n === 0) return b.map((text) => ({ op: "+" as const, text }));
  if (m === 0) return a.map((text) => ({ op: "-" as const, text }));
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])
        ? v[offset + k + 1]
        : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) x++, y++;
      next[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    v = next;
  }
  if (found < 0) {
    return [...a.map((text) => ({ op: "-" as const, text })), ...b.map((text) => ({ op: "+" as const, text }))];
  }
  // Walk back from (n, m) through the saved frontiers.
  const rev: DiffOp[] = [];
  let x = n, y = m;
  for (let d = found; d > 0; d--) {
    const prev = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && prev[offset + k - 1] < prev[offset + k + 1]);
    const pk = down ? k + 1 : k - 1;
    const px = prev[offset + pk];
    const py = px - pk;
    while (x > px + (down ? 0 : 1) && y > py + (down ? 1 : 0)) rev.push({ op: "=", text: a[--x] }), y--;
    if (down) rev.push({ op: "+", text: b[--y] });
    else rev.push({ op: "-", text: a[--x] });
  }
  while (x > 0 && y > 0) rev.push({ op: "=", text: a[--x] }), y--;
  return normalizeChanges(rev.reverse());
}

/** Within each run of changes, removals first, then additions (the usual unified-diff reading order). */
function normalizeChanges(ops: DiffOp[]): DiffOp[] {
  const out: DiffOp[] = [];
  let minus: DiffOp[] = [], plus: DiffOp[] = [];
  const flush = () => {
    out.push(...minus, ...plus);
    minus = [];
    plus = [];
  };
  for (const o of ops) {
    if (o.op === "=") flush(), out.push(o);
    else (o.op === "-" ? minus : plus).push(o);
  }
  flush();
  return out;
}

/** A removed or added line with its file line number (on the base side for `-`, the head side for `+`). */
export interface ChangedLine {
  op: "-" | "+";
  text: string;
  line: number;
}

/**
 * Unified hunks of the script, with `context` kept lines around each change
 * (hunks whose context would touch are merged). Line numbers start at
 * `baseFirst` / `headFirst` (the file lines where the compared texts begin).
 * Only changes `counts` accepts open a hunk (the others still show inside
 * one when they fall in its span): a container passes a test that skips its
 * members' lines, which are reported on their own.
 */
export function unifiedHunks(
  ops: readonly DiffOp[],
  context = 2,
  baseFirst = 1,
  headFirst = 1,
  counts: (line: ChangedLine) => boolean = () => true,
): DiffHunk[] {
  // Line numbers at each op index.
  const baseAt: number[] = [], headAt: number[] = [];
  let bl = baseFirst, hl = headFirst;
  for (const o of ops) {
    baseAt.push(bl);
    headAt.push(hl);
    if (o.op !== "+") bl++;
    if (o.op !== "-") hl++;
  }
  const changed: number[] = [];
  ops.forEach((o, i) => {
    if (o.op === "=") return;
    if (counts({ op: o.op, text: o.text, line: o.op === "-" ? baseAt[i] : headAt[i] })) changed.push(i);
  });
  if (!changed.length) return [];
  // Ranges of op indexes to show, merged when they overlap or touch.
  const ranges: [number, number][] = [];
  for (const i of changed) {
    let from = Math.max(0, i - context), to = Math.min(ops.length - 1, i + context);
    // A run of changes is never split by a hunk's edge (no removal shown without its replacement).
    while (from > 0 && ops[from].op !== "=" && ops[from - 1].op !== "=") from--;
    while (to < ops.length - 1 && ops[to].op !== "=" && ops[to + 1].op !== "=") to++;
    const last = ranges[ranges.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else ranges.push([from, to]);
  }
  return ranges.map(([from, to]) => {
    const part = ops.slice(from, to + 1);
    const baseLines = part.filter((o) => o.op !== "+").length;
    const headLines = part.filter((o) => o.op !== "-").length;
    return {
      base_start: baseLines ? baseAt[from] : baseAt[from] - 1,
      base_lines: baseLines,
      head_start: headLines ? headAt[from] : headAt[from] - 1,
      head_lines: headLines,
      lines: part.map((o) => (o.op === "=" ? " " : o.op) + o.text),
    };
  });
}

/**
 * How alike two texts are by line, 0..1: twice the kept lines over the
 * lines of both (1 for identical texts, including two empty ones).
 */
export function lineSimilarity(a: readonly string[], b: readonly string[]): number {
  if (!a.length && !b.length) return 1;
  const kept = diffLines(a, b).filter((o) => o.op === "=").length;
  return (2 * kept) / (a.length + b.length);
}

/** A hunk as unified-diff text: its `@@ -a,b +c,d @@` header, then its lines. */
export function hunkText(h: DiffHunk): string {
  return [`@@ -${h.base_start},${h.base_lines} +${h.head_start},${h.head_lines} @@`, ...h.lines].join("\n");
}
