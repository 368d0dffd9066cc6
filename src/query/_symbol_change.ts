/**
 * One symbol's change between two refs as both ref-comparing tools show it:
 * where it was and is, its signature before and after, whether its
 * signature or body changed, and a unified diff of its body with file line
 * numbers. A container's diff shows its own lines (its members are compared
 * on their own); an added symbol's diff is its whole body; a removed one has
 * no diff (its signature and line counts say what went).
 */
import type { SideSymbol, SymbolStatus } from "./_symbol_match.ts";
import { bodyChanged, normSig } from "./_symbol_match.ts";
import { diffLines, hunkText, unifiedHunks } from "./_line_diff.ts";

/** One changed symbol. Fields without `_before` describe the head side (absent when the symbol was removed). */
export interface SymbolChange {
  status: SymbolStatus;
  kind: string;
  name: string;
  qualified_name: string;
  language: string;
  visibility?: string;
  path?: string;
  line_start?: number;
  line_end?: number;
  /** The head symbol's handle (for follow-up calls on the head ref). */
  symbol_id?: string;
  symbol_stable_id?: string;
  /** Base side; given when it differs from the head side or the symbol was removed. */
  path_before?: string;
  line_start_before?: number;
  line_end_before?: number;
  name_before?: string;
  qualified_name_before?: string;
  signature_before?: string;
  signature_after?: string;
  signature_changed: boolean;
  body_changed: boolean;
  lines_added: number;
  lines_removed: number;
  /** Body similarity (0..1) of a moved or renamed pair. */
  similarity?: number;
  /** Unified diff of the body: `@@ -base_line,n +head_line,m @@` hunks, file line numbers. */
  diff?: string;
  /** True when `diff` was cut (to the budget or to `MAX_DIFF_LINES`) or left out. */
  diff_cut?: boolean;
}

/** Most diff lines kept for one symbol (a rewritten 3,000-line function is not a review). */
export const MAX_DIFF_LINES = 400;
/** Kept lines shown around each change. */
const CONTEXT_LINES = 2;

const inside = (ranges: readonly [number, number][], line: number) => ranges.some(([a, z]) => line >= a && line <= z);

/**
 * The change of one symbol. `base`/`head` are null for an added/removed
 * symbol; `*Members` are the line ranges of each side's members (left out
 * of a paired container's diff).
 */
export function symbolChange(
  status: SymbolStatus,
  base: SideSymbol | null,
  head: SideSymbol | null,
  baseMembers: readonly [number, number][],
  headMembers: readonly [number, number][],
  similarity: number,
): SymbolChange {
  const b = base?.row, h = head?.row;
  const shown = (h ?? b)!;
  const out: SymbolChange = {
    status,
    kind: shown.kind,
    name: shown.name,
    qualified_name: shown.qualified_name,
    language: shown.language,
    ...(shown.visibility ? { visibility: shown.visibility } : {}),
    signature_changed: false,
    body_changed: false,
    lines_added: 0,
    lines_removed: 0,
  };
  if (h) {
    Object.assign(out, {
      path: h.path,
      line_start: h.line_start,
      line_end: h.line_end,
      symbol_id: h.symbol_id,
      symbol_stable_id: h.stable_id,
    });
  }
  if (b) {
    if (!h || b.path !== h.path) out.path_before = b.path;
    if (!h || b.line_start !== h.line_start || b.line_end !== h.line_end) {
      out.line_start_before = b.line_start;
      out.line_end_before = b.line_end;
    }
    if (h && b.name !== h.name) out.name_before = b.name;
    if (h && b.qualified_name !== h.qualified_name) out.qualified_name_before = b.qualified_name;
    out.signature_before = b.signature;
  }
  if (h) out.signature_after = h.signature;
  if (b && h) {
    // A new name alone is the rename, not a signature change.
    out.signature_changed = normSig(b.signature, b.name) !== normSig(h.signature, h.name);
    out.body_changed = bodyChanged({ base: base!, head: head!, similarity }, baseMembers, headMembers);
    if (status === "moved" || status === "renamed") out.similarity = Math.round(similarity * 100) / 100;
  } else {
    out.body_changed = true;
  }
  const ops = diffLines(base && head ? base.body : [], head ? head.body : []);
  if (!head) {
    out.lines_removed = base!.body.filter((l) => l.trim()).length;
    return out;
  }
  // A change counts when it is not blank and not inside a member (members are listed on their own).
  // A symbol's first line is its own even when a member starts on it.
  const counts = (l: { op: "-" | "+"; text: string; line: number }) =>
    l.text.trim() !== "" &&
    (l.line === (l.op === "-" ? b?.line_start : h!.line_start) ||
      !inside(l.op === "-" ? baseMembers : headMembers, l.line));
  // Counted lines only: a member's change shown inside a container's hunk is the member's.
  const hunks = unifiedHunks(ops, CONTEXT_LINES, b?.line_start ?? 1, h!.line_start, (l) => {
    const own = counts(l);
    if (own && l.op === "+") out.lines_added++;
    else if (own) out.lines_removed++;
    return own;
  });
  if (!hunks.length) return out;
  let lines = hunks.map(hunkText).join("\n").split("\n");
  if (lines.length > MAX_DIFF_LINES) {
    lines = lines.slice(0, MAX_DIFF_LINES);
    out.diff_cut = true;
  }
  out.diff = lines.join("\n");
  return out;
}
