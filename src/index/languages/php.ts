/**
 * PHP: namespaces and types joined with `\` (`App\Models\User`), members with
 * `::` (`App\Models\User::find`, properties without `$`).
 */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import { childOfType, namesOfType, unquote } from "./_common.ts";

function visibility(n: Node): string | null {
  const host = n.type === "property_element" || n.type === "const_element" ? n.parent ?? n : n;
  return childOfType(host, ["visibility_modifier"])?.text ?? null;
}

const member = { joiner: "::", visibility };

function signature(n: Node, source: string): string | null {
  const body = n.childForFieldName("body");
  const attrs = n.childForFieldName("attributes");
  const start = attrs ? attrs.endIndex : n.startIndex;
  const end = body ? body.startIndex : Math.min(n.endIndex, n.startIndex + 400);
  return source.slice(start, end).replace(/[{;\s]+$/, "");
}

function heritage(n: Node) {
  const base = childOfType(n, ["base_clause"]);
  const impl = childOfType(n, ["class_interface_clause"]);
  const last = (s: string) => s.split("\\").pop()!;
  // Traits used in the body (`use LogsActivity;`) count as implemented, like interfaces.
  const traits: string[] = [];
  for (const c of n.childForFieldName("body")?.namedChildren ?? []) {
    if (c?.type === "use_declaration") traits.push(...namesOfType(c, ["name", "qualified_name"]).map(last));
  }
  return {
    extends: namesOfType(base, ["name", "qualified_name"]).map(last),
    implements: [...namesOfType(impl, ["name", "qualified_name"]).map(last), ...traits],
  };
}

function useClauses(n: Node): string[] {
  const group = n.parent?.type === "namespace_use_group" ? n.parent : null;
  const prefix = group ? childOfType(group.parent!, ["namespace_name"])?.text ?? "" : "";
  const target = childOfType(n, ["qualified_name", "name", "namespace_name"]);
  if (!target) return [];
  return [prefix ? `${prefix}\\${target.text}` : target.text.replace(/^\\/, "")];
}

const INCLUDES = ["include_expression", "include_once_expression", "require_expression", "require_once_expression"];

export const php: LanguageSpec = {
  ...languageIdentity("php"),
  separator: "\\",
  commentTypes: ["comment"],
  module: (_path, root) => {
    const ns = childOfType(root, ["namespace_definition"]);
    return ns && !ns.childForFieldName("body") ? ns.childForFieldName("name")?.text ?? null : null;
  },
  defs: {
    namespace_definition: { kind: (n) => n.childForFieldName("body") ? "namespace" : null },
    class_declaration: { kind: "class", heritage, visibility, signature },
    interface_declaration: {
      kind: "interface",
      signature,
      heritage: (n) => ({ extends: heritage(n).extends, implements: [] }),
    },
    trait_declaration: { kind: "trait", signature },
    enum_declaration: { kind: "enum", heritage, signature },
    function_definition: { kind: "function", signature },
    method_declaration: {
      kind: (n) => n.childForFieldName("name")?.text === "__construct" ? "constructor" : "method",
      signature,
      ...member,
    },
    property_element: {
      kind: "property",
      name: (n) => n.childForFieldName("name")?.text.replace(/^\$/, "") ?? null,
      outer: (n) => n.parent ?? n,
      signature: (n) => n.parent!.text.replace(/;$/, ""),
      ...member,
    },
    const_element: {
      kind: "constant",
      name: (n) => childOfType(n, ["name"])?.text ?? null,
      outer: (n) => n.parent ?? n,
      signature: (n) => n.parent!.text.replace(/;$/, ""),
      joiner: (n) => n.parent?.parent?.type === "declaration_list" ? "::" : "\\",
      visibility,
    },
    enum_case: { kind: "enum_member", joiner: "::", signature: (n) => n.text.replace(/;$/, "") },
  },
  calls: {
    function_call_expression: ["function"],
    member_call_expression: ["name"],
    nullsafe_member_call_expression: ["name"],
    scoped_call_expression: ["name"],
    object_creation_expression: (n) => {
      const cls = childOfType(n, ["name", "qualified_name"]);
      return cls ? cls.text.split("\\").pop()! : null;
    },
  },
  imports: {
    namespace_use_clause: useClauses,
    ...Object.fromEntries(INCLUDES.map((t) => [t, (n: Node) => {
      const s = n.namedChildren.find((c) => c?.type === "string" || c?.type === "encapsed_string");
      return s ? [unquote(s.text)] : [];
    }])),
  },
};
