/**
 * The ref-comparing answers from ref names: check the refs, find the merge
 * base when asked, open each ref's view through `openRefView` (the one place
 * a ref becomes a view), and run `diffContext` / `compareSymbol` (the query
 * layer compares two views; it never resolves a ref). The tools call these.
 */
import { diffContext, type DiffContextResult } from "../query/diff_context.ts";
import { compareSymbol, type CompareSymbolResult } from "../query/compare_symbol.ts";
import { mergeBaseOf, openRefView, parseRef, type RefSource } from "./ref_views.ts";

/** Inputs of diff_context by ref name. */
export interface DiffRefsInput {
  base_ref: unknown;
  /** Default: the live working tree. */
  head_ref?: unknown;
  path_prefix?: string;
  max_tokens?: number;
  /** Compare from the merge base of base_ref and head_ref (`git merge-base`) instead of base_ref itself. */
  merge_base?: boolean;
}

/**
 * diff_context between two refs of the project of `src`. Throws
 * `invalid_input` (a missing or malformed ref), `merge_base_failed`,
 * `ref_not_indexed`, and what `diffContext` throws.
 */
export async function diffRefs(src: RefSource, input: DiffRefsInput): Promise<DiffContextResult> {
  const baseRef = parseRef(input.base_ref, "base_ref", true)!;
  const headRef = parseRef(input.head_ref, "head_ref");
  const head = await openRefView(src, headRef);
  if (!input.merge_base) {
    const base = await openRefView(src, baseRef);
    return await diffContext(base, head, { path_prefix: input.path_prefix, max_tokens: input.max_tokens });
  }
  const commit = await mergeBaseOf(src, baseRef, headRef);
  const base = await openRefView(src, commit);
  return await diffContext(base, head, {
    path_prefix: input.path_prefix,
    max_tokens: input.max_tokens,
    merge_base: { commit_id: commit, base_ref: baseRef, head_ref: headRef ?? head.label },
  });
}

/** Inputs of compare_symbol_between_commits by ref name. */
export interface CompareRefsInput {
  symbol_name?: string;
  symbol_id?: string;
  path?: string;
  base_ref: unknown;
  /** Default: the live working tree. */
  head_ref?: unknown;
}

/**
 * compare_symbol_between_commits between two refs of the project of `src`.
 * Throws `invalid_input`, `ref_not_indexed`, and what `compareSymbol` throws.
 */
export async function compareRefs(src: RefSource, input: CompareRefsInput): Promise<CompareSymbolResult> {
  const baseRef = parseRef(input.base_ref, "base_ref", true)!;
  const headRef = parseRef(input.head_ref, "head_ref");
  const head = await openRefView(src, headRef);
  const base = await openRefView(src, baseRef);
  return await compareSymbol(base, head, {
    symbol_name: input.symbol_name,
    symbol_id: input.symbol_id,
    path: input.path,
  });
}
