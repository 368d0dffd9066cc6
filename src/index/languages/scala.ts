/** Scala: package + classes, objects, traits, enums and members joined with `.`. */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec, RuleContext } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import type { SymbolKind } from "../../core/types.ts";
import { childOfType, namesOfType } from "./_common.ts";

function visibility(n: Node): string | null {
  const m = childOfType(n, ["modifiers"])?.text ?? "";
  const v = m.match(/\b(private|protected)\b/);
  return v ? v[1] : "public";
}

function heritage(n: Node) {
  const ext = n.childForFieldName("extend");
  return {
    extends: namesOfType(ext, ["type_identifier", "stable_type_identifier"]).map((s) => s.split(".").pop()!),
    implements: [],
  };
}

/**
 * The last token of a definition. Indentation-based bodies (`indented_block`)
 * run on to the next definition; the last token is where the code ends.
 */
function lastToken(n: Node): Node {
  let cur = n;
  for (let i = 0; i < 64; i++) {
    const last = cur.lastChild;
    if (!last) break;
    cur = last;
  }
  return cur;
}

function valueKind(n: Node, ctx: RuleContext): SymbolKind | null {
  if (n.childForFieldName("pattern")?.type !== "identifier") return null;
  if (ctx.parentKind === null) return n.type.startsWith("val") ? "constant" : "variable";
  if (ctx.parentKind === "function" || ctx.parentKind === "method") return null;
  return "field";
}

function valueSignature(n: Node, source: string): string {
  const v = n.childForFieldName("value");
  return source.slice(n.startIndex, v ? v.startIndex : n.endIndex).replace(/[=\s]+$/, "");
}

const value = {
  kind: valueKind,
  until: lastToken,
  name: (n: Node) => n.childForFieldName("pattern")?.text ?? null,
  visibility,
  signature: valueSignature,
};

export const scala: LanguageSpec = {
  ...languageIdentity("scala"),
  separator: ".",
  commentTypes: ["block_comment", "comment"],
  module: (_path, root) => {
    const parts: string[] = [];
    for (const c of root.namedChildren) {
      if (c?.type === "package_clause" && !c.childForFieldName("body")) {
        parts.push(c.childForFieldName("name")?.text ?? "");
      }
    }
    return parts.filter(Boolean).join(".") || null;
  },
  defs: {
    package_clause: { kind: (n) => n.childForFieldName("body") ? "namespace" : null },
    class_definition: { until: lastToken, kind: "class", heritage, visibility },
    object_definition: { until: lastToken, kind: "class", heritage, visibility },
    trait_definition: { until: lastToken, kind: "trait", heritage, visibility },
    enum_definition: { until: lastToken, kind: "enum", heritage, visibility },
    simple_enum_case: { kind: "enum_member", signature: (n) => n.text },
    full_enum_case: { kind: "enum_member" },
    function_definition: { until: lastToken, kind: "function", visibility },
    function_declaration: { kind: "function", visibility },
    type_definition: { kind: "type", visibility, body: "type" },
    val_definition: value,
    var_definition: value,
    val_declaration: value,
    var_declaration: value,
  },
  calls: {
    call_expression: ["function"],
    instance_expression: (n) => childOfType(n, ["type_identifier"])?.text ?? null,
  },
  imports: {
    import_declaration: (n) => {
      const path = n.namedChildren.filter((c) => c?.type === "identifier").map((c) => c!.text).join(".");
      const sel = childOfType(n, ["namespace_selectors"]);
      if (!sel) return [path + (childOfType(n, ["namespace_wildcard"]) ? "._" : "")];
      // `{Map => MMap}` imports Map.
      return sel.namedChildren.map((c) => c?.type === "arrow_renamed_identifier" ? c.childForFieldName("name") : c)
        .filter((c) => c?.type === "identifier").map((c) => `${path}.${c!.text}`);
    },
  },
};
