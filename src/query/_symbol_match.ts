/**
 * Pairing the symbols of two refs and saying what happened to each pair.
 * Pure: the caller loads the symbols (with their body lines) of the files
 * that changed; this module decides.
 *
 * Pairing runs in three passes over what is still unpaired, each keeping
 * line order within a group:
 * 1. same place: the same file (or the file it moved to), qualified name and kind;
 * 2. moved: the same qualified name and kind in another file, when the bodies
 *    are at least half alike (so two unrelated `main`s do not pair);
 * 3. renamed: the same kind and the same body once each side's own name is
 *    blanked out, or a near-identical body (line similarity at least
 *    `RENAME_SIMILARITY`); bodies too short to tell apart need an exact match.
 * Before and after pass 3, members of paired containers pair by name and
 * kind (a renamed class keeps its methods).
 *
 * A pair's status: `renamed` when the name differs, `moved` when the file or
 * the container (qualified name) differs, `modified` when the signature or
 * the symbol's own lines differ (a container's own lines leave out its
 * members' lines: a changed method does not make its class changed), else
 * `unchanged`.
 */
import type { SymbolRow } from "../state/read/rows.ts";
import { lineSimilarity } from "./_line_diff.ts";

/** One symbol of one side, with the lines of its body (signature line included). */
export interface SideSymbol {
  row: SymbolRow;
  body: readonly string[];
}

/** Two symbols judged to be the same one at two refs. */
export interface SymbolPair {
  base: SideSymbol;
  head: SideSymbol;
  /** Body similarity, 0..1 (1 for identical bodies). */
  similarity: number;
}

/** The outcome of pairing: pairs, and what is only in the base (removed) or only in the head (added). */
export interface SymbolMatching {
  pairs: SymbolPair[];
  removed: SideSymbol[];
  added: SideSymbol[];
}

/** What happened to a symbol between two refs. */
export type SymbolStatus = "unchanged" | "modified" | "moved" | "renamed" | "added" | "removed";

/** Least line similarity for a pair under a new name (or a same-named pair in another file) to count as one symbol. */
const RENAME_SIMILARITY = 0.8;
/** Least similarity for a same-named symbol in another file. */
const MOVE_SIMILARITY = 0.5;
/** Bodies with fewer meaningful characters than this pair under a new name only when identical and not shared. */
const MIN_RENAME_CHARS = 40;
/** Most similarity computations spent on near-identical renames (past it only exact bodies pair). */
const MAX_SIMILARITY_CHECKS = 20_000;

/**
 * Pairs `base` and `head` symbols (see the module comment). `movedFiles`
 * maps a base path to the head path its file moved to, so symbols of a
 * moved file pair in the first pass.
 */
export function matchSymbols(
  base: readonly SideSymbol[],
  head: readonly SideSymbol[],
  movedFiles: ReadonlyMap<string, string> = new Map(),
): SymbolMatching {
  const pairs: SymbolPair[] = [];
  const freeBase = new Set(base);
  const freeHead = new Set(head);
  const take = (b: SideSymbol, h: SideSymbol, similarity: number) => {
    pairs.push({ base: b, head: h, similarity });
    freeBase.delete(b);
    freeHead.delete(h);
  };
  // 1. Same place.
  const placeKey = (s: SideSymbol, path: string) => `${path}\0${s.row.qualified_name}\0${s.row.kind}`;
  pairInOrder(
    [...freeBase],
    [...freeHead],
    (b) => placeKey(b, movedFiles.get(b.row.path) ?? b.row.path),
    (h) => placeKey(h, h.row.path),
    (b, h) => take(b, h, similarityOf(b, h)),
  );
  // 2. Moved to another file under the same qualified name.
  const nameKey = (s: SideSymbol) => `${s.row.qualified_name}\0${s.row.kind}`;
  pairInOrder([...freeBase], [...freeHead], nameKey, nameKey, (b, h) => {
    const sim = similarityOf(b, h);
    if (sim >= MOVE_SIMILARITY) take(b, h, sim);
  });
  // 2b. Members of paired containers keep their pairing under a renamed or moved container.
  pairMembers(pairs, freeBase, freeHead, take);
  // 3. Renamed: exact body without the name, then near-identical bodies.
  pairRenamed([...freeBase], [...freeHead], take);
  pairMembers(pairs, freeBase, freeHead, take);
  const order = (a: SideSymbol, b: SideSymbol) =>
    a.row.path < b.row.path ? -1 : a.row.path > b.row.path ? 1 : a.row.line_start - b.row.line_start;
  return { pairs, removed: [...freeBase].sort(order), added: [...freeHead].sort(order) };
}

/** Pairs members of equal key groups in line order (the i-th with the i-th), offering each pair to `pair`. */
function pairInOrder(
  base: SideSymbol[],
  head: SideSymbol[],
  baseKey: (s: SideSymbol) => string,
  headKey: (s: SideSymbol) => string,
  pair: (b: SideSymbol, h: SideSymbol) => void,
): void {
  const groups = new Map<string, SideSymbol[]>();
  for (const h of head) {
    const k = headKey(h);
    const g = groups.get(k);
    if (g) g.push(h);
    else groups.set(k, [h]);
  }
  for (const g of groups.values()) g.sort((a, b) => a.row.line_start - b.row.line_start);
  const sorted = [...base].sort((a, b) => a.row.line_start - b.row.line_start);
  for (const b of sorted) {
    const g = groups.get(baseKey(b));
    if (!g?.length) continue;
    const h = g.shift()!;
    pair(b, h);
  }
}

/**
 * Pairs still-free members of paired containers by name and kind (in line
 * order), so a renamed class's methods stay paired with their old selves;
 * repeated until no container gains a pair (members of members).
 */
function pairMembers(
  pairs: SymbolPair[],
  freeBase: Set<SideSymbol>,
  freeHead: Set<SideSymbol>,
  take: (b: SideSymbol, h: SideSymbol, similarity: number) => void,
): void {
  for (let from = 0; from < pairs.length;) {
    const headOf = new Map(pairs.slice(from).map((p) => [p.base.row.id, p.head.row.id]));
    from = pairs.length;
    if (!headOf.size) break;
    const key = (parent: number | null | undefined, s: SideSymbol) => `${parent}\0${s.row.name}\0${s.row.kind}`;
    pairInOrder(
      [...freeBase].filter((b) => b.row.parent_id !== null && headOf.has(b.row.parent_id)),
      [...freeHead].filter((h) => h.row.parent_id !== null),
      (b) => key(headOf.get(b.row.parent_id!), b),
      (h) => key(h.row.parent_id, h),
      (b, h) => take(b, h, similarityOf(b, h)),
    );
  }
}

/** A body with its own and its containers' names blanked and whitespace runs folded, for recognising a rename. */
function nameless(s: SideSymbol): string[] {
  return ownLines(s, [], true);
}

/**
 * Matches, as whole identifiers, a symbol's name and the names of its
 * qualified name's parts (its containers): a renamed container changes the
 * lines of a member that spell the container's name, which is no change of
 * the member's own.
 */
function namesRe(row: SymbolRow): RegExp | null {
  const cached = namesReCache.get(row);
  if (cached !== undefined) return cached;
  const names = [...new Set([row.name, ...row.qualified_name.split(/[^\w$]+/)])].filter(Boolean)
    .sort((a, b) => b.length - a.length);
  const re = names.length ? new RegExp(`(?<![\\w$])(?:${names.map(escapeRegExp).join("|")})(?![\\w$])`, "g") : null;
  namesReCache.set(row, re);
  return re;
}

/** `namesRe` per row (a row's names are compared many times during one pairing). */
const namesReCache = new WeakMap<SymbolRow, RegExp | null>();

/** Matches `name` as a whole identifier; null for an empty name. */
function nameRe(name: string): RegExp | null {
  return name ? new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`, "g") : null;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Pass 3 of `matchSymbols`. */
function pairRenamed(
  base: SideSymbol[],
  head: SideSymbol[],
  take: (b: SideSymbol, h: SideSymbol, similarity: number) => void,
): void {
  const headText = new Map(head.map((h) => [h, nameless(h)]));
  const byBody = new Map<string, SideSymbol[]>();
  for (const h of head) {
    const k = `${h.row.kind}\0${headText.get(h)!.join("\n")}`;
    const g = byBody.get(k);
    if (g) g.push(h);
    else byBody.set(k, [h]);
  }
  const rest: [SideSymbol, string[]][] = [];
  for (const b of base) {
    const text = nameless(b);
    const joined = text.join("\n");
    const g = byBody.get(`${b.row.kind}\0${joined}`);
    // A short body (`return nil`) shared by several symbols says nothing about which one this became.
    const telling = joined.length >= MIN_RENAME_CHARS || g?.length === 1;
    if (g?.length && telling) {
      const h = g.find((x) => x.row.path === b.row.path) ?? g[0];
      g.splice(g.indexOf(h), 1);
      headText.delete(h);
      take(b, h, similarityOf(b, h));
    } else rest.push([b, text]);
  }
  // Near-identical bodies: best pairs first, same file preferred, within a bounded number of comparisons.
  const candidates: { b: SideSymbol; h: SideSymbol; score: number; sim: number }[] = [];
  let checks = 0;
  for (const [b, bt] of rest) {
    if (bt.join("").length < MIN_RENAME_CHARS) continue;
    for (const [h, ht] of headText) {
      if (h.row.kind !== b.row.kind) continue;
      const [short, long] = bt.length < ht.length ? [bt.length, ht.length] : [ht.length, bt.length];
      if (short < RENAME_SIMILARITY * long * 0.9) continue;
      if (++checks > MAX_SIMILARITY_CHECKS) break;
      const sim = lineSimilarity(bt, ht);
      if (sim >= RENAME_SIMILARITY) candidates.push({ b, h, sim, score: sim + (b.row.path === h.row.path ? 0.05 : 0) });
    }
  }
  candidates.sort((x, y) => y.score - x.score);
  const used = new Set<SideSymbol>();
  for (const c of candidates) {
    if (used.has(c.b) || used.has(c.h)) continue;
    used.add(c.b).add(c.h);
    take(c.b, c.h, c.sim);
  }
}

/** Line similarity of two symbols' bodies (whitespace runs folded, blank lines left out). */
function similarityOf(a: SideSymbol, b: SideSymbol): number {
  if (sameLines(a.body, b.body)) return 1;
  return lineSimilarity(meaningful(a.body), meaningful(b.body));
}

/** True when two bodies are the same lines (the common case between refs, checked before anything costlier). */
function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((l, i) => l === b[i]);
}

function meaningful(lines: readonly string[]): string[] {
  return lines.map((l) => l.replace(/\s+/g, " ").trim()).filter((l) => l !== "");
}

/**
 * The file lines of a symbol that belong to it and not to a member listed
 * in `memberRanges` (inclusive line ranges); blank lines left out.
 */
function ownLines(s: SideSymbol, memberRanges: readonly [number, number][], blankName = false): string[] {
  const out: string[] = [];
  const re = blankName ? namesRe(s.row) : null;
  s.body.forEach((l, i) => {
    const line = s.row.line_start + i;
    // Its first line is always its own (a member may share it: `f(o: { a: number })`).
    if (i > 0 && memberRanges.some(([a, z]) => line >= a && line <= z)) return;
    const t = (re ? l.replace(re, "\u0000") : l).replace(/\s+/g, " ").trim();
    if (t) out.push(t);
  });
  return out;
}

/** What happened to a pair (see the module comment); `baseMembers`/`headMembers` are its members' line ranges. */
export function pairStatus(
  p: SymbolPair,
  baseMembers: readonly [number, number][] = [],
  headMembers: readonly [number, number][] = [],
): SymbolStatus {
  const b = p.base.row, h = p.head.row;
  if (b.name !== h.name) return "renamed";
  if (b.path !== h.path || b.qualified_name !== h.qualified_name) return "moved";
  return contentChanged(p, baseMembers, headMembers) ? "modified" : "unchanged";
}

/** True when the signature or the symbol's own lines (members left out) differ. */
function contentChanged(
  p: SymbolPair,
  baseMembers: readonly [number, number][] = [],
  headMembers: readonly [number, number][] = [],
): boolean {
  if (normSig(p.base.row.signature) !== normSig(p.head.row.signature)) return true;
  return bodyChanged(p, baseMembers, headMembers);
}

/**
 * True when the symbols' own lines differ, each side's own name and its
 * containers' names blanked (a rename alone is no body change).
 */
export function bodyChanged(
  p: SymbolPair,
  baseMembers: readonly [number, number][] = [],
  headMembers: readonly [number, number][] = [],
): boolean {
  // The same lines under the same qualified name are the same symbol text, members included.
  if (p.base.row.qualified_name === p.head.row.qualified_name && sameLines(p.base.body, p.head.body)) return false;
  const a = ownLines(p.base, baseMembers, true), z = ownLines(p.head, headMembers, true);
  return a.length !== z.length || a.some((l, i) => l !== z[i]);
}

/** A signature with whitespace runs folded (layout changes are not signature changes), `name` blanked when given. */
export function normSig(s: string, name?: string): string {
  const re = name ? nameRe(name) : null;
  return (re ? s.replace(re, "\u0000") : s).replace(/\s+/g, " ").trim();
}
