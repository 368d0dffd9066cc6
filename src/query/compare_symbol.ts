/**
 * compare_symbol_between_commits: one symbol at two refs — where it is,
 * its signature, a diff of its body, and what happened to it.
 *
 * The symbol is found by name (plain or qualified, narrowed by `path`) or
 * by `symbol_id`, first at the head ref and, when the head has no such
 * symbol, at the base (it may have been removed or renamed). Its
 * counterpart on the other side is, in order: the same file, qualified name
 * and kind; the same `symbol_stable_id` (same qualified name and signature)
 * or qualified name and kind in another file (moved); a symbol of the same
 * kind in the same file with the same or a near-identical body under another
 * name (renamed). `status` is `unchanged`, `modified`, `moved`, `renamed`,
 * `added` or `removed`.
 */
import { CruxeError } from "../core/errors.ts";
import type { RefView } from "../state/read/ref_view.ts";
import { fileDigestOf } from "../state/read/files.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { symbolById, symbolsByName, symbolsByStableId, symbolsInFile } from "../state/read/symbols.ts";
import { requireName } from "./_input_rules.ts";
import { resolveSymbol } from "./_resolve_symbol.ts";
import { TextCache, withBody } from "./_ref_text.ts";
import { matchSymbols, pairStatus, type SideSymbol, type SymbolStatus } from "./_symbol_match.ts";
import { type SymbolChange, symbolChange } from "./_symbol_change.ts";
import { type RefSide, side } from "./diff_context.ts";

/** Inputs of compare_symbol_between_commits (the refs arrive as views). */
export interface CompareSymbolInput {
  symbol_name?: string;
  symbol_id?: string;
  path?: string;
}

/** The answer: the change (status `unchanged` included) with both refs named. */
export interface CompareSymbolResult extends SymbolChange {
  base: RefSide;
  head: RefSide;
  /** True when a side's file text was not available (the body diff may be empty or partial). */
  text_unavailable?: boolean;
  /** `result_completeness: "partial"` when a side's text was unavailable. */
  meta?: { result_completeness: "partial" };
  truncated: boolean;
}

/** Members' line ranges of `row` in `view` (its direct children). */
function membersOf(view: RefView, row: SymbolRow): [number, number][] {
  return symbolsInFile(view.db, row.path, false, 1_000_000)
    .filter((s) => s.parent_id === row.id)
    .map((s) => [s.line_start, s.line_end]);
}

/** The symbol meant by the input in `view`, null when `view` has none; ambiguity and bad input throw. */
function findIn(view: RefView, input: CompareSymbolInput): SymbolRow | null {
  try {
    if (input.symbol_id !== undefined) {
      const id = requireName(input.symbol_id, "symbol_id");
      return symbolById(view.db, id) ?? null;
    }
    return resolveSymbol(view.db, input.symbol_name, input.path);
  } catch (e) {
    if (e instanceof CruxeError && (e.code === "symbol_not_found" || e.code === "file_not_found")) return null;
    throw e;
  }
}

/** Candidates for `row`'s counterpart in `other` (see the module comment), each at most once. */
function counterpartCandidates(other: RefView, row: SymbolRow): SymbolRow[] {
  const seen = new Map<number, SymbolRow>();
  const add = (rows: SymbolRow[]) => rows.forEach((r) => seen.set(r.id, r));
  add(symbolsInFile(other.db, row.path, false, 1_000_000).filter((r) => r.kind === row.kind));
  add(symbolsByStableId(other.db, row.stable_id, row.name));
  add(symbolsByName(other.db, row.name).filter((r) => r.qualified_name === row.qualified_name && r.kind === row.kind));
  return [...seen.values()];
}

/** A row with its body read from its side (each file's text read once per side). */
async function sided(texts: TextCache, row: SymbolRow): Promise<{ side: SideSymbol; complete: boolean }> {
  const digest = fileDigestOf(texts.view.db, row.path);
  const text = digest ? await texts.text(digest) : { lines: [], complete: false };
  return { side: withBody(row, text), complete: text.complete };
}

/**
 * The symbol at both refs. Throws `invalid_input` (neither or both of
 * symbol_name and symbol_id), `symbol_not_found` (at neither ref, with
 * suggestions from the head), `ambiguous_symbol` (with the candidates),
 * `file_not_found` (a `path` at neither ref).
 */
export async function compareSymbol(
  base: RefView,
  head: RefView,
  input: CompareSymbolInput,
): Promise<CompareSymbolResult> {
  if ((input.symbol_name === undefined) === (input.symbol_id === undefined)) {
    throw new CruxeError("invalid_input", "Give exactly one of symbol_name and symbol_id", {
      field: "symbol_name",
    });
  }
  let found = findIn(head, input);
  const fromHead = found !== null;
  found ??= findIn(base, input);
  if (!found) {
    // Neither ref has it: the head's own error carries the suggestions.
    if (input.symbol_id !== undefined) {
      throw new CruxeError(
        "symbol_not_found",
        `No symbol with id ${String(input.symbol_id).slice(0, 100)} at either ref`,
        {
          symbol_id: String(input.symbol_id).slice(0, 100),
          suggestions: [],
        },
      );
    }
    resolveSymbol(head.db, input.symbol_name, input.path);
    throw new CruxeError("symbol_not_found", "No such symbol at either ref", { suggestions: [] });
  }
  const [mine, other] = fromHead ? [head, base] : [base, head];
  const otherTexts = new TextCache(other);
  const me = await sided(new TextCache(mine), found);
  const candidates = await Promise.all(counterpartCandidates(other, found).map((r) => sided(otherTexts, r)));
  const m = fromHead
    ? matchSymbols(candidates.map((c) => c.side), [me.side])
    : matchSymbols([me.side], candidates.map((c) => c.side));
  let pair = m.pairs.find((p) => (fromHead ? p.head : p.base) === me.side);
  if (!pair) {
    // A unique same-named symbol of the same kind elsewhere is this one moved, however much its body changed.
    const same = candidates.filter((c) => c.side.row.qualified_name === found.qualified_name);
    if (same.length === 1) {
      pair = fromHead
        ? { base: same[0].side, head: me.side, similarity: 0 }
        : { base: me.side, head: same[0].side, similarity: 0 };
    }
  }
  const complete = me.complete &&
    (!pair || candidates.find((c) => c.side === (fromHead ? pair!.base : pair!.head))?.complete !== false);
  let change: SymbolChange;
  if (pair) {
    const bm = membersOf(base, pair.base.row), hm = membersOf(head, pair.head.row);
    const status: SymbolStatus = pairStatus(pair, bm, hm);
    change = symbolChange(status, pair.base, pair.head, bm, hm, pair.similarity);
  } else if (fromHead) {
    change = symbolChange("added", null, me.side, [], [], 0);
  } else {
    change = symbolChange("removed", me.side, null, [], [], 0);
  }
  return {
    base: side(base),
    head: side(head),
    ...change,
    ...(complete ? {} : { text_unavailable: true, meta: { result_completeness: "partial" as const } }),
    truncated: change.diff_cut === true,
  };
}
