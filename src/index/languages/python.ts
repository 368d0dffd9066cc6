/** Python: classes, functions, methods, module-level assignments; dotted module names. */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import { namesOfType, pathStem } from "./_common.ts";

function decorated(n: Node): Node {
  return n.parent?.type === "decorated_definition" ? n.parent : n;
}

/** Statements that nest module-level code without making a new scope (`if`, `try`, `with`). */
const MODULE_NESTING = new Set([
  "block",
  "if_statement",
  "elif_clause",
  "else_clause",
  "try_statement",
  "except_clause",
  "finally_clause",
  "with_statement",
]);

/** True when the statement runs at module level, possibly inside `if`/`try` blocks. */
function atModuleLevel(stmt: Node): boolean {
  let p = stmt.parent;
  for (let i = 0; p && i < 12; i++) {
    if (p.type === "module") return true;
    if (!MODULE_NESTING.has(p.type)) return false;
    p = p.parent;
  }
  return false;
}

/** Names bound by an assignment's left side (`a = `, `a, b = `). */
function targetNames(n: Node): string[] {
  const left = n.childForFieldName("left");
  if (left?.type === "identifier") return [left.text];
  if (left?.type === "pattern_list" || left?.type === "tuple_pattern") {
    return left.namedChildren.filter((c) => c?.type === "identifier").map((c) => c!.text);
  }
  return [];
}

const privacy = (_n: Node, name: string) => name.startsWith("_") && !name.endsWith("__") ? "private" : "public";

export const python: LanguageSpec = {
  ...languageIdentity("python"),
  separator: ".",
  docstring: true,
  commentTypes: ["comment"],
  module: (path) => {
    const parts = pathStem(path).filter((p) => p !== "src" && p !== "lib");
    if (parts[parts.length - 1] === "__init__") parts.pop();
    return parts.join(".") || null;
  },
  defs: {
    class_definition: {
      kind: "class",
      outer: decorated,
      visibility: privacy,
      heritage: (n) => ({
        extends: namesOfType(n.childForFieldName("superclasses"), ["identifier", "attribute"])
          .map((s) => s.split(".").pop()!),
        implements: [],
      }),
    },
    function_definition: {
      kind: "function",
      outer: decorated,
      visibility: privacy,
    },
    assignment: {
      kind: (n, ctx) => {
        if (n.parent?.type !== "expression_statement") return null;
        const g = n.parent.parent?.type;
        if (ctx.parentKind === null && atModuleLevel(n.parent)) {
          const name = n.childForFieldName("left")?.text ?? "";
          return /^[A-Z][A-Z0-9_]*$/.test(name) ? "constant" : "variable";
        }
        if (ctx.parentKind === "class" && g === "block") return "field";
        return null;
      },
      names: targetNames,
      signature: (n) => n.text.split("\n")[0].replace(/[\s{([]+$/, ""),
    },
  },
  calls: { call: ["function"] },
  imports: {
    import_statement: (n) =>
      n.namedChildren.map((c) => (c?.type === "aliased_import" ? c.childForFieldName("name") : c)?.text ?? ""),
    import_from_statement: (n) => [n.childForFieldName("module_name")?.text ?? ""],
  },
};
