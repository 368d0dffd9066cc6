/** Go: packages, functions, methods (qualified by receiver), types, consts, vars. */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import { childOfType, unquote } from "./_common.ts";
import type { SymbolKind } from "../../core/types.ts";

function receiverType(node: Node): string | null {
  const recv = node.childForFieldName("receiver");
  if (!recv) return null;
  const m = recv.text.match(/([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\])?\s*\)\s*$/);
  return m ? m[1] : null;
}

function typeKind(node: Node): SymbolKind {
  const t = node.childForFieldName("type")?.type;
  if (t === "struct_type") return "struct";
  if (t === "interface_type") return "interface";
  return "type";
}

const exported = (_n: Node, name: string) => /^[A-Z]/.test(name) ? "public" : "private";

/** Every name a spec declares (`a, b = 1, 2`, `X, Y int`). */
function allNames(n: Node): string[] {
  const out: string[] = [];
  for (const c of n.childrenForFieldName("name")) {
    if (c && (c.type === "identifier" || c.type === "field_identifier")) out.push(c.text);
  }
  return out;
}

/** Field names, or for an embedded field (`struct{ io.Reader }`) the embedded type's name. */
function fieldNames(n: Node): string[] {
  const names = allNames(n);
  if (names.length) return names;
  const t = n.childForFieldName("type")?.text.replace(/^\*/, "").replace(/\[[\s\S]*$/, "");
  return t ? [t.split(".").pop()!] : [];
}

/** `type Claims struct`, `type List[T any] struct`, `type Duration int64`: the type keyword and the type's head. */
function typeSpecSignature(n: Node, source: string): string {
  const t = n.childForFieldName("type");
  if (!t) return "type " + n.text;
  const head = source.slice(n.startIndex, t.startIndex).trimEnd();
  const what = t.type === "struct_type" ? "struct" : t.type === "interface_type" ? "interface" : t.text;
  return `type ${head} ${what}`;
}

export const go: LanguageSpec = {
  ...languageIdentity("go"),
  separator: ".",
  commentTypes: ["comment"],
  module: (_path, root) => {
    const pkg = childOfType(root, ["package_clause"]);
    return pkg ? childOfType(pkg, ["package_identifier"])?.text ?? null : null;
  },
  defs: {
    function_declaration: { kind: "function", visibility: exported },
    method_declaration: { kind: "method", qualifier: receiverType, visibility: exported },
    type_spec: {
      kind: typeKind,
      signature: typeSpecSignature,
      visibility: exported,
      outer: (n) => n.parent?.type === "type_declaration" && n.parent.namedChildCount === 1 ? n.parent : n,
      heritage: (n) => {
        const t = n.childForFieldName("type");
        const embeds: string[] = [];
        if (t?.type === "struct_type") {
          for (const f of t.descendantsOfType("field_declaration")) {
            if (f && !f.childForFieldName("name")) {
              const ty = f.childForFieldName("type")?.text.replace(/^\*/, "");
              if (ty) embeds.push(ty.split(".").pop()!);
            }
          }
        }
        if (t?.type === "interface_type") {
          for (const c of t.namedChildren) {
            if (c?.type === "type_elem") embeds.push(c.text.split(".").pop()!);
          }
        }
        return { extends: embeds, implements: [] };
      },
    },
    type_alias: { kind: "type", signature: (n) => "type " + n.text, visibility: exported },
    const_spec: {
      kind: (n) =>
        n.parent?.parent?.type === "source_file" || n.parent?.type === "const_declaration" ? "constant" : null,
      names: allNames,
      signature: (n) => "const " + n.text,
      visibility: exported,
    },
    var_spec: {
      kind: (_n, ctx) => ctx.parentKind === null ? "variable" : null,
      names: allNames,
      signature: (n) => "var " + n.text.split("\n")[0],
      visibility: exported,
    },
    field_declaration: {
      // Fields of named struct types, of struct types inside other type forms, and of nested anonymous structs.
      kind: (_n, ctx) =>
        ctx.parentKind === "struct" || ctx.parentKind === "type" || ctx.parentKind === "field" ? "field" : null,
      names: fieldNames,
      signature: (n) => n.text.replace(/\s*`[^`]*`$/, ""),
      visibility: exported,
    },
    method_elem: { kind: "method", signature: (n) => n.text, visibility: exported },
  },
  calls: { call_expression: ["function"] },
  imports: { import_spec: (n) => [unquote(n.childForFieldName("path")?.text ?? "")] },
};
