/**
 * Elixir: everything is a call, so definitions are calls to `defmodule`,
 * `def`, `defp`, `defmacro`, ...; modules nest with `.` (`Acme.Auth.validate`).
 */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import type { SymbolKind } from "../../core/types.ts";

const MODULES: Record<string, SymbolKind> = {
  defmodule: "module",
  defprotocol: "interface",
  defimpl: "impl",
};
const FUNCS: Record<string, SymbolKind> = {
  def: "function",
  defp: "function",
  defdelegate: "function",
  defguard: "function",
  defguardp: "function",
  defmacro: "macro",
  defmacrop: "macro",
};
const IMPORTS = new Set(["alias", "import", "require", "use"]);
const KEYWORDS = new Set([...Object.keys(MODULES), ...Object.keys(FUNCS), ...IMPORTS, "defstruct", "defexception"]);

function target(n: Node): string | null {
  const t = n.childForFieldName("target");
  return t?.type === "identifier" ? t.text : null;
}

function firstArg(n: Node): Node | null {
  return n.namedChildren.find((c) => c?.type === "arguments")?.namedChildren[0] ?? null;
}

/** The head call of a function definition (`validate(token)` in `def validate(token) when ...`). */
function head(n: Node): Node | null {
  let a = firstArg(n);
  if (a?.type === "binary_operator" && a.childForFieldName("operator")?.text === "when") {
    a = a.childForFieldName("left");
  }
  return a;
}

function defName(n: Node): string | null {
  const t = target(n);
  if (!t) return null;
  if (t === "defimpl") {
    // `defimpl P, for: T` defines the module `P.T`.
    const forType = n.namedChildren.find((c) => c?.type === "arguments")?.descendantsOfType("pair")
      .find((p) => p?.childForFieldName("key")?.text.startsWith("for"))?.childForFieldName("value")?.text;
    const proto = firstArg(n)?.text;
    return proto && forType ? `${proto}.${forType}` : proto ?? null;
  }
  if (t in MODULES) return firstArg(n)?.text ?? null;
  const h = head(n);
  if (!h) return null;
  if (h.type === "identifier") return h.text;
  if (h.type === "call") {
    const ht = h.childForFieldName("target");
    return ht?.type === "identifier" ? ht.text : null;
  }
  // Operator definitions (`def a + b`) and other shapes are skipped.
  return null;
}

function defSignature(n: Node, source: string): string {
  const block = n.namedChildren.find((c) => c?.type === "do_block");
  const args = n.namedChildren.find((c) => c?.type === "arguments");
  const kw = args?.namedChildren.find((c) => c?.type === "keywords");
  const end = block ? block.startIndex : kw ? kw.startIndex : n.endIndex;
  return source.slice(n.startIndex, end).replace(/[,\s]+$/, "");
}

/** True when `n` is the head of a definition (`validate(token)` inside `def`), not a call site. */
function isDefHead(n: Node): boolean {
  let p = n.parent;
  if (p?.type === "binary_operator") p = p.parent;
  if (p?.type !== "arguments") return false;
  const def = p.parent;
  return !!def && def.type === "call" && (target(def) ?? "") in FUNCS;
}

/** True for a later clause of the function defined just above (`def f(0)` after `def f(n)`). */
function isLaterClause(n: Node): boolean {
  const prev = n.previousNamedSibling;
  return prev?.type === "call" && target(prev) === target(n) && defName(prev) === defName(n);
}

function lastClause(n: Node): Node {
  let last = n;
  for (let next = n.nextNamedSibling; next?.type === "call" && isLaterClause(next); next = next.nextNamedSibling) {
    last = next;
  }
  return last;
}

/** The string of an `@doc` / `@moduledoc` attribute. */
function attributeDoc(attr: Node | null | undefined, name: string): string | null {
  if (attr?.type !== "unary_operator") return null;
  const call = attr.childForFieldName("operand");
  if (call?.type !== "call" || target(call) !== name) return null;
  const s = firstArg(call);
  return s?.type === "string" ? s.text.replace(/^("""|")|("""|")$/g, "").trim() : null;
}

/** `@doc` just above a function, `@moduledoc` first in a module body. */
function elixirDoc(n: Node): string | null {
  const t = target(n);
  if (t && t in MODULES) {
    const block = n.namedChildren.find((c) => c?.type === "do_block");
    return attributeDoc(block?.namedChildren[0], "moduledoc");
  }
  let prev = n.previousNamedSibling;
  // Skip other attributes between `@doc` and the def (`@spec`, `@impl`).
  while (prev?.type === "unary_operator" && !attributeDoc(prev, "doc")) {
    const op = prev.childForFieldName("operand");
    if (op?.type !== "call" || target(op) === "moduledoc") break;
    prev = prev.previousNamedSibling;
  }
  return attributeDoc(prev, "doc");
}

export const elixir: LanguageSpec = {
  ...languageIdentity("elixir"),
  separator: ".",
  commentTypes: ["comment"],
  doc: elixirDoc,
  defs: {
    call: {
      kind: (n) => {
        const t = target(n);
        if (!t) return null;
        if (t in FUNCS && isLaterClause(n)) return null;
        return MODULES[t] ?? FUNCS[t] ?? null;
      },
      until: (n) => (target(n) ?? "") in FUNCS ? lastClause(n) : n,
      name: defName,
      visibility: (n) => /p$/.test(target(n) ?? "") ? "private" : "public",
      heritage: (n) => {
        const proto = target(n) === "defimpl" ? firstArg(n)?.text : null;
        return { extends: [], implements: proto ? [proto] : [] };
      },
      signature: defSignature,
    },
  },
  calls: {
    call: (n) => {
      const t = n.childForFieldName("target");
      if (!t) return null;
      // `@doc "..."` and other module attributes parse as calls under a unary `@`.
      if (n.parent?.type === "unary_operator") return null;
      if (t.type === "identifier") return KEYWORDS.has(t.text) || isDefHead(n) ? null : t.text;
      if (t.type === "dot") return t.childForFieldName("right")?.text ?? null;
      return null;
    },
  },
  imports: {
    call: (n) => {
      const t = target(n);
      if (!t || !IMPORTS.has(t)) return [];
      const a = firstArg(n);
      return a?.type === "alias" ? [a.text] : [];
    },
  },
};
