/**
 * How a language's syntax tree maps to symbols and references. One spec per
 * language under `src/index/languages/`; the engine in `engine.ts` runs them.
 */
import type { Node } from "web-tree-sitter";
import type { SymbolKind } from "../../core/types.ts";

/** Context given to rules: the enclosing symbol's kind, if any. */
export interface RuleContext {
  parentKind: SymbolKind | null;
  source: string;
}

/** How one node type becomes a definition. */
export interface DefRule {
  /** The kind, or a function deciding it (null = not a definition after all). */
  kind: SymbolKind | ((node: Node, ctx: RuleContext) => SymbolKind | null);
  /** Field holding the name (default `name`), or a function returning the name. */
  name?: string | ((node: Node, ctx: RuleContext) => string | null);
  /** Field holding the body; the signature is the text before it (default `body`). */
  body?: string;
  /** Extra qualifier placed between the parent's name and this name (Go receivers). */
  qualifier?: (node: Node) => string | null;
  /** Types this definition extends / implements, for the type hierarchy. */
  heritage?: (node: Node) => { extends: string[]; implements: string[] };
  /** Visibility (public/private/...), when the language says it. */
  visibility?: (node: Node, name: string) => string | null;
  /** Node to use for lines, signature and doc instead of the matched node. */
  outer?: (node: Node) => Node;
}

/** A language: detection, grammar and extraction rules. */
export interface LanguageSpec {
  id: string;
  /** Grammar file name under `grammars/`. */
  grammar: string;
  extensions: string[];
  filenames?: string[];
  /** Interpreter names recognised in a `#!` line. */
  shebangs?: string[];
  defs: Record<string, DefRule>;
  /** Call-like node types and the field that names the callee. */
  calls?: Record<string, string[]>;
  /** Import-like node types → function returning the imported name(s). */
  imports?: Record<string, (node: Node) => string[]>;
  /** Separator in qualified names. */
  separator: string;
  /** Module part of qualified names, from the file path and tree. */
  module?: (path: string, root: Node) => string | null;
  /** Comment node types whose text, just above a definition, is its doc. */
  commentTypes?: string[];
  /** Python-style docstring: first string statement of the body. */
  docstring?: boolean;
}
