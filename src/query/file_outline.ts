/**
 * get_file_outline: the nested symbol tree of one indexed file, read from
 * the store (no re-parse). Reads only the open index.
 */
import type { Db } from "../state/db.ts";
import { parseEnum, parseIndexPath } from "./_input_rules.ts";
import { notInIndex } from "./_path_suggestions.ts";
import { type SymbolFields, symbolFields, TYPE_KINDS } from "./_symbol_row.ts";
import { fileByPath } from "../state/read/files.ts";
import { symbolsInFile } from "../state/read/symbols.ts";

/** Inputs of get_file_outline. */
export interface OutlineInput {
  path: string;
  depth?: "top" | "all";
}

/** One node of the outline tree. */
export interface OutlineNode extends SymbolFields {
  visibility: string | null;
  children: OutlineNode[];
}

/** The answer of get_file_outline (without the protocol metadata). */
export interface OutlineResult {
  path: string;
  language: string;
  line_count: number;
  symbol_count: number;
  parse_error: string | null;
  depth: "top" | "all";
  symbols: OutlineNode[];
  truncated: boolean;
}

/** Most nodes read for one file (generated tables can hold more; answers are paged by `outline_pages.ts`). */
export const OUTLINE_MAX_NODES = 20_000;

/**
 * The symbol tree of `path` in source order; `depth: "top"` keeps only
 * top-level symbols. Throws `file_not_found` (with `data.suggestions`) for a
 * path not in the index and `invalid_input` for a bad path or depth.
 */
export function getFileOutline(db: Db, input: OutlineInput): OutlineResult {
  const path = parseIndexPath(db, input?.path);
  const depth = parseEnum(input.depth, "depth", ["top", "all"] as const, "all");
  const file = fileByPath(db, path);
  if (!file) {
    throw notInIndex(db, path);
  }
  const rows = symbolsInFile(db, path, depth === "top", OUTLINE_MAX_NODES + 1);
  const truncated = rows.length > OUTLINE_MAX_NODES;
  if (truncated) rows.length = OUTLINE_MAX_NODES;
  const nodes = new Map<number, OutlineNode>();
  for (const r of rows) nodes.set(r.id, { ...symbolFields(r), visibility: r.visibility, children: [] });
  // Go declares methods at top level with the receiver in the qualified name
  // (`pkg.Reader.Read`): in the full tree they sit under their type when it is in this file.
  const typeByQname = new Map<string, number>();
  if (depth === "all") {
    for (const r of rows) if (r.parent_id === null && TYPE_KINDS.has(r.kind)) typeByQname.set(r.qualified_name, r.id);
  }
  const roots: OutlineNode[] = [];
  for (const r of rows) {
    const node = nodes.get(r.id)!;
    let parentId = r.parent_id;
    if (parentId === null && r.kind === "method" && typeByQname.size) {
      const owner = r.qualified_name.slice(0, Math.max(0, r.qualified_name.length - r.name.length - 1));
      parentId = typeByQname.get(owner) ?? null;
    }
    const parent = parentId === null ? undefined : nodes.get(parentId);
    // A parent cut by the node cap leaves its children at the top rather than lost.
    (parent ? parent.children : roots).push(node);
  }
  return {
    path: file.path,
    language: file.language,
    line_count: file.line_count,
    symbol_count: file.symbol_count,
    parse_error: file.parse_error,
    depth,
    symbols: roots,
    truncated,
  };
}
