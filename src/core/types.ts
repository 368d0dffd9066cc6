/** The vocabulary shared by every layer: symbols, references, chunks, files. */

/** One normalized symbol kind vocabulary across languages. */
export const SYMBOL_KINDS = [
  "function",
  "method",
  "constructor",
  "class",
  "struct",
  "interface",
  "trait",
  "enum",
  "enum_member",
  "type",
  "constant",
  "variable",
  "field",
  "property",
  "module",
  "namespace",
  "impl",
  "macro",
] as const;

/** A normalized symbol kind. */
export type SymbolKind = typeof SYMBOL_KINDS[number];

/** Short or language-specific kind names clients may send, mapped to ours. */
export const KIND_ALIASES: Record<string, SymbolKind> = {
  fn: "function",
  func: "function",
  def: "function",
  const: "constant",
  var: "variable",
  let: "variable",
  mod: "module",
  package: "module",
  iface: "interface",
  ctor: "constructor",
  typedef: "type",
  type_alias: "type",
  member: "field",
  object: "class",
  record: "class",
  union: "struct",
  protocol: "interface",
};

/** Maps a client-supplied kind to ours, or undefined if unknown. */
export function normalizeKind(kind: string): SymbolKind | undefined {
  const k = kind.trim().toLowerCase();
  if ((SYMBOL_KINDS as readonly string[]).includes(k)) return k as SymbolKind;
  return KIND_ALIASES[k];
}

/** A definition extracted from one file. `parent` is an index into the same file's list. */
export interface ExtractedSymbol {
  name: string;
  kind: SymbolKind;
  qualifiedName: string;
  signature: string;
  lineStart: number; // 1-based, inclusive
  lineEnd: number;
  parent: number | null;
  visibility: string | null;
  doc: string | null;
}

/** Relation kinds stored in the edges table. */
export type EdgeKind = "imports" | "calls" | "extends" | "implements";

/** A reference from a file (and the enclosing symbol) to a name. */
export interface ExtractedRef {
  kind: EdgeKind;
  target: string; // the referenced name (callee, imported module, base type)
  line: number;
  from: number | null; // index of the enclosing symbol
}

/** Everything extraction produces for one file. */
export interface FileExtraction {
  symbols: ExtractedSymbol[];
  refs: ExtractedRef[];
  parseError: string | null; // set when the tree had errors or parsing failed
}
