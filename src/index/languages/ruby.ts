/**
 * Ruby: modules and classes joined with `::`, instance methods with `#`,
 * singleton methods (`def self.x`, `class << self`) with `.`:
 * `Auth::Token#valid?`, `Auth::Token.build`.
 */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import { unquote } from "./_common.ts";

const ATTR = new Set(["attr_reader", "attr_writer", "attr_accessor"]);
const REQUIRE = new Set(["require", "require_relative", "load", "autoload"]);
const NOT_CALLS = new Set([
  ...REQUIRE,
  ...ATTR,
  "private",
  "public",
  "protected",
  "module_function",
  "include",
  "extend",
  "prepend",
]);

/** Last segment of a class name (`Auth::Session` → `Session`). */
function constName(n: Node): string | null {
  const name = n.childForFieldName("name");
  if (!name) return null;
  return name.type === "scope_resolution" ? name.childForFieldName("name")?.text ?? null : name.text;
}

function constScope(n: Node): string | null {
  const name = n.childForFieldName("name");
  return name?.type === "scope_resolution" ? name.childForFieldName("scope")?.text ?? null : null;
}

function inSingletonClass(n: Node): boolean {
  const p = n.parent;
  return p?.type === "singleton_class" || p?.parent?.type === "singleton_class";
}

/** Mixins (`include Comparable`) among the class body's direct statements. */
function mixins(n: Node): string[] {
  const body = n.childForFieldName("body");
  const out: string[] = [];
  for (const c of body?.namedChildren ?? []) {
    if (c?.type !== "call" || c.childForFieldName("receiver")) continue;
    const m = c.childForFieldName("method")?.text;
    if (m !== "include" && m !== "extend" && m !== "prepend") continue;
    for (const a of c.childForFieldName("arguments")?.namedChildren ?? []) {
      if (a && (a.type === "constant" || a.type === "scope_resolution")) out.push(a.text.split("::").pop()!);
    }
  }
  return out;
}

/** `class Token < Base` / `module Auth`: the head without the body or comments after it. */
function typeSignature(n: Node, source: string): string {
  const last = n.childForFieldName("superclass") ?? n.childForFieldName("name");
  return source.slice(n.startIndex, last ? last.endIndex : n.startIndex + 80);
}

const VISIBILITY = new Set(["private", "protected", "public"]);

/**
 * `private def x`, or a bare `private` line above the method in the same
 * body (the search looks back a bounded number of statements).
 */
function methodVisibility(n: Node): string {
  const p = n.parent;
  if (p?.type === "argument_list") {
    const m = p.parent?.childForFieldName("method")?.text ?? "";
    if (VISIBILITY.has(m)) return m;
  }
  let prev = n.previousNamedSibling;
  for (let i = 0; prev && i < 300; i++, prev = prev.previousNamedSibling) {
    if (prev.type === "identifier" && VISIBILITY.has(prev.text)) return prev.text;
  }
  return "public";
}

function methodSignature(n: Node, source: string): string {
  const params = n.childForFieldName("parameters");
  const name = n.childForFieldName("name");
  const end = params ? params.endIndex : name ? name.endIndex : n.startIndex + 80;
  return source.slice(n.startIndex, end);
}

export const ruby: LanguageSpec = {
  ...languageIdentity("ruby"),
  separator: "::",
  commentTypes: ["comment"],
  defs: {
    module: { kind: "module", name: constName, qualifier: constScope, signature: typeSignature },
    class: {
      kind: "class",
      name: constName,
      qualifier: constScope,
      signature: typeSignature,
      heritage: (n) => {
        const sup = n.childForFieldName("superclass")?.namedChildren[0];
        return { extends: sup ? [sup.text.split("::").pop()!] : [], implements: mixins(n) };
      },
    },
    method: {
      kind: (_n, ctx) => ctx.parentKind ? "method" : "function",
      joiner: (n) => inSingletonClass(n) ? "." : "#",
      signature: methodSignature,
      visibility: methodVisibility,
    },
    singleton_method: { kind: "method", joiner: ".", signature: methodSignature, visibility: methodVisibility },
    assignment: {
      kind: (n, ctx) =>
        n.childForFieldName("left")?.type === "constant" && ctx.parentKind !== "method" && ctx.parentKind !== "function"
          ? "constant"
          : null,
      name: (n) => n.childForFieldName("left")?.text ?? null,
      signature: (n) => n.text.split("\n")[0],
    },
    simple_symbol: {
      // `attr_reader :value` defines a property per symbol.
      kind: (n) => {
        const call = n.parent?.parent;
        return n.parent?.type === "argument_list" && call?.type === "call" &&
            ATTR.has(call.childForFieldName("method")?.text ?? "")
          ? "property"
          : null;
      },
      name: (n) => n.text.slice(1),
      joiner: "#",
      outer: (n) => n.parent!.parent!,
      signature: (n) => n.parent!.parent!.text,
    },
  },
  calls: {
    call: (n) => {
      const m = n.childForFieldName("method")?.text ?? null;
      return m && !NOT_CALLS.has(m) ? m : null;
    },
  },
  imports: {
    call: (n) => {
      if (n.childForFieldName("receiver") || !REQUIRE.has(n.childForFieldName("method")?.text ?? "")) return [];
      const arg = n.childForFieldName("arguments")?.namedChildren[0];
      return arg?.type === "string" ? [unquote(arg.text)] : [];
    },
  },
};
