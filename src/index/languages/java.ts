/**
 * Java: package + classes, interfaces, enums, records, annotations and their
 * members, joined with `.` (`com.acme.auth.TokenService.validate`).
 */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import { childOfType, namesOfType } from "./_common.ts";

function modifiers(n: Node): string {
  return childOfType(n, ["modifiers"])?.text ?? "";
}

function visibility(n: Node): string | null {
  const m = modifiers(n.type === "variable_declarator" ? n.parent ?? n : n);
  const v = m.match(/\b(public|protected|private)\b/);
  return v ? v[1] : null;
}

const TYPE_NAMES = ["type_identifier", "scoped_type_identifier", "generic_type"];

function heritage(n: Node) {
  const strip = (s: string) => s.split(".").pop()!;
  const sup = n.childForFieldName("superclass");
  const ifaces = n.childForFieldName("interfaces");
  // Interfaces list their parents in `extends_interfaces`.
  const ext = childOfType(n, ["extends_interfaces"]);
  return {
    extends: [...namesOfType(sup, TYPE_NAMES), ...namesOfType(ext, TYPE_NAMES)].map(strip),
    implements: namesOfType(ifaces, TYPE_NAMES).map(strip),
  };
}

/** Signature of a field declarator: the declaration's modifiers and type, then this declarator. */
function fieldSignature(n: Node, source: string): string {
  const decl = n.parent!;
  const type = decl.childForFieldName("type");
  const head = type ? source.slice(decl.startIndex, type.endIndex) : "";
  const own = n.childForFieldName("value");
  const name = n.childForFieldName("name")?.text ?? "";
  return `${head.replace(/@\w+(\([^)]*\))?\s*/g, "")} ${name}${own ? " = " + own.text.slice(0, 80) : ""}`;
}

/** Annotations stay in the span; the signature starts after them. */
function signatureAfterAnnotations(n: Node, source: string): string | null {
  const body = n.childForFieldName("body");
  const end = body ? body.startIndex : Math.min(n.endIndex, n.startIndex + 400);
  const text = source.slice(n.startIndex, end).replace(
    /^\s*(@(?!interface\b)[\w.]+(\([^()]*(\([^()]*\)[^()]*)*\))?\s*)+/,
    "",
  );
  return text.replace(/[{;\s]+$/, "");
}

const member = { visibility, signature: signatureAfterAnnotations };

export const java: LanguageSpec = {
  ...languageIdentity("java"),
  separator: ".",
  commentTypes: ["block_comment", "line_comment"],
  module: (_path, root) => {
    const pkg = childOfType(root, ["package_declaration"]);
    return pkg ? childOfType(pkg, ["scoped_identifier", "identifier"])?.text ?? null : null;
  },
  defs: {
    class_declaration: { kind: "class", heritage, ...member },
    interface_declaration: { kind: "interface", heritage, ...member },
    enum_declaration: { kind: "enum", heritage, ...member },
    record_declaration: { kind: "class", heritage, ...member },
    annotation_type_declaration: { kind: "interface", ...member },
    method_declaration: { kind: "method", ...member },
    constructor_declaration: { kind: "constructor", ...member },
    compact_constructor_declaration: { kind: "constructor", ...member },
    annotation_type_element_declaration: { kind: "method", ...member },
    enum_constant: { kind: "enum_member", signature: (n) => n.childForFieldName("name")?.text ?? null },
    variable_declarator: {
      kind: (n) => {
        const decl = n.parent;
        if (decl?.type !== "field_declaration" && decl?.type !== "constant_declaration") return null;
        const m = modifiers(decl);
        const inInterface = decl.parent?.type === "interface_body";
        return decl.type === "constant_declaration" || inInterface || (/\bstatic\b/.test(m) && /\bfinal\b/.test(m))
          ? "constant"
          : "field";
      },
      visibility,
      outer: (n) => n.parent ?? n,
      signature: fieldSignature,
    },
  },
  calls: { method_invocation: ["name"], object_creation_expression: ["type"] },
  imports: {
    import_declaration: (n) => {
      const id = childOfType(n, ["scoped_identifier", "identifier"]);
      if (!id) return [];
      return [id.text + (childOfType(n, ["asterisk"]) ? ".*" : "")];
    },
  },
};
