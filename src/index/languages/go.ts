/** Go: packages, functions, methods (qualified by receiver), types, consts, vars. */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
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

export const go: LanguageSpec = {
  id: "go",
  grammar: "tree-sitter-go.wasm",
  extensions: [".go"],
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
      body: "type",
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
    type_alias: { kind: "type", body: "type", visibility: exported },
    const_spec: {
      kind: (n) =>
        n.parent?.parent?.type === "source_file" || n.parent?.type === "const_declaration" ? "constant" : null,
      visibility: exported,
    },
    var_spec: {
      kind: (_n, ctx) => ctx.parentKind === null ? "variable" : null,
      visibility: exported,
    },
    field_declaration: {
      kind: (n, ctx) => ctx.parentKind === "struct" && n.childForFieldName("name") ? "field" : null,
      body: "type",
      visibility: exported,
    },
    method_elem: { kind: "method", body: "parameters", visibility: exported },
  },
  calls: { call_expression: ["function"] },
  imports: { import_spec: (n) => [unquote(n.childForFieldName("path")?.text ?? "")] },
};
