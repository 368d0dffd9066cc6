/**
 * C and C++. C++ qualifies with `::` through namespaces and classes (and
 * out-of-class definitions `int Foo::run()` → `ns::Foo::run`); C qualifies
 * only struct members and enumerators, with `.`.
 */
import type { Node } from "web-tree-sitter";
import type { DefRule, LanguageSpec, RuleContext } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import type { SymbolKind } from "../../core/types.ts";
import { namesOfType, unquote } from "./_common.ts";

const WRAPPERS = new Set([
  "pointer_declarator",
  "reference_declarator",
  "function_declarator",
  "parenthesized_declarator",
  "array_declarator",
  "init_declarator",
  "attributed_declarator",
]);

/** The innermost naming node of a declarator chain (`*(*f)(int)` → `f`). */
function declaratorName(n: Node | null): Node | null {
  let cur = n;
  for (let i = 0; cur && i < 12; i++) {
    if (!WRAPPERS.has(cur.type)) return cur;
    cur = cur.childForFieldName("declarator") ?? (cur.type === "parenthesized_declarator" ? cur.firstNamedChild : null);
  }
  return null;
}

/** True when the declarator chain contains a function declarator (a prototype or definition). */
function isFunctionDeclarator(n: Node | null): boolean {
  let cur = n;
  for (let i = 0; cur && i < 12; i++) {
    if (cur.type === "function_declarator") return true;
    if (!WRAPPERS.has(cur.type)) return false;
    cur = cur.childForFieldName("declarator");
  }
  return false;
}

/** Last segment of a possibly qualified name node. */
function simpleName(n: Node | null): string | null {
  if (!n) return null;
  if (n.type === "qualified_identifier") return simpleName(n.childForFieldName("name"));
  if (n.type === "template_function") return n.childForFieldName("name")?.text ?? null;
  return n.text;
}

/** Scope of a qualified definition name (`a::Foo::run` → `a::Foo`). */
function scopeOf(n: Node | null): string | null {
  if (n?.type !== "qualified_identifier") return null;
  const full = n.text.replace(/<[^<>]*>/g, "").replace(/\s+/g, "");
  const i = full.lastIndexOf("::");
  return i > 0 ? full.slice(0, i) : null;
}

const nameNode = (n: Node) => declaratorName(n.childForFieldName("declarator"));

function templateOuter(n: Node): Node {
  return n.parent?.type === "template_declaration" ? n.parent : n;
}

/**
 * C++ member visibility from the nearest `public:`/`protected:`/`private:`
 * above the member (bounded look-back), else the class/struct default.
 */
function cppVisibility(n: Node): string | null {
  let member = n.parent?.type === "template_declaration" ? n.parent : n;
  // A nested type is the type of a member declaration (`class Inner { ... };`).
  if (member.parent?.type === "field_declaration") member = member.parent;
  const body = member.parent;
  if (body?.type !== "field_declaration_list") return null;
  let prev = member.previousNamedSibling;
  for (let i = 0; prev && i < 500; i++, prev = prev.previousNamedSibling) {
    if (prev.type === "access_specifier") return prev.text.replace(/\s*:$/, "");
  }
  return body.parent?.type === "class_specifier" ? "private" : "public";
}

function cppFunctionKind(n: Node, ctx: RuleContext): SymbolKind | null {
  const name = nameNode(n);
  if (!name) return null;
  const simple = simpleName(name);
  if (name.type === "destructor_name") return "method";
  const scope = scopeOf(name);
  if (scope) return scope.split("::").pop() === simple ? "constructor" : "method";
  if (ctx.parentKind === "class" || ctx.parentKind === "struct") {
    return simple === ctx.parentName ? "constructor" : "method";
  }
  return "function";
}

/** A method prototype inside a class body (`void run();`). */
function cppMemberDeclKind(n: Node, ctx: RuleContext): SymbolKind | null {
  if (ctx.parentKind !== "class" && ctx.parentKind !== "struct") return null;
  const d = n.childForFieldName("declarator");
  if (isFunctionDeclarator(d)) {
    const name = simpleName(declaratorName(d));
    return name === ctx.parentName ? "constructor" : "method";
  }
  return n.type === "field_declaration" ? "field" : null;
}

/** Text of a declaration without its body, qualifiers kept. */
function headSignature(n: Node, source: string): string {
  const body = n.childForFieldName("body");
  const end = body ? body.startIndex : Math.min(n.endIndex, n.startIndex + 400);
  return source.slice(n.startIndex, end).replace(/[{;\s]+$/, "");
}

function structName(n: Node): string | null {
  const own = n.childForFieldName("name");
  if (own) return simpleName(own);
  // `typedef struct { ... } Point;` names the struct through the typedef.
  if (n.parent?.type === "type_definition" && n.childForFieldName("body")) {
    return declaratorName(n.parent.childForFieldName("declarator"))?.text ?? null;
  }
  return null;
}

/** `struct session`, and for an anonymous one named by its typedef, `typedef enum role_t`. */
function structSignature(n: Node, source: string): string {
  const body = n.childForFieldName("body");
  const head = source.slice(n.startIndex, body ? body.startIndex : n.endIndex).trim();
  return n.childForFieldName("name") ? head : `typedef ${head} ${structName(n) ?? ""}`;
}

const withBody = (kind: SymbolKind) => (n: Node) => n.childForFieldName("body") ? kind : null;

function heritage(n: Node) {
  const base = n.namedChildren.find((c) => c?.type === "base_class_clause") ?? null;
  return {
    extends: namesOfType(base, ["type_identifier", "qualified_identifier", "template_type"]).map((s) =>
      s.split("::").pop()!
    ),
    implements: [],
  };
}

const typedefRule: DefRule = {
  kind: "type",
  // Every name it declares: `typedef struct {..} MSG, *PTR_MSG;` defines both.
  names: (n) =>
    n.childrenForFieldName("declarator").map((d) => declaratorName(d)?.text ?? "").filter((name) => name !== ""),
  // A struct defined inside the typedef stays a top-level symbol of its own.
  leaf: true,
  // The whole typedef, with an inline struct body elided.
  signature: (n) => n.text.replace(/\{[\s\S]*\}/, "{ … }").replace(/;$/, ""),
};

function varKind(n: Node, ctx: RuleContext): SymbolKind | null {
  if (ctx.parentKind !== null && ctx.parentKind !== "namespace") return null;
  const p = n.parent?.type;
  if (p !== "translation_unit" && p !== "declaration_list") return null;
  const d = n.childForFieldName("declarator");
  if (!d || isFunctionDeclarator(d)) return null;
  if (/^\s*extern\b/.test(n.text)) return null;
  return n.namedChildren.some((c) => c?.type === "type_qualifier" && c.text === "const") ? "constant" : "variable";
}

const common: Record<string, DefRule> = {
  preproc_def: { kind: "macro", signature: (n) => n.text.split("\n")[0] },
  preproc_function_def: { kind: "macro", signature: (n) => n.text.split("\n")[0].replace(/\\$/, "") },
  enumerator: { kind: "enum_member", signature: (n) => n.text },
  type_definition: typedefRule,
  declaration: { kind: varKind, name: (n) => simpleName(nameNode(n)), signature: declarationText },
};

/**
 * Annotation macros written as a bare word between a declaration's type and its name, or after a struct's
 * body (the Linux kernel's section, address-space and attribute markers, and GCC-style ones): the grammar,
 * which does not expand macros, takes them for the name (`static int __init setup(void)` defined `void`).
 */
const ANNOTATIONS = (
  "__init __exit __initdata __exitdata __initconst __ref __refdata __refconst __meminit __meminitdata " +
  "__meminitconst __memexit __cpuinit __cpuexit __devinit __devexit __devinitdata __devinitconst " +
  "__net_init __net_exit __init_or_module __initdata_or_module __sched __cold __hot __pure __weak " +
  "__always_inline noinline __maybe_unused __always_unused __used __must_check __visible __noreturn " +
  "__iomem __user __kernel __percpu __rcu __force __bitwise __nocast __safe __read_mostly " +
  "__ro_after_init __latent_entropy noinstr notrace asmlinkage __kprobes __irq_entry __flatten __malloc " +
  "__naked __nocfi __lockfunc __attribute_const__ __deprecated __packed __cacheline_aligned " +
  "__cacheline_aligned_in_smp __page_aligned_data __page_aligned_bss"
).split(" ");
/** An annotation macro, or a GCC attribute (`__attribute__((noinline, cold))`), whose words are its own. */
const ANNOTATION = new RegExp(
  `__attribute__\\s*\\(\\((?:[^()]|\\([^()]*\\))*\\)\\)|\\b(?:${ANNOTATIONS.join("|")})\\b`,
  "g",
);

/**
 * The source with every annotation macro (ANNOTATIONS) outside preprocessor lines and GCC attributes blanked
 * to spaces of its length: what the parser reads, so `static int __init setup(void)` defines `setup` at the
 * same place. A `#define __init …` still defines `__init`.
 */
export function blankAnnotations(source: string): string {
  ANNOTATION.lastIndex = 0;
  if (!ANNOTATION.test(source)) return source;
  const lines = source.split("\n");
  let directive = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const inDirective: boolean = directive || /^\s*#/.test(line);
    directive = inDirective && /\\\r?$/.test(line);
    if (!inDirective) {
      lines[i] = line.replace(ANNOTATION, (m) => m.startsWith("__attribute__") ? m : " ".repeat(m.length));
    }
  }
  return lines.join("\n");
}

/** 2: a typedef defines every name it declares; names are found past annotation macros. */
const C_RULES_VERSION = 2;

export const c: LanguageSpec = {
  ...languageIdentity("c"),
  rulesVersion: C_RULES_VERSION,
  separator: ".",
  parseText: blankAnnotations,
  commentTypes: ["comment"],
  defs: {
    ...common,
    function_definition: { kind: "function", name: (n) => nameNode(n)?.text ?? null, signature: headSignature },
    struct_specifier: { kind: withBody("struct"), name: structName, signature: structSignature },
    union_specifier: { kind: withBody("struct"), name: structName, signature: structSignature },
    enum_specifier: { kind: withBody("enum"), name: structName, signature: structSignature },
    field_declaration: {
      kind: (_n, ctx) => ctx.parentKind === "struct" ? "field" : null,
      name: (n) => nameNode(n)?.text ?? null,
      signature: declarationText,
    },
  },
  calls: { call_expression: ["function"] },
  imports: { preproc_include: (n) => [unquote(n.childForFieldName("path")?.text ?? "")] },
};

/** A whole declaration as its signature, without the closing `;`. */
function declarationText(n: Node): string {
  return n.text.replace(/;$/, "");
}

/** Name declared by a C++ member or declaration (`~Foo` kept whole for destructors). */
function memberDeclName(n: Node): string | null {
  const d = declaratorName(n.childForFieldName("declarator"));
  return d?.type === "destructor_name" ? d.text : simpleName(d);
}

export const cpp: LanguageSpec = {
  ...languageIdentity("cpp"),
  rulesVersion: C_RULES_VERSION,
  separator: "::",
  parseText: blankAnnotations,
  commentTypes: ["comment"],
  defs: {
    ...common,
    namespace_definition: { kind: "namespace", name: (n) => n.childForFieldName("name")?.text ?? null },
    function_definition: {
      kind: cppFunctionKind,
      name: (n) => {
        const d = nameNode(n);
        return d?.type === "destructor_name" ? d.text : simpleName(d);
      },
      qualifier: (n) => scopeOf(nameNode(n)),
      outer: templateOuter,
      signature: headSignature,
      visibility: cppVisibility,
    },
    class_specifier: {
      kind: withBody("class"),
      name: structName,
      signature: structSignature,
      heritage,
      outer: templateOuter,
      visibility: cppVisibility,
    },
    struct_specifier: {
      kind: withBody("struct"),
      name: structName,
      signature: structSignature,
      heritage,
      outer: templateOuter,
      visibility: cppVisibility,
    },
    union_specifier: { kind: withBody("struct"), name: structName, signature: structSignature, outer: templateOuter },
    enum_specifier: { kind: withBody("enum"), name: structName, signature: structSignature },
    alias_declaration: { kind: "type", outer: templateOuter, signature: declarationText },
    field_declaration: {
      kind: cppMemberDeclKind,
      name: memberDeclName,
      outer: templateOuter,
      signature: declarationText,
      visibility: cppVisibility,
    },
    declaration: {
      kind: (n, ctx) => cppMemberDeclKind(n, ctx) ?? varKind(n, ctx),
      name: memberDeclName,
      outer: templateOuter,
      signature: declarationText,
      visibility: cppVisibility,
    },
  },
  calls: { call_expression: ["function"], new_expression: ["type"] },
  imports: { preproc_include: (n) => [unquote(n.childForFieldName("path")?.text ?? "")] },
};
