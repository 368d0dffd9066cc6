/**
 * Pages of a large file's outline, so one answer stays under 8 KB (the
 * outline of a 4,000-line file is tens of kilobytes): the nodes of the tree
 * in outline order (each symbol, then its members), from the cursor on, as
 * many as an upper bound of their compact size lets into OUTLINE_PAGE_BYTES.
 * A node sits under its parent when the parent is in the same page, else at
 * the top of the page (its qualified name says where it belongs). A paged
 * answer summarises the file's top level (`top_level_kinds`) and says where
 * the next page starts (`next_cursor`); following it lists every node once.
 * A file whose outline fits one page answers as before.
 */
import { CruxeError } from "../core/errors.ts";
import type { OutlineNode, OutlineResult } from "./file_outline.ts";

/**
 * Bytes of a page's nodes, counted generously (every field a compact node
 * may keep, as JSON), so that the answer with its summary, next call and
 * metadata stays under 8 KB.
 */
export const OUTLINE_PAGE_BYTES = 6500;
/** Most nodes in one page, whatever their size. */
export const OUTLINE_PAGE_MAX_NODES = 2000;

/** A page of an outline: the outline's fields, its nodes from the cursor on, and where the next page starts. */
export type OutlinePage = OutlineResult & {
  /** The file's top-level symbols counted by kind. */
  top_level_kinds?: Record<string, number>;
  /** Nodes in this page (`count`) from node `first` of `node_count`, in outline order. */
  page?: { first: number; count: number; node_count: number };
  /** The cursor of the next page, null on the last. */
  next_cursor?: string | null;
};

/** One node in outline order, with the index of its parent in that order (-1 at the top). */
interface Placed {
  node: OutlineNode;
  parent: number;
}

/**
 * The page of `r` that `cursor` names (the first without one); `r` itself
 * when its whole tree fits one page. Throws `invalid_input` for a cursor
 * this outline did not give.
 */
export function outlinePage(r: OutlineResult, cursor?: string): OutlinePage {
  const order = outlineOrder(r.symbols);
  const first = cursor === undefined ? 0 : cursorStart(cursor, order.length);
  const end = pageEnd(order, first);
  if (first === 0 && end === order.length) return r;
  return {
    ...r,
    top_level_kinds: topLevelKinds(order),
    page: { first, count: end - first, node_count: order.length },
    symbols: pageTree(order, first, end),
    truncated: r.truncated || end < order.length,
    next_cursor: end < order.length ? `outline:${end}` : null,
  };
}

/** The node index a cursor from `next_cursor` starts at, or `invalid_input`. */
function cursorStart(cursor: string, nodes: number): number {
  const m = /^outline:(\d{1,9})$/.exec(cursor);
  const start = m ? Number(m[1]) : NaN;
  if (!(start >= 0 && start < nodes)) {
    throw new CruxeError("invalid_input", "cursor is not one this file's outline gave (pass next_cursor as it is)", {
      field: "cursor",
    });
  }
  return start;
}

/** The tree's nodes in outline order (iterative: a deeply nested generated file cannot exhaust the stack). */
function outlineOrder(roots: OutlineNode[]): Placed[] {
  const out: Placed[] = [];
  const stack: Placed[] = roots.map((node) => ({ node, parent: -1 })).reverse();
  while (stack.length) {
    const p = stack.pop()!;
    const at = out.push(p) - 1;
    for (let i = p.node.children.length - 1; i >= 0; i--) stack.push({ node: p.node.children[i], parent: at });
  }
  return out;
}

const utf8 = new TextEncoder();

/** An upper bound on the bytes a node says in a compact answer: every field it may keep, as JSON. */
function nodeBytes(n: OutlineNode): number {
  let bytes = 110; // keys, quotes, braces, line numbers and the brackets of a children list
  for (const s of [n.kind, n.name, n.signature, n.qualified_name, n.visibility]) {
    if (s) bytes += utf8.encode(JSON.stringify(s)).length;
  }
  return bytes;
}

/** Where the page from `first` ends: when the byte budget or the node cap is spent (one node at least). */
function pageEnd(order: Placed[], first: number): number {
  let end = first;
  let bytes = 0;
  while (end < order.length && end - first < OUTLINE_PAGE_MAX_NODES) {
    bytes += nodeBytes(order[end].node);
    if (bytes > OUTLINE_PAGE_BYTES && end > first) break;
    end++;
  }
  return end;
}

/** The nodes `[first, end)` as a tree: each under its parent when the parent is in the page, else at the top. */
function pageTree(order: Placed[], first: number, end: number): OutlineNode[] {
  const copies = new Map<number, OutlineNode>();
  const roots: OutlineNode[] = [];
  for (let i = first; i < end; i++) {
    const { node, parent } = order[i];
    const copy = { ...node, children: [] };
    copies.set(i, copy);
    const under = parent >= first ? copies.get(parent) : undefined;
    (under ? under.children : roots).push(copy);
  }
  return roots;
}

/** The top-level nodes of the outline counted by kind. */
function topLevelKinds(order: Placed[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { node, parent } of order) if (parent === -1) out[node.kind] = (out[node.kind] ?? 0) + 1;
  return out;
}
