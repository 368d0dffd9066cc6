/**
 * diff_context: what changed between two refs, symbol by symbol, within a
 * token budget — what an agent needs to review a branch.
 *
 * The pipeline: compare the two file lists (path and content hash) → read
 * the symbols of the files that differ, with their bodies → pair them
 * (`_symbol_match.ts`: same place, moved, renamed) → one change per symbol
 * added, removed, modified, moved or renamed, with its signature before and
 * after and a unified diff of its body → rank → fit to the budget.
 *
 * What is left out as covered by something else in the answer: members of an
 * added or removed container (the container's diff shows them), and symbols
 * whose only change is that their file or container moved (the file move or
 * the container's change says it). A container's diff shows its own lines,
 * its members' changes are their own entries. Files that changed with no
 * symbol change (non-code files, imports only) are listed briefly in
 * `files`. At most `MAX_COMPARED_FILES` changed files have their symbols
 * compared; the rest are listed as files and the answer is partial. Reads
 * only the two views (their stores, and `readFiles` for files whose text the
 * store lacks).
 */
import { CruxeError } from "../core/errors.ts";
import { getMeta } from "../state/db.ts";
import type { RefView } from "../state/read/ref_view.ts";
import { type FileDigest, fileDigests } from "../state/read/files.ts";
import { parsePathPrefix } from "./_input_rules.ts";
import { parseMaxTokens } from "./code_context.ts";
import { jsonTokens, METADATA_TOKENS, TOKEN_ESTIMATOR } from "./_token_estimate.ts";
import { fitInOrder, type Fitted, longestFittingHead } from "./_diff_budget.ts";
import { TextCache } from "./_ref_text.ts";
import { matchSymbols, pairStatus, type SideSymbol, type SymbolPair, type SymbolStatus } from "./_symbol_match.ts";
import { type SymbolChange, symbolChange } from "./_symbol_change.ts";
import { byCodeUnits } from "./_symbol_row.ts";

/** Inputs of diff_context (the refs themselves arrive as views). */
export interface DiffContextInput {
  path_prefix?: string;
  max_tokens?: number;
  /** Set when the base is the merge base of the refs asked for (echoed in the answer). */
  merge_base?: MergeBase;
  /** Most changed files whose symbols are compared (default `MAX_COMPARED_FILES`; lower only in tests). */
  max_compared_files?: number;
}

/** The merge base a diff was taken from: the commit, and the refs it is the merge base of. */
export interface MergeBase {
  commit_id: string;
  base_ref: string;
  head_ref: string;
}

/** Which state a side of the comparison is: its name and commit. */
export interface RefSide {
  /** A branch, tag or commit as asked (meaning that commit), or `WORKTREE` for the working tree. */
  ref: string;
  /** The commit compared; null for the working tree (the files on disk, uncommitted edits included). */
  commit_id: string | null;
  /** The working tree only: its checked-out branch (null when detached) and the commit its HEAD is at. */
  working_tree?: { branch: string | null; head_commit_id: string | null };
  /** Set when a branch moved since it was indexed and its older commit was compared: why, and the fix. */
  stale?: string;
}

/** A file that changed, listed when none of its symbols is (or when it moved). */
export interface FileChange {
  path: string;
  status: "added" | "removed" | "modified" | "moved";
  /** Where a moved file was in the base. */
  path_before?: string;
  language: string;
}

/** Counts over everything that changed (before any budget cut). */
export interface DiffSummary {
  files_added: number;
  files_removed: number;
  files_modified: number;
  files_moved: number;
  symbols_added: number;
  symbols_removed: number;
  symbols_modified: number;
  symbols_moved: number;
  symbols_renamed: number;
}

/** The answer of diff_context (without the protocol metadata). */
export interface DiffContextResult {
  base: RefSide;
  head: RefSide;
  merge_base?: MergeBase;
  path_prefix?: string;
  summary: DiffSummary;
  /** Symbol changes, most important first (signature changes and removals, then bodies, additions, moves). */
  changes: SymbolChange[];
  files: FileChange[];
  max_tokens: number;
  estimated_tokens: number;
  token_estimator: string;
  /** What the budget left out: whole changes and files, and changes shown with a cut (or no) diff. */
  omitted: { changes: number; files: number; diffs_cut: number };
  /** Files whose text neither store held nor `readFiles` gave: their symbols are compared by signature only. */
  text_unavailable?: string[];
  /** Changed files past `MAX_COMPARED_FILES`, listed in `files` without their symbols compared. */
  files_not_compared?: number;
  /**
   * `result_completeness: "partial"` when some text was unavailable or some
   * files were not compared (the protocol metadata then says so).
   */
  meta?: { result_completeness: "partial" };
  truncated: boolean;
  /** Says what was cut and how to see it, when anything was. */
  truncation_note?: string;
}

/** Default budget of a diff: larger than a context answer's, a review reads more. */
const DIFF_DEFAULT_TOKENS = 8000;
/** Most of the budget one change may take (so one huge function does not hide the others). */
const ITEM_SHARE = 0.35;
/** Share of the budget kept for the brief file list before symbol changes take the rest. */
const FILE_LIST_SHARE = 0.15;
/** The answer's own completeness when file text was missing (read by the dispatcher into the metadata). */
const PARTIAL = { result_completeness: "partial" as const };
/**
 * Most changed files whose symbols one answer compares (each costs reading
 * its text at both refs); the rest are listed as files, and the answer is
 * partial. Narrow `path_prefix` to compare them.
 */
const MAX_COMPARED_FILES = 3000;
/** Most paths named in `text_unavailable`. */
const MAX_UNAVAILABLE_LISTED = 20;

/** The two file lists compared: what each side's changed files are. */
interface FileDelta {
  modified: [FileDigest, FileDigest][];
  added: FileDigest[];
  removed: FileDigest[];
  /** Exact moves (same content): base path → head path. */
  moved: [FileDigest, FileDigest][];
}

/**
 * The changes between `base` and `head` under `path_prefix`, fitted to
 * `max_tokens` (default 8,000; 100..100,000) for the whole answer, protocol
 * metadata included. Throws `invalid_input` (a bad path prefix) and
 * `invalid_max_tokens`.
 */
export async function diffContext(
  base: RefView,
  head: RefView,
  input: DiffContextInput = {},
): Promise<DiffContextResult> {
  const maxTokens = parseMaxTokens(input.max_tokens, DIFF_DEFAULT_TOKENS);
  const prefix = parsePathPrefix(input.path_prefix, "path_prefix", getMeta(head.db, "repo_root"));
  const texts = { base: new TextCache(base), head: new TextCache(head) };
  const delta = await compareFiles(texts.base, texts.head, prefix ?? "");
  const notCompared = capDelta(delta, input.max_compared_files ?? MAX_COMPARED_FILES);
  // The texts of every file compared, each side's lacking ones in one read.
  await Promise.all([
    texts.base.prefetch([...delta.modified.map(([b]) => b), ...delta.removed]),
    texts.head.prefetch([...delta.modified.map(([, h]) => h), ...delta.added]),
  ]);
  const baseSyms: SideSymbol[] = [], headSyms: SideSymbol[] = [];
  for (const [b, h] of delta.modified) {
    baseSyms.push(...await texts.base.symbols(b));
    headSyms.push(...await texts.head.symbols(h));
  }
  for (const f of delta.removed) baseSyms.push(...await texts.base.symbols(f));
  for (const f of delta.added) headSyms.push(...await texts.head.symbols(f));
  const matching = matchSymbols(baseSyms, headSyms);
  const moves = new Map(delta.moved.map(([b, h]) => [b.path, h.path]));
  inferFileMoves(matching.pairs, delta, moves);
  const changes = classify(matching, moves);
  const files = [...fileChanges(delta, moves, changes), ...notCompared].sort((x, y) => byCodeUnits(x.path, y.path));
  const unavailable = [...texts.base.incomplete(), ...texts.head.incomplete()];
  const summary = summarize(delta, changes);
  for (const f of notCompared) summary[`files_${f.status as "added" | "removed" | "modified"}`]++;
  return fitAnswer({
    lead: {
      base: side(base),
      head: side(head),
      ...(input.merge_base ? { merge_base: input.merge_base } : {}),
      ...(prefix ? { path_prefix: prefix } : {}),
      summary,
    },
    changes: changes.sort(byRank),
    files,
    maxTokens,
    unavailable: [...new Set(unavailable)].sort(byCodeUnits),
    notCompared: notCompared.length,
  });
}

/**
 * Keeps at most `max` changed files (modified, then removed, then added, each
 * by path) in `delta` for symbol comparison; returns the others as file
 * changes to list.
 */
function capDelta(delta: FileDelta, max: number): FileChange[] {
  const total = delta.modified.length + delta.removed.length + delta.added.length;
  if (total <= max) return [];
  const out: FileChange[] = [];
  let room = max;
  const keep = <T>(list: T[], asChange: (x: T) => FileChange): T[] => {
    const kept = list.slice(0, Math.max(0, room));
    room -= kept.length;
    for (const x of list.slice(kept.length)) out.push(asChange(x));
    return kept;
  };
  delta.modified = keep(delta.modified, ([, h]) => ({ path: h.path, status: "modified", language: h.language }));
  delta.removed = keep(delta.removed, (f) => ({ path: f.path, status: "removed", language: f.language }));
  delta.added = keep(delta.added, (f) => ({ path: f.path, status: "added", language: f.language }));
  return out;
}

/** How a view is named in an answer. */
export function side(v: RefView): RefSide {
  return {
    ref: v.label,
    commit_id: v.commitId,
    ...(v.workingTree
      ? { working_tree: { branch: v.workingTree.branch, head_commit_id: v.workingTree.headCommit } }
      : {}),
    ...(v.stale ? { stale: v.stale } : {}),
  };
}

/**
 * The files that differ. Two files with different recorded hashes but the
 * same stored text are the same (two stores may hash differently: a git
 * blob id and a content hash); exact moves pair a removed and an added file
 * with the same hash when that hash is unique on both sides.
 */
async function compareFiles(base: TextCache, head: TextCache, prefix: string): Promise<FileDelta> {
  const b = fileDigests(base.view.db, prefix), h = fileDigests(head.view.db, prefix);
  const headByPath = new Map(h.map((f) => [f.path, f]));
  const baseByPath = new Map(b.map((f) => [f.path, f]));
  const delta: FileDelta = { modified: [], added: [], removed: [], moved: [] };
  // Files whose hashes differ but whose line counts agree are compared by text: read in one batch a side.
  const twins = b.flatMap((f) => {
    const o = headByPath.get(f.path);
    return o && o.hash !== f.hash && o.line_count === f.line_count ? [[f, o] as const] : [];
  });
  await Promise.all([base.prefetch(twins.map(([f]) => f)), head.prefetch(twins.map(([, o]) => o))]);
  for (const f of b) {
    const other = headByPath.get(f.path);
    if (!other) delta.removed.push(f);
    else if (other.hash !== f.hash && !(await sameText(base, f, head, other))) delta.modified.push([f, other]);
  }
  for (const f of h) if (!baseByPath.has(f.path)) delta.added.push(f);
  const unique = (list: FileDigest[]) => {
    const m = new Map<string, FileDigest | null>();
    for (const f of list) m.set(f.hash, m.has(f.hash) ? null : f);
    return m;
  };
  const addedByHash = unique(delta.added);
  for (const [hash, f] of unique(delta.removed)) {
    const to = addedByHash.get(hash);
    if (f && to) delta.moved.push([f, to]);
  }
  const movedFrom = new Set(delta.moved.map(([f]) => f.path)), movedTo = new Set(delta.moved.map(([, t]) => t.path));
  delta.removed = delta.removed.filter((f) => !movedFrom.has(f.path));
  delta.added = delta.added.filter((f) => !movedTo.has(f.path));
  return delta;
}

/** True when two files of the same path have the same line count and the same complete stored text. */
async function sameText(base: TextCache, b: FileDigest, head: TextCache, h: FileDigest): Promise<boolean> {
  if (b.line_count !== h.line_count) return false;
  const x = await base.text(b), y = await head.text(h);
  return x.complete && y.complete && x.lines.length === y.lines.length && x.lines.every((l, i) => l === y.lines[i]);
}

/**
 * A removed file most of whose paired symbols (at least half of its
 * symbols) went to one added file is that file moved and edited: recorded in
 * `moves` and taken out of the added and removed lists.
 */
function inferFileMoves(pairs: SymbolPair[], delta: FileDelta, moves: Map<string, string>): void {
  const removed = new Map(delta.removed.map((f) => [f.path, f]));
  const added = new Map(delta.added.map((f) => [f.path, f]));
  const votes = new Map<string, Map<string, number>>();
  const totals = new Map<string, number>();
  for (const p of pairs) {
    const from = p.base.row.path, to = p.head.row.path;
    if (!removed.has(from)) continue;
    totals.set(from, (totals.get(from) ?? 0) + 1);
    if (!added.has(to)) continue;
    const v = votes.get(from) ?? new Map<string, number>();
    v.set(to, (v.get(to) ?? 0) + 1);
    votes.set(from, v);
  }
  const claimed = new Set<string>();
  for (const [from, v] of votes) {
    const [to, n] = [...v].sort((a, b) => b[1] - a[1] || byCodeUnits(a[0], b[0]))[0];
    if (claimed.has(to) || n * 2 < (totals.get(from) ?? 0)) continue;
    claimed.add(to);
    moves.set(from, to);
    delta.moved.push([removed.get(from)!, added.get(to)!]);
  }
  delta.removed = delta.removed.filter((f) => !moves.has(f.path));
  delta.added = delta.added.filter((f) => !claimed.has(f.path));
}

/** Inclusive line ranges of each symbol's direct members, by symbol row id. */
function memberRanges(symbols: readonly SideSymbol[]): Map<number, [number, number][]> {
  const out = new Map<number, [number, number][]>();
  for (const s of symbols) {
    if (s.row.parent_id === null) continue;
    const list = out.get(s.row.parent_id) ?? [];
    list.push([s.row.line_start, s.row.line_end]);
    out.set(s.row.parent_id, list);
  }
  return out;
}

/** One change per symbol that changed and is not covered by another (see the module comment). */
function classify(m: ReturnType<typeof matchSymbols>, moves: ReadonlyMap<string, string>): SymbolChange[] {
  const baseAll = [...m.pairs.map((p) => p.base), ...m.removed];
  const headAll = [...m.pairs.map((p) => p.head), ...m.added];
  const baseMembers = memberRanges(baseAll), headMembers = memberRanges(headAll);
  const statusOf = new Map<SymbolPair, SymbolStatus>();
  const pairByBaseRow = new Map<number, SymbolPair>();
  for (const p of m.pairs) {
    statusOf.set(p, pairStatus(p, baseMembers.get(p.base.row.id), headMembers.get(p.head.row.id)));
    pairByBaseRow.set(p.base.row.id, p);
  }
  const removedRows = new Set(m.removed.map((s) => s.row.id)), addedRows = new Set(m.added.map((s) => s.row.id));
  const out: SymbolChange[] = [];
  for (const p of m.pairs) {
    const status = statusOf.get(p)!;
    if (status === "unchanged") continue;
    const bm = baseMembers.get(p.base.row.id) ?? [], hm = headMembers.get(p.head.row.id) ?? [];
    const c = symbolChange(status, p.base, p.head, bm, hm, p.similarity);
    if (status === "moved" && !c.body_changed && !c.signature_changed) {
      // Only its place changed: said by its file's move or its container's change.
      const parent = p.base.row.parent_id === null ? undefined : pairByBaseRow.get(p.base.row.parent_id);
      const parentMoved = parent !== undefined && ["moved", "renamed"].includes(statusOf.get(parent)!);
      if (moves.get(p.base.row.path) === p.head.row.path || parentMoved) continue;
    }
    out.push(c);
  }
  for (const s of m.removed) {
    if (s.row.parent_id !== null && removedRows.has(s.row.parent_id)) continue;
    out.push(symbolChange("removed", s, null, baseMembers.get(s.row.id) ?? [], [], 0));
  }
  for (const s of m.added) {
    if (s.row.parent_id !== null && addedRows.has(s.row.parent_id)) continue;
    out.push(symbolChange("added", null, s, [], headMembers.get(s.row.id) ?? [], 0));
  }
  return out;
}

/** The brief file list: moved files, and changed files none of whose symbols is listed. */
function fileChanges(delta: FileDelta, moves: ReadonlyMap<string, string>, changes: SymbolChange[]): FileChange[] {
  const touched = new Set<string>();
  for (const c of changes) {
    if (c.path) touched.add(c.path);
    if (c.path_before) touched.add(c.path_before);
  }
  const out: FileChange[] = [];
  for (const [b, h] of delta.moved) {
    out.push({ path: h.path, status: "moved", path_before: b.path, language: h.language });
  }
  for (const [, h] of delta.modified) {
    if (!touched.has(h.path)) out.push({ path: h.path, status: "modified", language: h.language });
  }
  for (const f of delta.added) {
    if (!touched.has(f.path)) out.push({ path: f.path, status: "added", language: f.language });
  }
  for (const f of delta.removed) {
    if (!touched.has(f.path) && !moves.has(f.path)) out.push({ path: f.path, status: "removed", language: f.language });
  }
  return out; // sorted by path with the files not compared, by the caller
}

/** Counts of changed files (by the delta) and listed symbol changes (by status). */
function summarize(delta: FileDelta, changes: SymbolChange[]): DiffSummary {
  const n = (s: SymbolStatus) => changes.filter((c) => c.status === s).length;
  return {
    files_added: delta.added.length,
    files_removed: delta.removed.length,
    files_modified: delta.modified.length,
    files_moved: delta.moved.length,
    symbols_added: n("added"),
    symbols_removed: n("removed"),
    symbols_modified: n("modified"),
    symbols_moved: n("moved"),
    symbols_renamed: n("renamed"),
  };
}

/**
 * Review order: changes to what callers see first (a changed signature, a
 * removal), then changed bodies, then additions, then moves and renames with
 * no other change; public before private, bigger before smaller, then by place.
 */
function rankTier(c: SymbolChange): number {
  if (c.signature_changed || c.status === "removed") return 0;
  if (c.body_changed) return c.status === "added" ? 2 : 1;
  return c.status === "added" ? 2 : 3;
}

function byRank(a: SymbolChange, b: SymbolChange): number {
  const pub = (c: SymbolChange) => (c.visibility === "private" ? 1 : 0);
  return rankTier(a) - rankTier(b) || pub(a) - pub(b) ||
    (b.lines_added + b.lines_removed) - (a.lines_added + a.lines_removed) ||
    byCodeUnits(a.path ?? a.path_before ?? "", b.path ?? b.path_before ?? "") ||
    (a.line_start ?? a.line_start_before ?? 0) - (b.line_start ?? b.line_start_before ?? 0);
}

/** The answer's leading fields (what was compared, and the counts), shared by its skeleton and its final form. */
type Lead = Pick<DiffContextResult, "base" | "head" | "merge_base" | "path_prefix" | "summary">;

/** Everything the answer is made from, before the budget. */
interface Draft {
  lead: Lead;
  changes: SymbolChange[];
  files: FileChange[];
  maxTokens: number;
  unavailable: string[];
  notCompared: number;
}

/** The answer's fields saying what it could not compare (and so that it is partial), when anything. */
function gaps(d: Draft): Pick<DiffContextResult, "text_unavailable" | "files_not_compared" | "meta"> {
  const listed = d.unavailable.slice(0, MAX_UNAVAILABLE_LISTED);
  if (!listed.length && !d.notCompared) return {};
  return {
    ...(listed.length ? { text_unavailable: listed } : {}),
    ...(d.notCompared ? { files_not_compared: d.notCompared } : {}),
    meta: PARTIAL,
  };
}

/** Per-item cost: its JSON and the separating comma. */
const cost = (v: unknown) => jsonTokens(v, 1);

/** A change in the largest form within `cap`: whole, with its diff cut to its first lines, or without a diff. */
function changeForm(c: SymbolChange, cap: number): Fitted<SymbolChange> | null {
  const whole = cost(c);
  if (whole <= cap) return { item: c, cost: whole, cut: false };
  if (c.diff) {
    const lines = c.diff.split("\n");
    const cutTo = (kept: readonly string[]): SymbolChange => ({ ...c, diff: kept.join("\n"), diff_cut: true });
    const kept = longestFittingHead(lines, cap, (k) => cost(cutTo(k)), 4);
    if (kept) return { item: cutTo(kept), cost: cost(cutTo(kept)), cut: true };
  }
  const { diff: _d, ...bare } = c;
  const noDiff: SymbolChange = { ...bare, diff_cut: true };
  const n = cost(noDiff);
  return n <= cap ? { item: noDiff, cost: n, cut: true } : null;
}

/** The answer within its budget (see `diffContext`). */
function fitAnswer(d: Draft): DiffContextResult {
  const note = "Some changes were left out or shown with a cut diff to fit max_tokens; raise max_tokens, narrow " +
    "path_prefix, or call compare_symbol_between_commits for one symbol's whole diff.";
  // The answer's own fields at their widest, and the metadata, are paid for first.
  const skeleton: DiffContextResult = {
    ...d.lead,
    changes: [],
    files: [],
    max_tokens: d.maxTokens,
    estimated_tokens: d.maxTokens,
    token_estimator: TOKEN_ESTIMATOR,
    omitted: { changes: d.changes.length, files: d.files.length, diffs_cut: d.changes.length },
    ...gaps(d),
    truncated: true,
    truncation_note: note,
  };
  const budget = d.maxTokens - jsonTokens(skeleton, METADATA_TOKENS);
  if (budget <= 0) {
    throw new CruxeError(
      "invalid_max_tokens",
      `max_tokens ${d.maxTokens} cannot hold even the summary of this diff (about ${d.maxTokens - budget} tokens)`,
      { field: "max_tokens", needed: d.maxTokens - budget },
    );
  }
  const fileCost = d.files.reduce((a, f) => a + cost(f), 0);
  const fileReserve = Math.min(fileCost, Math.floor(budget * FILE_LIST_SHARE));
  const cap = Math.max(1, Math.floor(budget * ITEM_SHARE));
  const ch = fitInOrder(d.changes, budget - fileReserve, cap, changeForm);
  const fl = fitInOrder(d.files, budget - ch.used, budget, (f, room) => {
    const c = cost(f);
    return c <= room ? { item: f, cost: c, cut: false } : null;
  });
  const truncated = ch.omitted + fl.omitted + ch.cut > 0;
  return {
    ...d.lead,
    changes: ch.taken.map((t) => t.item),
    files: fl.taken.map((t) => t.item),
    max_tokens: d.maxTokens,
    estimated_tokens: Math.min(d.maxTokens, d.maxTokens - budget + ch.used + fl.used),
    token_estimator: TOKEN_ESTIMATOR,
    omitted: { changes: ch.omitted, files: fl.omitted, diffs_cut: ch.cut },
    ...gaps(d),
    truncated,
    ...(truncated ? { truncation_note: note } : {}),
  };
}
