/**
 * Rust: items, impl blocks (`Type::method`), traits, modules from the file
 * path (`src/auth/jwt.rs` → `auth::jwt`; `lib.rs`, `main.rs` and `mod.rs`
 * name their directory) and inline `mod` blocks.
 */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import { namesOfType } from "./_common.ts";

/** Module path of a Rust file: the part after the last `src/`, without lib/main/mod. */
export function rustModulePath(path: string): string | null {
  let parts = path.replace(/\.rs$/, "").split("/").filter(Boolean);
  const src = parts.lastIndexOf("src");
  if (src >= 0) parts = parts.slice(src + 1);
  const last = parts[parts.length - 1];
  if (last === "mod" || (src >= 0 && parts.length === 1 && (last === "lib" || last === "main"))) parts.pop();
  return parts.length ? parts.join("::") : null;
}

/**
 * The type an impl block is for, as ctags names it: generics, references,
 * pointers and slice brackets removed (`impl<T> Tr for &'a [Foo<T>]` → `Foo`);
 * for types without a name (`()`, `!`) the trait's name.
 */
function implTypeName(n: Node): string | null {
  const t = n.childForFieldName("type");
  if (!t) return null;
  let text = t.text;
  for (let prev = ""; prev !== text;) {
    prev = text;
    text = text.replace(/^\s*(&\s*('\w+\s*)?(mut\s+)?|\*\s*(const|mut)\s+|dyn\s+|\[|\()/, "");
  }
  const m = text.match(/^[A-Za-z_]\w*(\s*::\s*[A-Za-z_]\w*)*/);
  if (m) return m[0].split("::").pop()!.trim();
  return n.childForFieldName("trait")?.text.replace(/<[\s\S]*$/, "").split("::").pop() ?? null;
}

/** Attributes (`#[derive(..)]`) directly above an item belong to its span. */
function withAttributes(n: Node): Node {
  let first = n;
  let prev = n.previousNamedSibling;
  while (prev && prev.type === "attribute_item") {
    first = prev;
    prev = prev.previousNamedSibling;
  }
  return first;
}

function visibility(n: Node): string | null {
  for (const c of n.namedChildren) {
    if (c?.type === "visibility_modifier") return c.text.replace(/\s+/g, "");
  }
  // Items of a trait, or of a trait's impl, are as visible as the trait.
  const owner = n.parent?.parent;
  if (owner?.type === "trait_item" || (owner?.type === "impl_item" && owner.childForFieldName("trait"))) return null;
  return "private";
}

/** Expands a `use` argument into the paths it brings in (`a::{b, c::d}` → `a::b`, `a::c::d`). */
export function expandUse(text: string): string[] {
  const t = text.replace(/\s+/g, "");
  const open = t.indexOf("{");
  if (open < 0) return [t.replace(/::self$/, "")];
  const head = t.slice(0, open);
  const inner = t.slice(open + 1, t.lastIndexOf("}"));
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= inner.length; i++) {
    const c = inner[i];
    if (c === "{") depth++;
    else if (c === "}") depth--;
    else if ((c === "," && depth === 0) || i === inner.length) {
      const part = inner.slice(start, i);
      if (part) { for (const p of expandUse(part)) out.push(p === "self" ? head.replace(/::$/, "") : head + p); }
      start = i + 1;
    }
  }
  return out;
}

const item = { visibility, outer: withAttributes };
const firstLine = (n: Node) => n.text.split("\n")[0].replace(/[;{\s]+$/, "");

export const rust: LanguageSpec = {
  ...languageIdentity("rust"),
  separator: "::",
  commentTypes: ["line_comment", "block_comment"],
  // Outer doc comments only: `//!` documents the enclosing module, plain `//` is not documentation.
  isDoc: (text) => /^(\/\/\/(?!\/)|\/\*\*(?!\*))/.test(text),
  module: (path) => rustModulePath(path),
  defs: {
    function_item: { kind: "function", ...item },
    function_signature_item: { kind: "function", ...item },
    struct_item: { kind: "struct", ...item },
    union_item: { kind: "struct", ...item },
    enum_item: { kind: "enum", ...item },
    enum_variant: { kind: "enum_member", outer: withAttributes },
    trait_item: {
      kind: "trait",
      ...item,
      heritage: (n) => ({
        extends: namesOfType(n.childForFieldName("bounds"), ["type_identifier", "scoped_type_identifier"])
          .map((s) => s.split("::").pop()!),
        implements: [],
      }),
    },
    impl_item: {
      kind: "impl",
      name: implTypeName,
      outer: withAttributes,
      heritage: (n) => {
        const tr = n.childForFieldName("trait");
        const name = tr?.text.replace(/<[\s\S]*$/, "").split("::").pop();
        return { extends: [], implements: name ? [name] : [] };
      },
    },
    mod_item: { kind: "module", ...item },
    macro_definition: {
      kind: "macro",
      outer: withAttributes,
      signature: (n) => `macro_rules! ${n.childForFieldName("name")?.text}`,
    },
    const_item: { kind: "constant", signature: firstLine, ...item },
    static_item: { kind: "variable", signature: firstLine, ...item },
    type_item: { kind: "type", ...item },
    associated_type: { kind: "type", outer: withAttributes },
    field_declaration: {
      kind: (_n, ctx) => ctx.parentKind === "struct" ? "field" : null,
      body: "type",
      ...item,
      signature: (n) => n.text,
    },
  },
  calls: { call_expression: ["function"], macro_invocation: ["macro"] },
  imports: {
    use_declaration: (n) => {
      const arg = n.childForFieldName("argument");
      return arg ? expandUse(arg.text.replace(/\s+as\s+\w+/g, "")) : [];
    },
  },
};
