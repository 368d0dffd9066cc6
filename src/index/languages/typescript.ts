/** TypeScript, TSX and JavaScript (one rule set; the grammars share node types). */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import type { SymbolKind } from "../../core/types.ts";
import { namesOfType, pathStem, unquote } from "./_common.ts";

function exportOuter(n: Node): Node {
  return n.parent?.type === "export_statement" ? n.parent : n;
}

function declaratorKind(n: Node, ctx: { parentKind: SymbolKind | null }): SymbolKind | null {
  const decl = n.parent; // lexical_declaration / variable_declaration
  const scope = decl?.parent?.type;
  if (scope !== "program" && scope !== "export_statement" && scope !== "statement_block") return null;
  if (scope === "statement_block" && ctx.parentKind !== null) return null;
  const value = n.childForFieldName("value")?.type;
  if (value === "arrow_function" || value === "function_expression" || value === "function") return "function";
  if (value === "class") return "class";
  const name = n.childForFieldName("name");
  if (name?.type !== "identifier") return null;
  return decl?.text.startsWith("const") && /^[A-Z][A-Z0-9_]*$/.test(name.text) ? "constant" : "variable";
}

/**
 * `const handler = async (req) =>` for function-valued declarators; the
 * declaration keyword and the declarator up to the value otherwise.
 */
function declaratorSignature(n: Node, source: string): string {
  const decl = n.parent;
  const keyword = decl?.type === "lexical_declaration" || decl?.type === "variable_declaration"
    ? (decl.text.match(/^(export\s+)?(declare\s+)?(const|let|var|using)\b/)?.[3] ?? "")
    : "";
  const value = n.childForFieldName("value");
  let text: string;
  if (value && (value.type === "arrow_function" || value.type === "function_expression" || value.type === "function")) {
    const body = value.childForFieldName("body");
    text = source.slice(n.startIndex, body ? body.startIndex : value.endIndex).replace(/[\s{]+$/, "");
  } else {
    // Plain values keep their first line (`const MAX_RETRIES = 3`), cut by the engine when long.
    text = source.slice(n.startIndex, n.endIndex).split("\n")[0].replace(/[=\s{([]+$/, "");
  }
  return keyword ? `${keyword} ${text}` : text;
}

function heritage(n: Node) {
  const ext: string[] = [];
  const impl: string[] = [];
  for (const c of n.namedChildren) {
    if (c?.type === "class_heritage") {
      for (const h of c.namedChildren) {
        if (h?.type === "extends_clause") {
          ext.push(...namesOfType(h, ["identifier", "type_identifier", "member_expression"]));
        } else if (h?.type === "implements_clause") {
          impl.push(...namesOfType(h, ["type_identifier", "nested_type_identifier"]));
        } else if (h) ext.push(...namesOfType(h, ["identifier", "member_expression"]));
      }
    }
    if (c?.type === "extends_type_clause") ext.push(...namesOfType(c, ["type_identifier", "nested_type_identifier"]));
  }
  return { extends: ext.map((s) => s.split(".").pop()!), implements: impl.map((s) => s.split(".").pop()!) };
}

const accessibility = (n: Node) => {
  const m = n.namedChildren.find((c) => c?.type === "accessibility_modifier");
  if (m) return m.text;
  return n.childForFieldName("name")?.type === "private_property_identifier" ? "private" : null;
};

const rules: LanguageSpec["defs"] = {
  function_declaration: { kind: "function", outer: exportOuter },
  generator_function_declaration: { kind: "function", outer: exportOuter },
  function_signature: { kind: "function", outer: exportOuter },
  class_declaration: { kind: "class", outer: exportOuter, heritage },
  abstract_class_declaration: { kind: "class", outer: exportOuter, heritage },
  interface_declaration: { kind: "interface", outer: exportOuter, heritage },
  type_alias_declaration: { kind: "type", outer: exportOuter, body: "value" },
  enum_declaration: { kind: "enum", outer: exportOuter },
  internal_module: { kind: "namespace", outer: exportOuter },
  module: { kind: "namespace", outer: exportOuter },
  method_definition: {
    kind: (n) => n.childForFieldName("name")?.text === "constructor" ? "constructor" : "method",
    visibility: accessibility,
  },
  abstract_method_signature: { kind: "method", visibility: accessibility },
  method_signature: { kind: "method" },
  property_signature: { kind: "property" },
  public_field_definition: { kind: "field", body: "value", visibility: accessibility },
  field_definition: { kind: "field", name: "property", body: "value" },
  variable_declarator: {
    kind: declaratorKind,
    signature: declaratorSignature,
    outer: (n) => exportOuter(n.parent ?? n),
  },
  enum_assignment: { kind: "enum_member" },
  // `var Api = { load: function () {…}, save: (x) => … }`: functions stored in an object literal that is
  // itself named (a variable, an assignment such as `Foo.prototype = {…}`, or an outer pair).
  pair: { kind: pairKind, name: pairName, signature: pairSignature },
  // `Foo.prototype.bar = function () {…}`, `window.Widget = {…}`, `exports.load = (x) => …` at statement level.
  assignment_expression: {
    kind: assignmentKind,
    name: (n) => assignedName(n)?.name ?? null,
    qualifier: (n) => assignedName(n)?.owner ?? null,
    signature: (n, source) => {
      const right = n.childForFieldName("right");
      const body = right && FUNCTION_VALUES.has(right.type) ? right.childForFieldName("body") : null;
      const end = body ? body.startIndex : Math.min(n.endIndex, (right?.startIndex ?? n.endIndex) + 1);
      return source.slice(n.startIndex, end).split("\n")[0].replace(/[\s{=]+$/, "");
    },
  },
};

const FUNCTION_VALUES = new Set(["function_expression", "function", "arrow_function", "generator_function"]);
const NAMED_OBJECT_OWNERS = new Set(["variable_declarator", "assignment_expression", "pair"]);

function pairKind(n: Node): SymbolKind | null {
  const value = n.childForFieldName("value");
  if (!value || !FUNCTION_VALUES.has(value.type)) return null;
  const owner = n.parent?.type === "object" ? n.parent.parent?.type : undefined;
  return owner && NAMED_OBJECT_OWNERS.has(owner) ? "method" : null;
}

/** Owners that say where a value lives rather than what it belongs to. */
const GLOBAL_OWNERS = new Set([
  "window",
  "globalThis",
  "global",
  "self",
  "module",
  "exports",
  "module.exports",
  "this",
]);

/** `a.b.prototype.c = …` → name `c`, owner `a.b`; only identifiers and member chains on the left. */
function assignedName(n: Node): { name: string; owner: string | null } | null {
  const left = n.childForFieldName("left");
  if (!left) return null;
  if (left.type === "identifier") return { name: left.text, owner: null };
  if (left.type !== "member_expression") return null;
  const text = left.text;
  if (!/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+$/.test(text)) return null;
  const parts = text.split(".");
  const name = parts.pop()!;
  const owner = parts.filter((p) => p !== "prototype").join(".");
  return { name, owner: owner && !GLOBAL_OWNERS.has(owner) ? owner : null };
}

function assignmentKind(n: Node, ctx: { parentKind: SymbolKind | null }): SymbolKind | null {
  if (n.parent?.type !== "expression_statement") return null;
  const right = n.childForFieldName("right");
  if (!right || !assignedName(n)) return null;
  if (FUNCTION_VALUES.has(right.type)) return ctx.parentKind || assignedName(n)?.owner ? "method" : "function";
  if (right.type === "class") return "class";
  // Objects only at the top level (namespaces like `window.SelectFilter = {…}`), not every state update.
  if (right.type === "object" && ctx.parentKind === null) return "variable";
  return null;
}

/** `load: function (a, b)` / `save: async (x) =>`: the pair up to the function's body. */
function pairSignature(n: Node, source: string): string {
  const body = n.childForFieldName("value")?.childForFieldName("body");
  return source.slice(n.startIndex, body ? body.startIndex : n.endIndex).replace(/[\s{]+$/, "");
}

function pairName(n: Node): string | null {
  const key = n.childForFieldName("key");
  if (!key || (key.type !== "property_identifier" && key.type !== "string")) return null;
  return unquote(key.text) || null;
}

const imports = {
  import_statement: (n: Node) => [unquote(n.childForFieldName("source")?.text ?? "")],
};
const calls = { call_expression: ["function"], new_expression: ["constructor"] };
const module = (path: string) => {
  const parts = pathStem(path);
  const last = parts.pop();
  return (last === "index" || last === "mod" ? parts.pop() : last) ?? null;
};

export const typescript: LanguageSpec = {
  ...languageIdentity("typescript"),
  separator: ".",
  commentTypes: ["comment"],
  module,
  defs: rules,
  calls,
  imports,
};

export const tsx: LanguageSpec = { ...typescript, ...languageIdentity("tsx") };

export const javascript: LanguageSpec = {
  ...typescript,
  ...languageIdentity("javascript"),
};
