/**
 * Gitignore globs matched in linear time: a pattern is compiled to a small
 * automaton (runs of `*` collapsed, `**` and `**\/` as single nodes) and a
 * path is read once, left to right, keeping the set of live nodes. The cost
 * is at most (nodes × path length), whatever the pattern: nothing backtracks,
 * so `a*a*a*…b` against a long run of `a`s is as quick as `*.log`. Brackets
 * follow git's wildmatch: `[!…]`/`[^…]`, ranges, `[:alpha:]`-style classes;
 * a reversed range adds only its first character, and an unclosed bracket or
 * an unknown class makes the pattern match nothing (git does the same).
 * Pure.
 */

/** Longest path a pattern is matched against in full; a pattern needing more characters never matches. */
const MAX_PATTERN_CHARS = 4096;

/** Longest pattern compiled at all (runs of `*` and `**\/` included). */
const MAX_GLOB_LENGTH = 64 * 1024;

type CharTest = (c: string) => boolean;

/** One node of the automaton. */
interface GlobNode {
  /** Where a character leads from here (node indices; none: the path cannot go on from this node). */
  step: (c: string) => number | null;
  /** The node reached without reading a character, or -1. */
  skip: number;
}

/**
 * The same automaton as bit masks (bit k is node k), for globs of at most
 * `MAX_BIT_NODES` nodes (nearly all): a step is a few word operations.
 */
interface GlobBits {
  /** Per node: what a character node accepts (null for the others). */
  tests: (CharTest | null)[];
  /** Per character seen so far: the character nodes that accept it. */
  byChar: Map<string, number>;
  /** `*` nodes (stay on anything but `/`), `**` nodes (stay on anything). */
  star: number;
  any: number;
  /** `**\/`: its first node (at a component's start) and its second (inside a component). */
  dirsStart: number;
  dirsInner: number;
  /** Nodes skippable to the next one (`*`, `**`), and to the one after (`**\/`). */
  skip1: number;
  skip2: number;
  accept: number;
}

/** Most nodes the bit-mask form takes (bit 31 stays clear of the sign). */
const MAX_BIT_NODES = 30;

/** Distinct characters whose masks a glob keeps. */
const MAX_CACHED_CHARS = 512;

/**
 * Literal text any match must hold, checked before the automaton runs: most
 * paths fail an ignore rule here (`*.o` against `fs/ext4/inode.c`), and a
 * scan matches every path against every rule.
 */
interface GlobNeeds {
  /** The literal run the pattern starts with (after a leading `**\/`, if any), or "". */
  lead: string;
  /** True: `lead` may start at any component (unanchored or after `**\/`); false: at the path's start. */
  leadAtComponent: boolean;
  /** The literal run the pattern ends with, or "". */
  tail: string;
  /** `tail` + "/" and "/" + `lead`: what a leading part's match leaves inside the path. */
  tailDir: string;
  slashLead: string;
}

/** A compiled glob: match it with `globMatch`. */
export interface Glob {
  nodes: GlobNode[];
  bits?: GlobBits;
  needs?: GlobNeeds;
  /** False when the pattern can never match (an unclosed bracket, an unknown class, too long). */
  viable: boolean;
  /** What was wrong with the pattern, for a warning; empty when nothing was. */
  problems: string[];
}

/** What `globMatch` says about a path. */
export interface GlobVerdict {
  /** The whole path matches. */
  self: boolean;
  /** A leading part of the path ending just before a `/` matches (the path is below a match). */
  under: boolean;
}

/** git's `[:name:]` classes, on one character. */
const NAMED_CLASSES: Record<string, CharTest> = {
  alnum: (c) => /[A-Za-z0-9]/.test(c),
  alpha: (c) => /[A-Za-z]/.test(c),
  blank: (c) => c === " " || c === "\t",
  cntrl: (c) => c < " " || c === "\x7f",
  digit: (c) => c >= "0" && c <= "9",
  graph: (c) => c > " " && c < "\x7f",
  lower: (c) => c >= "a" && c <= "z",
  print: (c) => c >= " " && c < "\x7f",
  punct: (c) => /[!-\/:-@\[-`{-~]/.test(c),
  space: (c) => /[ \t\n\r\f\v]/.test(c),
  upper: (c) => c >= "A" && c <= "Z",
  xdigit: (c) => /[0-9A-Fa-f]/.test(c),
};

/**
 * Reads the bracket expression starting at `glob[open]` (`[`) the way git's
 * wildmatch does. Returns the test and the index of the closing `]`, or no
 * test and a problem (then the whole pattern matches nothing).
 */
function parseBracket(glob: string, open: number): { test: CharTest | null; end: number; problem?: string } {
  let i = open + 1;
  let negate = false;
  if (glob[i] === "!" || glob[i] === "^") {
    negate = true;
    i++;
  }
  const singles = new Set<string>();
  const ranges: [string, string][] = [];
  const named: CharTest[] = [];
  let problem: string | undefined;
  let prev = "";
  for (let first = true;; first = false) {
    if (i >= glob.length) {
      return { test: null, end: -1, problem: `unclosed "[" at column ${open + 1}: the rule matches nothing` };
    }
    let c = glob[i];
    if (c === "]" && !first) break;
    if (c === "\\" && i + 1 < glob.length) {
      c = glob[++i];
      singles.add(c);
    } else if (c === "-" && prev && i + 1 < glob.length && glob[i + 1] !== "]") {
      const hi = glob[++i] === "\\" && i + 1 < glob.length ? glob[++i] : glob[i];
      if (hi < prev) problem ??= `range "${prev}-${hi}" is reversed: it adds only "${prev}"`;
      else ranges.push([prev, hi]);
      c = "";
    } else if (c === "[" && glob[i + 1] === ":") {
      const close = glob.indexOf(":]", i + 2);
      if (close < 0) singles.add(c);
      else {
        const name = glob.slice(i + 2, close);
        const test = NAMED_CLASSES[name];
        if (!test) return { test: null, end: -1, problem: `unknown class "[:${name}:]": the rule matches nothing` };
        named.push(test);
        i = close + 1;
        c = "";
      }
    } else singles.add(c);
    prev = c;
    i++;
  }
  const test: CharTest = (ch) => {
    if (ch === "/") return false;
    const hit = singles.has(ch) || ranges.some(([lo, hi]) => ch >= lo && ch <= hi) || named.some((t) => t(ch));
    return hit !== negate;
  };
  return { test, end: i, problem };
}

/** Token kinds before they become nodes. */
type Token =
  | { kind: "char"; test: CharTest; lit?: string }
  | { kind: "star" } // `*`: any run without `/`
  | { kind: "any" } // `**`: any run
  | { kind: "dirs" }; // `**/`: nothing, or any run ending in `/`

function tokenize(glob: string, problems: string[]): Token[] | null {
  const out: Token[] = [];
  const push = (t: Token) => {
    const last = out[out.length - 1];
    if (t.kind === "char" || !last || last.kind === "char") out.push(t);
    // Runs collapse: `**` absorbs a neighbouring `*` or `**/`, and `**/**/` is `**/`.
    else if (last.kind === "any" || t.kind === "any") out[out.length - 1] = { kind: "any" };
    else if (last.kind !== t.kind) out.push(t);
  };
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      if (glob[i + 1] === "*") {
        i++;
        while (glob[i + 1] === "*") i++;
        if (glob[i + 1] === "/") {
          i++;
          push({ kind: "dirs" });
        } else push({ kind: "any" });
      } else push({ kind: "star" });
    } else if (c === "?") push({ kind: "char", test: (ch) => ch !== "/" });
    else if (c === "[") {
      const b = parseBracket(glob, i);
      if (b.problem) problems.push(b.problem);
      if (!b.test) return null;
      push({ kind: "char", test: b.test });
      i = b.end;
    } else {
      const lit = c === "\\" && i + 1 < glob.length ? glob[++i] : c;
      push({ kind: "char", test: (ch) => ch === lit, lit });
    }
  }
  return out;
}

/**
 * Compiles a gitignore glob (already stripped of `!`, a leading `/` and a
 * trailing `/`). `anchored`: it must match from the start of the path;
 * otherwise it may match from the start of any path component.
 */
export function compileGlob(glob: string, anchored: boolean): Glob {
  const problems: string[] = [];
  if (glob.length > MAX_GLOB_LENGTH) {
    return {
      nodes: [],
      viable: false,
      problems: [`longer than ${MAX_GLOB_LENGTH} characters: the rule matches nothing`],
    };
  }
  const tokens = tokenize(glob, problems);
  if (!tokens) return { nodes: [], viable: false, problems };
  if (tokens.filter((t) => t.kind === "char").length > MAX_PATTERN_CHARS) {
    problems.push(`longer than ${MAX_PATTERN_CHARS} characters: the rule matches nothing`);
    return { nodes: [], viable: false, problems };
  }
  if (!anchored && tokens[0]?.kind !== "dirs" && tokens[0]?.kind !== "any") tokens.unshift({ kind: "dirs" });
  const nodes: GlobNode[] = [];
  for (const t of tokens) {
    const k = nodes.length;
    if (t.kind === "char") nodes.push({ step: (c) => t.test(c) ? k + 1 : null, skip: -1 });
    else if (t.kind === "star") nodes.push({ step: (c) => c === "/" ? null : k, skip: k + 1 });
    else if (t.kind === "any") nodes.push({ step: () => k, skip: k + 1 });
    else {
      // `**/` is two nodes: at a component's start (may be skipped), and inside a component (may not).
      nodes.push({ step: (c) => c === "/" ? k : k + 1, skip: k + 2 });
      nodes.push({ step: (c) => c === "/" ? k : k + 1, skip: -1 });
    }
  }
  return {
    nodes,
    bits: nodes.length <= MAX_BIT_NODES ? toBits(tokens) : undefined,
    needs: needsOf(tokens),
    viable: true,
    problems,
  };
}

/** The literal runs at the start and end of a tokenized glob (see `GlobNeeds`); undefined when there are none. */
function needsOf(tokens: Token[]): GlobNeeds | undefined {
  const literal = (t: Token | undefined) => t?.kind === "char" && t.lit !== undefined ? t.lit : undefined;
  const leadAtComponent = tokens[0]?.kind === "dirs";
  let lead = "";
  for (let i = leadAtComponent ? 1 : 0, c = literal(tokens[i]); c !== undefined; c = literal(tokens[++i])) lead += c;
  let tail = "";
  for (let i = tokens.length - 1, c = literal(tokens[i]); c !== undefined; c = literal(tokens[--i])) tail = c + tail;
  return lead || tail ? { lead, leadAtComponent, tail, tailDir: tail + "/", slashLead: "/" + lead } : undefined;
}

/**
 * False when `path` cannot match nor lie below a match: a match is a leading
 * part of the path (all of it, or up to a `/`), which starts with the lead
 * (at a component's start, or at the path's) and ends with the tail.
 */
function mayMatch(n: GlobNeeds, path: string): boolean {
  if (n.tail && !path.endsWith(n.tail) && !path.includes(n.tailDir)) return false;
  if (!n.lead || path.startsWith(n.lead)) return true;
  return n.leadAtComponent && path.includes(n.slashLead);
}

function toBits(tokens: Token[]): GlobBits {
  const b: GlobBits = {
    tests: [],
    byChar: new Map(),
    star: 0,
    any: 0,
    dirsStart: 0,
    dirsInner: 0,
    skip1: 0,
    skip2: 0,
    accept: 0,
  };
  for (const t of tokens) {
    const bit = 1 << b.tests.length;
    b.tests.push(t.kind === "char" ? t.test : null);
    if (t.kind === "star") b.star |= bit;
    if (t.kind === "any") b.any |= bit;
    if (t.kind === "star" || t.kind === "any") b.skip1 |= bit;
    if (t.kind === "dirs") {
      b.dirsStart |= bit;
      b.skip2 |= bit;
      b.dirsInner |= bit << 1;
      b.tests.push(null);
    }
  }
  b.accept = 1 << b.tests.length;
  return b;
}

/** The nodes reachable from `live` without reading a character. */
function closure(b: GlobBits, live: number): number {
  for (;;) {
    const more = live | ((live & b.skip1) << 1) | ((live & b.skip2) << 2);
    if (more === live) return live;
    live = more;
  }
}

/** `globMatch` on the bit-mask form. */
function bitMatch(b: GlobBits, path: string): GlobVerdict {
  const verdict: GlobVerdict = { self: false, under: false };
  let live = closure(b, 1);
  for (let i = 0; i < path.length && live; i++) {
    const c = path[i];
    let accepts = b.byChar.get(c);
    if (accepts === undefined) {
      accepts = 0;
      for (let k = 0; k < b.tests.length; k++) if (b.tests[k]?.(c)) accepts |= 1 << k;
      if (b.byChar.size < MAX_CACHED_CHARS) b.byChar.set(c, accepts);
    }
    let next = ((live & accepts) << 1) | (live & b.any);
    if (c === "/") {
      if (i > 0 && live & b.accept) verdict.under = true;
      next |= (live & b.dirsStart) | ((live & b.dirsInner) >>> 1);
    } else next |= (live & b.star) | ((live & b.dirsStart) << 1) | (live & b.dirsInner);
    live = closure(b, next);
  }
  verdict.self = (live & b.accept) !== 0;
  return verdict;
}

/**
 * Whether `path` (`/`-separated) matches the glob, and whether it lies below
 * a match. Reads the path once; each character costs at most one visit of
 * each node.
 */
export function globMatch(glob: Glob, path: string): GlobVerdict {
  const verdict: GlobVerdict = { self: false, under: false };
  if (!glob.viable) return verdict;
  if (glob.needs && !mayMatch(glob.needs, path)) return verdict;
  if (glob.bits) return bitMatch(glob.bits, path);
  const { nodes } = glob;
  const accept = nodes.length;
  const seen = new Uint32Array(accept + 1);
  let gen = 1;
  let live: number[] = [];
  const add = (set: number[], n: number) => {
    for (; n >= 0 && seen[n] !== gen; n = n === accept ? -1 : nodes[n].skip) {
      seen[n] = gen;
      set.push(n);
    }
  };
  add(live, 0);
  for (let i = 0; i < path.length && live.length; i++) {
    const c = path[i];
    if (c === "/" && i > 0 && seen[accept] === gen) verdict.under = true;
    const next: number[] = [];
    gen++;
    for (const n of live) {
      if (n === accept) continue;
      const to = nodes[n].step(c);
      if (to !== null) add(next, to);
    }
    live = next;
  }
  verdict.self = live.length > 0 && seen[accept] === gen;
  return verdict;
}
