/**
 * The one way query code turns a symbol row (`SymbolRow`, read through
 * `src/state/read/`) into the result fields every navigation tool shares
 * (handles, location, identity), and the kind sets relations use.
 */
import type { SymbolRow } from "../state/read/rows.ts";

/** The symbol fields of every navigation result (stable follow-up handles): a symbol row's identity and place. */
export type SymbolFields =
  & Pick<SymbolRow, "path" | "line_start" | "line_end" | "kind" | "name" | "qualified_name" | "signature" | "language">
  & { symbol_id: string; symbol_stable_id: string };

/** Maps a row to the shared result fields. */
export function symbolFields(r: SymbolRow): SymbolFields {
  return {
    symbol_id: r.symbol_id,
    symbol_stable_id: r.stable_id,
    path: r.path,
    line_start: r.line_start,
    line_end: r.line_end,
    kind: r.kind,
    name: r.name,
    qualified_name: r.qualified_name,
    signature: r.signature,
    language: r.language,
  };
}

/** Kinds that name a type (targets of extends / implements). */
export const TYPE_KINDS = new Set(["class", "struct", "interface", "trait", "enum", "type", "impl"]);

/** Kinds whose body is code that runs (callers and callees hang off these). */
export const CALLABLE_KINDS = new Set(["function", "method", "constructor", "macro"]);

/** Directory part of a repository-relative path ("" at the root). */
export function dirOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/** Plain code-unit order (stable across locales, and much cheaper than localeCompare). */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
