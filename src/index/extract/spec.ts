/**
 * How a language's syntax tree maps to symbols and references. One spec per
 * language under `src/index/languages/`; the engine in `engine.ts` runs them.
 *
 * Conventions every spec follows:
 * - `line_start` is the first line of the declaration *including* its
 *   decorators, annotations, attributes and export wrapper (`@cached`,
 *   `#[derive]`, `@Override`, `export`), so a span read from the index shows
 *   them; `line_end` is its last line. Tools such as ctags report the line of
 *   the name instead; `scripts/ctags_compare.ts` compares against that.
 * - Qualified-name separators: `.` for Go, Python, TS/JS, Java, C#, Scala,
 *   Elixir, Haskell and C struct members; `::` for Rust and C++; Ruby joins
 *   modules/classes with `::`, instance methods with `#` and singleton
 *   methods with `.` (`Auth::Token#valid?`, `Auth::Token.parse`); PHP joins
 *   namespaces and top-level names with `\` and class members with `::`
 *   (`App\Auth\TokenService::validate`).
 * - Rust module paths come from the file path (`src/auth/jwt.rs` →
 *   `auth::jwt`; `lib.rs`/`main.rs`/`mod.rs` name their directory); an
 *   `impl` block is a symbol named after its type, and its methods are
 *   `Type::method`.
 */
import type { Node } from "web-tree-sitter";
import type { SymbolKind } from "../../core/types.ts";
import type { LanguageIdentity } from "../../core/languages.ts";

/** Context given to rules: the enclosing symbol's kind and name, if any. */
export interface RuleContext {
  parentKind: SymbolKind | null;
  parentName: string | null;
  source: string;
}

/** A call site rule: fields naming the callee (first present wins), or a function returning the callee name. */
export type CallRule = string[] | ((node: Node) => string | null);

/** How one node type becomes a definition. */
export interface DefRule {
  /** The kind, or a function deciding it (null = not a definition after all). */
  kind: SymbolKind | ((node: Node, ctx: RuleContext) => SymbolKind | null);
  /** Field holding the name (default `name`), or a function returning the name. */
  name?: string | ((node: Node, ctx: RuleContext) => string | null);
  /** The definition encloses no others: definitions inside it keep the outer parent (C `typedef struct {..} T`). */
  leaf?: boolean;
  /** Several names declared by one node (`a, b int`): one symbol each. Overrides `name`. */
  names?: (node: Node, ctx: RuleContext) => string[];
  /** Field holding the body; the signature is the text before it (default `body`). */
  body?: string;
  /** Extra qualifier placed between the parent's name and this name (Go receivers). */
  qualifier?: (node: Node) => string | null;
  /** Types this definition extends / implements, for the type hierarchy. */
  heritage?: (node: Node) => { extends: string[]; implements: string[] };
  /** Visibility (public/private/...), when the language says it. */
  visibility?: (node: Node, name: string) => string | null;
  /** Node to use for line_start and doc instead of the matched node. */
  outer?: (node: Node) => Node;
  /** Separator placed before this name in the qualified name (default: the spec's). */
  joiner?: string | ((node: Node) => string);
  /** Last node of the definition when it spans several sibling nodes (Haskell equations). */
  until?: (node: Node) => Node;
  /** The definition ends on its last line with text: the grammar's node runs on over the blank lines after it. */
  endsAtText?: boolean;
  /** Custom one-line signature (null falls back to the text before the body). */
  signature?: (node: Node, source: string) => string | null;
}

/** A language: detection, grammar and extraction rules. */
export interface LanguageSpec extends LanguageIdentity {
  defs: Record<string, DefRule>;
  /** Call-like node types and how to find the callee. */
  calls?: Record<string, CallRule>;
  /** Import-like node types → function returning the imported name(s). */
  imports?: Record<string, (node: Node) => string[]>;
  /** Node types that may be a name read in an expression (`use` references) → whether this one is. */
  uses?: Record<string, (node: Node) => boolean>;
  /** Separator in qualified names. */
  separator: string;
  /** Module part of qualified names, from the file path and tree. */
  module?: (path: string, root: Node) => string | null;
  /** Comment node types whose text, just above a definition, is its doc. */
  commentTypes?: string[];
  /** Which comments count as documentation (default: all of `commentTypes`); a rejected one ends the doc block. */
  isDoc?: (text: string) => boolean;
  /** Documentation found some other way (Elixir `@doc`); tried before comments. */
  doc?: (node: Node, source: string) => string | null;
  /** Python-style docstring: first string statement of the body. */
  docstring?: boolean;
  /**
   * The version of these rules (default 1), raised when a change to them changes what an unchanged file
   * gives: a store built with another version re-parses this language's files at its next whole-tree sync
   * (`rules_versions` in its meta).
   */
  rulesVersion?: number;
  /**
   * The text the parser reads in place of the source, of the same length so that every position is the
   * source's (C and C++ blank out annotation macros the grammar would take for a name).
   */
  parseText?: (source: string) => string;
}
