/**
 * C#: namespaces (block and file-scoped), types and members joined with `.`
 * (`Acme.Auth.TokenService.Validate`).
 */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import { childOfType } from "./_common.ts";

function visibility(n: Node): string | null {
  const host = n.type === "variable_declarator" ? n.parent?.parent ?? n : n;
  const mods: string[] = [];
  for (const c of host.namedChildren) if (c?.type === "modifier") mods.push(c.text);
  const v = mods.filter((m) => /^(public|private|protected|internal)$/.test(m));
  return v.length ? v.join(" ") : null;
}

/**
 * Base types. The syntax does not say which base is a class, so by .NET naming
 * convention `I[A-Z]...` names are implemented interfaces and the rest extend.
 */
function heritage(n: Node) {
  const base = childOfType(n, ["base_list"]);
  const ext: string[] = [];
  const impl: string[] = [];
  for (const c of base?.namedChildren ?? []) {
    if (!c || c.type === "argument_list") continue;
    const name = c.text.replace(/<[\s\S]*$/, "").split(".").pop()!.trim();
    if (!name) continue;
    if (/^I[A-Z]/.test(name)) impl.push(name);
    else ext.push(name);
  }
  return { extends: ext, implements: impl };
}

/** Signature without leading attribute lists (they stay in the span). */
function signature(n: Node, source: string): string | null {
  let start = n.startIndex;
  for (const c of n.namedChildren) {
    if (c?.type === "attribute_list") start = c.endIndex;
    else break;
  }
  const body = n.childForFieldName("body") ?? childOfType(n, ["accessor_list", "arrow_expression_clause"]);
  const end = body ? body.startIndex : Math.min(n.endIndex, n.startIndex + 400);
  return source.slice(start, end).replace(/[{;\s]+$/, "");
}

function declaratorSignature(n: Node): string {
  const decl = n.parent!; // variable_declaration
  const type = decl.childForFieldName("type")?.text ?? "";
  const mods = decl.parent?.namedChildren.filter((c) => c?.type === "modifier").map((c) => c!.text).join(" ") ?? "";
  return `${mods} ${type} ${n.childForFieldName("name")?.text ?? ""}`.trim();
}

const member = { visibility, signature };

export const csharp: LanguageSpec = {
  ...languageIdentity("csharp"),
  separator: ".",
  commentTypes: ["comment"],
  module: (_path, root) => {
    const ns = childOfType(root, ["file_scoped_namespace_declaration"]);
    return ns?.childForFieldName("name")?.text ?? null;
  },
  defs: {
    namespace_declaration: { kind: "namespace" },
    class_declaration: { kind: "class", heritage, ...member },
    struct_declaration: { kind: "struct", heritage, ...member },
    interface_declaration: {
      kind: "interface",
      ...member,
      heritage: (n) => {
        const h = heritage(n);
        return { extends: [...h.extends, ...h.implements], implements: [] };
      },
    },
    enum_declaration: { kind: "enum", ...member },
    record_declaration: { kind: "class", heritage, ...member },
    record_struct_declaration: { kind: "struct", heritage, ...member },
    delegate_declaration: { kind: "type", ...member },
    method_declaration: { kind: "method", ...member },
    constructor_declaration: { kind: "constructor", ...member },
    destructor_declaration: { kind: "method", name: (n) => "~" + (n.childForFieldName("name")?.text ?? ""), ...member },
    operator_declaration: {
      kind: "method",
      name: (n) => "operator " + (n.childForFieldName("operator")?.text ?? ""),
      ...member,
    },
    property_declaration: { kind: "property", ...member },
    indexer_declaration: { kind: "property", name: () => "this[]", ...member },
    event_declaration: { kind: "field", ...member },
    enum_member_declaration: { kind: "enum_member", signature: (n) => n.text },
    variable_declarator: {
      kind: (n) => {
        const holder = n.parent?.parent;
        if (holder?.type !== "field_declaration" && holder?.type !== "event_field_declaration") return null;
        return holder.namedChildren.some((c) => c?.type === "modifier" && c.text === "const") ? "constant" : "field";
      },
      visibility,
      outer: (n) => n.parent?.parent ?? n,
      signature: declaratorSignature,
    },
  },
  calls: { invocation_expression: ["function"], object_creation_expression: ["type"] },
  imports: {
    // `using A.B;`, `using static A.B;`, `using X = A.B;`: the imported name is the last child.
    using_directive: (n) => {
      const t = n.namedChildren[n.namedChildCount - 1];
      return t ? [t.text] : [];
    },
  },
};
