/** The vocabulary shared by every layer: symbols, references, chunks, files. */

/** One normalized symbol kind vocabulary across languages (append only: a kind's position is its stored code). */
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

/**
 * How an identifier occurrence uses the symbol it names (`use`: a name read in
 * an expression, such as Kconfig's `depends on FOO`). Stored as the index
 * into this list, so entries are only ever appended.
 */
export const REFERENCE_KINDS = ["call", "type", "import", "inherit", "attribute", "use"] as const;

/** A kind of identifier occurrence. */
export type ReferenceKind = typeof REFERENCE_KINDS[number];

/**
 * One identifier occurrence that refers to another symbol by name: a callee,
 * a type use, an imported name, a base type, an attribute or field access.
 */
export interface ExtractedOccurrence {
  name: string;
  kind: ReferenceKind;
  line: number; // 1-based
  column: number; // 1-based, in UTF-16 code units
  /**
   * What the name is reached through: null for a bare name, the identifier
   * for `q.name` when `q` is one (`self`, `fmt`, `os`), "" for any other
   * expression (`a().name`).
   */
  qualifier: string | null;
  from: number | null; // index of the enclosing symbol
  /** What the file's own declarations say the qualifier (or a bare callee) is, where the language has a rule. */
  hint?: string | null;
}

/** Everything extraction produces for one file. */
export interface FileExtraction {
  symbols: ExtractedSymbol[];
  refs: ExtractedRef[];
  /** Identifier occurrences (absent for languages without full symbols). */
  occurrences?: ExtractedOccurrence[];
  parseError: string | null; // set when the tree had errors or parsing failed
}
