/**
 * Pages of a large file's outline, so one answer stays small (the outline of
 * a 4,000-line file is tens of kilobytes): whole top-level symbols in source
 * order, at most OUTLINE_PAGE_BYTES of them as JSON with every field (the
 * compact answer is smaller), and `next_cursor` for the rest. A top-level
 * symbol larger than a page is listed alone with `child_count` (its members:
 * get_symbol_hierarchy, descendants).
 * A file whose outline fits one page answers as before.
 */
import { CruxeError } from "../core/errors.ts";
import type { OutlineNode, OutlineResult } from "./file_outline.ts";

/** Bytes of an outline page's symbols, as JSON with every field. */
export const OUTLINE_PAGE_BYTES = 6 * 1024;

/** A page of an outline: the outline's fields, its symbols cut to the page, and where the next page starts. */
export type OutlinePage = OutlineResult & {
  next_cursor?: string | null;
  page?: { first: number; count: number; top_level_symbols: number };
  note?: string;
};

const count = (n: OutlineNode): number => 1 + n.children.reduce((a, c) => a + count(c), 0);
const bytes = (n: OutlineNode): number => new TextEncoder().encode(JSON.stringify(n)).length;

/** The top-level index a cursor from `next_cursor` starts at, or `invalid_input`. */
function cursorStart(cursor: string, topLevel: number): number {
  const m = /^outline:(\d{1,9})$/.exec(cursor);
  const start = m ? Number(m[1]) : NaN;
  if (!(start >= 0 && start < topLevel)) {
    throw new CruxeError("invalid_input", "cursor is not one this file's outline gave (pass next_cursor as it is)", {
      field: "cursor",
    });
  }
  return start;
}

/** The page of `r` that `cursor` names (the first without one); `r` itself when it fits one page. */
export function outlinePage(r: OutlineResult, cursor?: string): OutlinePage {
  const top = r.symbols;
  if (cursor === undefined && bytes({ children: top } as OutlineNode) <= OUTLINE_PAGE_BYTES) return r;
  const first = cursor === undefined ? 0 : cursorStart(cursor, top.length);
  const symbols: OutlineNode[] = [];
  let used = 0;
  let summarized = false;
  let i = first;
  for (; i < top.length; i++) {
    const n = top[i];
    const cost = bytes(n);
    if (cost > OUTLINE_PAGE_BYTES) {
      if (symbols.length) break; // alone on its own page
      symbols.push({ ...n, children: [], child_count: count(n) - 1 } as OutlineNode);
      summarized = true;
      i++;
      break;
    }
    if (used + cost > OUTLINE_PAGE_BYTES) break;
    symbols.push(n);
    used += cost;
  }
  return {
    ...r,
    symbols,
    truncated: r.truncated || i < top.length || summarized,
    next_cursor: i < top.length ? `outline:${i}` : null,
    page: { first, count: symbols.length, top_level_symbols: top.length },
    ...(summarized
      ? {
        note: "A symbol with child_count has more members than a page: get_symbol_hierarchy lists them (descendants).",
      }
      : {}),
  };
}
