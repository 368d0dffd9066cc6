/**
 * Haskell: module from the header; functions (equations merged, type
 * signature kept as the signature), data/newtype/type synonyms as `type`,
 * type classes as `interface` (their methods as `method`), instances as
 * `impl` named after the instance type.
 */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import type { SymbolKind } from "../../core/types.ts";

const TOP = new Set(["declarations", "class_declarations", "instance_declarations"]);
const EQUATIONS = new Set(["function", "bind"]);

const nameOf = (n: Node | null) => n?.childForFieldName("name")?.text ?? null;

function functionKind(n: Node): SymbolKind | null {
  if (!TOP.has(n.parent?.type ?? "")) return null;
  const prev = n.previousNamedSibling;
  // Later equations of the same function are folded into the first.
  if (prev && EQUATIONS.has(prev.type) && nameOf(prev) === nameOf(n)) return null;
  return n.parent!.type === "declarations" ? "function" : "method";
}

/** The type signature right above a function, if it names the same function. */
function typeSignature(n: Node): Node | null {
  const prev = n.previousNamedSibling;
  return prev?.type === "signature" && nameOf(prev) === nameOf(n) ? prev : null;
}

function lastEquation(n: Node): Node {
  let last = n;
  let next = n.nextNamedSibling;
  while (next && EQUATIONS.has(next.type) && nameOf(next) === nameOf(n)) {
    last = next;
    next = next.nextNamedSibling;
  }
  return last;
}

function textBefore(n: Node, field: string, source: string): string {
  const f = n.childForFieldName(field);
  return source.slice(n.startIndex, f ? f.startIndex : n.endIndex).replace(/[=\s]+$|\bwhere\s*$/g, "");
}

/**
 * The grammar files a haddock comment that follows the imports under the
 * imports node, away from the first declaration it documents; recover it.
 */
function firstDeclarationDoc(n: Node): string | null {
  const first = typeSignature(n) ?? n;
  if (first.previousNamedSibling || first.parent?.type !== "declarations") return null;
  const last = first.parent.previousNamedSibling?.lastNamedChild;
  if (last?.type !== "haddock" || last.endPosition.row < first.startPosition.row - 1) return null;
  return last.text.split("\n").map((l) => l.replace(/^\s*--\s*[|^]?\s?/, "")).join("\n");
}

export const haskell: LanguageSpec = {
  ...languageIdentity("haskell"),
  separator: ".",
  commentTypes: ["haddock", "comment"],
  doc: firstDeclarationDoc,
  module: (_path, root) => {
    const header = root.namedChildren.find((c) => c?.type === "header");
    return header?.childForFieldName("module")?.text ?? null;
  },
  defs: {
    function: {
      kind: functionKind,
      outer: (n) => typeSignature(n) ?? n,
      until: lastEquation,
      signature: (n, source) => typeSignature(n)?.text ?? textBefore(n, "match", source),
    },
    bind: {
      kind: functionKind,
      outer: (n) => typeSignature(n) ?? n,
      until: lastEquation,
      signature: (n, source) => typeSignature(n)?.text ?? textBefore(n, "match", source),
    },
    signature: {
      // Class method declarations; top-level signatures belong to their function.
      kind: (n) => n.parent?.type === "class_declarations" ? "method" : null,
      signature: (n) => n.text,
    },
    data_type: { kind: "type", signature: (n, source) => textBefore(n, "constructors", source) },
    newtype: { kind: "type", signature: (n, source) => textBefore(n, "constructor", source) },
    type_synomym: { kind: "type", signature: (n) => n.text },
    type_family: { kind: "type" },
    data_constructor: {
      kind: "constructor",
      name: (n) => nameOf(n.childForFieldName("constructor")),
      signature: (n) => n.text,
    },
    newtype_constructor: { kind: "constructor", signature: (n) => n.text },
    field: {
      kind: (n) => n.parent?.type === "fields" ? "field" : null,
      name: (n) => n.childForFieldName("name")?.text ?? null,
      signature: (n) => n.text,
    },
    class: {
      kind: "interface",
      body: "declarations",
      heritage: (n) => {
        const ctx = n.childForFieldName("context");
        const names = ctx ? [...ctx.text.matchAll(/\b([A-Z][\w']*)\s+[a-z]/g)].map((m) => m[1]) : [];
        return { extends: names, implements: [] };
      },
    },
    instance: {
      kind: "impl",
      body: "declarations",
      name: (n) => n.childForFieldName("patterns")?.text.replace(/^\(|\)$/g, "").split(/\s+/)[0] ?? null,
      heritage: (n) => ({ extends: [], implements: [nameOf(n) ?? ""] }),
    },
  },
  calls: {
    apply: (n) => {
      // Only the outermost application of a chain names the call (`f a b`).
      if (n.parent?.type === "apply" && n.parent.childForFieldName("function")?.id === n.id) return null;
      let f = n.childForFieldName("function");
      while (f?.type === "apply") f = f.childForFieldName("function");
      if (!f || (f.type !== "variable" && f.type !== "qualified")) return null;
      return f.text.split(".").pop() ?? null;
    },
  },
  imports: { import: (n) => [n.childForFieldName("module")?.text ?? ""] },
};
