/** Python: classes, functions, methods, module-level assignments; dotted module names. */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
import { namesOfType, pathStem } from "./_common.ts";

function decorated(n: Node): Node {
  return n.parent?.type === "decorated_definition" ? n.parent : n;
}

const privacy = (_n: Node, name: string) => name.startsWith("_") && !name.endsWith("__") ? "private" : "public";

export const python: LanguageSpec = {
  id: "python",
  grammar: "tree-sitter-python.wasm",
  extensions: [".py", ".pyi", ".pyw"],
  shebangs: ["python", "python3", "python2"],
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
        if (ctx.parentKind === null && g === "module") {
          const name = n.childForFieldName("left")?.text ?? "";
          return /^[A-Z][A-Z0-9_]*$/.test(name) ? "constant" : "variable";
        }
        if (ctx.parentKind === "class" && g === "block") return "field";
        return null;
      },
      name: (n) => {
        const left = n.childForFieldName("left");
        return left?.type === "identifier" ? left.text : null;
      },
      body: "right",
    },
  },
  calls: { call: ["function"] },
  imports: {
    import_statement: (n) =>
      n.namedChildren.map((c) => (c?.type === "aliased_import" ? c.childForFieldName("name") : c)?.text ?? ""),
    import_from_statement: (n) => [n.childForFieldName("module_name")?.text ?? ""],
  },
};
