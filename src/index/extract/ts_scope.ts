/**
 * TypeScript / JavaScript operand types from one file's syntax, as member-use
 * hints in the Python hint language (see `PyHint` in py_scope.ts): a name's
 * declared type (`x: T`, `(p: T)`), a `new T()` it is initialised with or an
 * `as T` cast; `this.a` through the class's field or parameter property
 * (`private readonly db: Db`) — `:@>a` when the class does not declare it (a
 * base may); a name the file does not bind (a class for `T.m()`, an import).
 * Pure: no I/O.
 */
import type { Node } from "web-tree-sitter";

const FUNCTIONS = new Set([
  "function_declaration",
  "function_expression",
  "function",
  "arrow_function",
  "method_definition",
  "generator_function_declaration",
  "generator_function",
]);
const CLASSES = new Set(["class_declaration", "class", "abstract_class_declaration"]);
const BINDERS = [
  "required_parameter",
  "optional_parameter",
  "variable_declarator",
  "public_field_definition",
  "for_in_statement",
  "catch_clause",
];

/** Declarations whose name a file can use as a value (`T.staticM()`, `x instanceof T`). */
const NAMED_TYPES = ["class_declaration", "abstract_class_declaration", "enum_declaration"];

/** Node types the scope pass reads. */
export const TS_SCOPE_NODE_TYPES = [
  ...BINDERS,
  ...NAMED_TYPES,
  "import_specifier",
  "import_clause",
  "assignment_expression",
];

const DOTTED = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;

/** The class a type annotation names (`T`, `a.T`, `T<X>`, `T | null`, `T | undefined`, `T["a"]`), or null. */
function annotationType(n: Node | null): string | null {
  if (!n) return null;
  const t = n.text.replace(/^:\s*/, "").replace(/\s*\|\s*(?:null|undefined)\b/g, "").replace(/<[^]*>$/, "").trim();
  if (t.length > 200) return null;
  // `T["a"]`: the type of `T`'s member `a` (`T>a` in the hint language).
  const member = t.match(/^([A-Za-z_$][\w$.]*)\[["']([A-Za-z_$][\w$]*)["']\]$/);
  if (member) return `${member[1]}>${member[2]}`;
  return DOTTED.test(t) ? t : null;
}

/** The class a value is an instance of when the syntax shows it (`new T(…)`, `v as T`, `a ?? new T()`), or null. */
function valueType(n: Node | null): string | null {
  while (n && (n.type === "parenthesized_expression" || n.type === "await_expression")) n = n.namedChildren[0] ?? null;
  // `opts.pool ?? new T()`, `a || new T()`: a `T` or what the left side holds (the same class as a rule).
  if (n?.type === "binary_expression" && n.children.some((c) => c?.type === "??" || c?.type === "||")) {
    return valueType(n.childForFieldName("right"));
  }
  if (n?.type === "new_expression") {
    const c = n.childForFieldName("constructor");
    return c && DOTTED.test(c.text) && c.text.length <= 200 ? c.text : null;
  }
  if (n?.type === "as_expression" || n?.type === "satisfies_expression") {
    return annotationType(n.namedChildren[1] ?? null);
  }
  return null;
}

/** Records that `name` is bound to `type` in `m`: two different types (or an unknown one) leave it unknown. */
function record(m: Map<string, string | null>, name: string, type: string | null): void {
  if (!m.has(name)) m.set(name, type);
  else if (m.get(name) !== type) m.set(name, null);
}

/** The innermost function around `n`, or null at module or class level. */
function functionOf(n: Node): Node | null {
  for (let p = n.parent; p; p = p.parent) {
    if (FUNCTIONS.has(p.type)) return p;
    if (CLASSES.has(p.type)) return null;
  }
  return null;
}

/** The class whose body `n` is in (directly or in one of its methods), or null. */
function classOf(n: Node): Node | null {
  for (let p = n.parent; p; p = p.parent) if (CLASSES.has(p.type)) return p;
  return null;
}

/** Identifiers a binding pattern binds (`a`, `{a, b: c}`, `[a, ...b]`). */
function boundNames(n: Node | null, out: string[]): void {
  if (!n) return;
  if (n.type === "identifier" || n.type === "shorthand_property_identifier_pattern") {
    out.push(n.text);
    return;
  }
  for (const c of n.namedChildren) {
    if (c && c.type !== "property_identifier" && c.type !== "type_annotation") boundNames(c, out);
  }
}

/** What names and `this.a` hold in one TypeScript or JavaScript file. */
export class TsScope {
  /** Per function (module: -1): the type each bound name holds, null when unknown. */
  private types = new Map<number, Map<string, string | null>>();
  /** Per class: the type each field holds, null when unknown. */
  private fields = new Map<number, Map<string, string | null>>();

  /** How many times each name is bound, by function (`id\0name`; module: -1). */
  private bindings = new Map<string, number>();

  /** `import { f as g }`: g → f. */
  private imported = new Map<string, string>();

  /** Names the file imports (`import D, { a, b as c }`: D, a, c) or declares as a class or an enum. */
  private typeNames = new Set<string>();

  constructor(of: (type: string) => Node[]) {
    for (const n of of("import_specifier")) {
      const name = n.childForFieldName("name");
      const alias = n.childForFieldName("alias");
      if (name?.type === "identifier" && alias) this.imported.set(alias.text, name.text);
      if (name?.type === "identifier") this.typeNames.add((alias ?? name).text);
    }
    for (const n of of("import_clause")) {
      const d = n.namedChildren[0];
      if (d?.type === "identifier") this.typeNames.add(d.text);
    }
    for (const t of NAMED_TYPES) {
      for (const n of of(t)) {
        const name = n.childForFieldName("name");
        if (name) this.typeNames.add(name.text);
      }
    }
    const copies: Node[] = [];
    for (const t of BINDERS) {
      for (const n of of(t)) {
        if (t === "public_field_definition") {
          const cls = classOf(n);
          const name = n.childForFieldName("name");
          if (cls && name) record(this.mapOf(this.fields, cls.id), name.text, this.declared(n));
          continue;
        }
        const names: string[] = [];
        const field = t === "variable_declarator"
          ? "name"
          : t.endsWith("parameter")
          ? "pattern"
          : t === "catch_clause"
          ? "parameter"
          : "left";
        boundNames(n.childForFieldName(field), names);
        const type = names.length === 1 && t !== "for_in_statement" ? this.declared(n) : null;
        const fn = t.endsWith("parameter") ? n.parent?.parent ?? null : functionOf(n);
        const picked = t === "variable_declarator" ? this.destructured(n) : null;
        for (const x of names) {
          record(this.mapOf(this.types, fn ? fn.id : -1), x, picked?.get(x) ?? type);
          const key = (fn ? fn.id : -1) + "\0" + x;
          this.bindings.set(key, (this.bindings.get(key) ?? 0) + 1);
        }
        if (t === "variable_declarator" && names.length === 1 && type === null) copies.push(n);
        // `constructor(private readonly db: Db)`: a parameter property is a field too.
        const cls = fn?.type === "method_definition" && fn.childForFieldName("name")?.text === "constructor"
          ? classOf(fn)
          : null;
        if (cls && n.namedChildren.some((c) => c?.type === "accessibility_modifier" || c?.text === "readonly")) {
          for (const x of names) record(this.mapOf(this.fields, cls.id), x, type);
        }
      }
    }
    this.assignedFields(of("assignment_expression"));
    this.copiedTypes(copies);
  }

  /**
   * `const rt = ctx.runtime`, `const v = w`: a name bound once to another name or a member takes its type (in
   * source order, so a copy of a copy is typed too).
   */
  private copiedTypes(copies: Node[]): void {
    for (const n of copies) {
      const name = n.childForFieldName("name");
      const value = n.childForFieldName("value");
      const key = (functionOf(n)?.id ?? -1) + "\0" + name?.text;
      if (name?.type !== "identifier" || !value || this.bindings.get(key) !== 1) continue;
      if (!["identifier", "member_expression", "non_null_expression", "call_expression"].includes(value.type)) continue;
      const t = this.typeOf(n, value, 1);
      if (t?.startsWith(":")) this.mapOf(this.types, functionOf(n)?.id ?? -1).set(name.text, t.slice(1));
    }
  }

  /** `this.a = new T()` in a method types the field `a` when the class declares no `a` (JavaScript). */
  private assignedFields(assignments: Node[]): void {
    const assigned = new Map<number, Map<string, string | null>>();
    for (const n of assignments) {
      const left = n.childForFieldName("left");
      const prop = left?.type === "member_expression" ? left.childForFieldName("property") : null;
      const fn = functionOf(n);
      const cls = fn && left?.childForFieldName("object")?.type === "this" ? classOf(fn) : null;
      if (!cls || !prop || this.fields.get(cls.id)?.has(prop.text)) continue;
      record(this.mapOf(assigned, cls.id), prop.text, this.valueOf(n, n.childForFieldName("right")));
    }
    for (const [id, m] of assigned) for (const [name, t] of m) this.mapOf(this.fields, id).set(name, t);
  }

  /**
   * The name a bare use of `leaf` means when the file imports it under an alias (`import { f as g }`: `g(…)`
   * is a use of `f`); null otherwise (no alias, or a local of that name shadows it).
   */
  original(leaf: Node): string | null {
    const name = this.imported.get(leaf.text);
    return name && !this.boundInFunction(leaf, leaf.text) && !this.types.get(-1)?.has(leaf.text) ? name : null;
  }

  /** True when no function around `leaf` binds its name (a module-level name, an import, a global). */
  free(leaf: Node): boolean {
    return !this.boundInFunction(leaf, leaf.text);
  }

  /**
   * True when the identifier `leaf` names a class or enum the file declares or a name it imports, used as a
   * value (`T.staticM()`, `x instanceof T`): no function around it and no module-level variable rebinds it.
   */
  namesType(leaf: Node): boolean {
    return this.typeNames.has(leaf.text) && this.free(leaf) && !this.types.get(-1)?.has(leaf.text);
  }

  /** A member use's hint: what its operand holds as far as the file shows (see `PyHint`); null otherwise. */
  hint(leaf: Node, operand: Node | null): string | null {
    return operand ? this.typeOf(leaf, operand, 0) : null;
  }

  private typeOf(leaf: Node, n: Node, depth: number): string | null {
    if (depth > 3) return null;
    if (n.type === "this") return classOf(leaf) ? ":@" : null;
    // `super.m`: the nearest base's `m` (`^`, as Python's `super().m`).
    if (n.type === "super") return depth === 0 && classOf(leaf) ? "^" : null;
    if (n.type === "identifier") {
      for (let fn = functionOf(leaf); fn; fn = functionOf(fn)) {
        const t = this.types.get(fn.id)?.get(n.text);
        if (t !== undefined) return t && ":" + t;
      }
      const t = this.types.get(-1)?.get(n.text);
      if (t === undefined) return ":" + (this.original(n) ?? n.text); // unbound: a class, an import
      return t && ":" + t;
    }
    if (n.type === "parenthesized_expression" || n.type === "non_null_expression") {
      const inner = n.namedChildren[0];
      return inner ? this.typeOf(leaf, inner, depth + 1) : null;
    }
    const v = this.valueOf(leaf, n);
    if (v) return ":" + v;
    const obj = n.childForFieldName("object");
    const prop = n.childForFieldName("property");
    if (n.type !== "member_expression" || !obj || !prop || prop.type !== "property_identifier") return null;
    if (obj.type === "this") {
      const cls = classOf(leaf);
      const t = cls ? this.fields.get(cls.id)?.get(prop.text) : null;
      return t ? ":" + t : t === undefined && cls ? `:@>${prop.text}` : null;
    }
    // `ns.T.m()`, `mod.value.m()`: a dotted name whose head no enclosing function binds is resolved as a whole.
    const head = n.text.split(".")[0];
    if (head !== "this" && DOTTED.test(n.text) && n.text.length <= 200 && !this.boundInFunction(leaf, head)) {
      return ":" + n.text;
    }
    const inner = this.typeOf(leaf, obj, depth + 1);
    return inner ? `${inner}>${prop.text}` : null;
  }

  /**
   * `const { a, b } = v`: each name a shorthand property binds, with the type of that property of what `v`
   * holds (`T>a`); null when the declaration destructures nothing or `v`'s type is unknown.
   */
  private destructured(n: Node): Map<string, string> | null {
    const pattern = n.childForFieldName("name");
    const value = n.childForFieldName("value");
    if (pattern?.type !== "object_pattern" || !value) return null;
    const t = this.typeOf(n, value, 1);
    if (!t?.startsWith(":")) return null;
    const out = new Map<string, string>();
    for (const c of pattern.namedChildren) {
      if (c?.type === "shorthand_property_identifier_pattern") out.set(c.text, `${t.slice(1)}>${c.text}`);
    }
    return out;
  }

  /** True when a function around `leaf` binds `name`. */
  private boundInFunction(leaf: Node, name: string): boolean {
    for (let fn = functionOf(leaf); fn; fn = functionOf(fn)) if (this.types.get(fn.id)?.has(name)) return true;
    return false;
  }

  /** The type a declaration shows: its annotation, else its initial value's class. */
  private declared(n: Node): string | null {
    const t = annotationType(n.childForFieldName("type"));
    return t ? this.unaliased(t) : this.valueOf(n, n.childForFieldName("value"));
  }

  /**
   * The class a value is an instance of as far as the syntax shows it: `new T(…)`, `v as T`, or what calling a
   * dotted name gives (`T.open(…)`, `make(…)`: `T.open()`, `make()`, finished against the index); null otherwise.
   */
  private valueOf(leaf: Node, n: Node | null, depth = 0): string | null {
    const v = valueType(n);
    if (v) return this.unaliased(v);
    const fn = n?.type === "call_expression" ? n.childForFieldName("function") : null;
    if (!fn || fn.text.length > 200) return null;
    const head = fn.text.split(".")[0];
    if (DOTTED.test(fn.text) && head !== "this" && !this.boundInFunction(leaf, head)) {
      return this.unaliased(fn.text) + "()";
    }
    // `this.m()`, `x.m()` on a typed `x`: what the method `m` of that class declares it returns.
    const obj = fn.type === "member_expression" ? fn.childForFieldName("object") : null;
    const prop = fn.type === "member_expression" ? fn.childForFieldName("property") : null;
    if (!obj || prop?.type !== "property_identifier" || depth > 2) return null;
    const inner = this.typeOf(leaf, obj, depth + 1);
    return inner?.startsWith(":") ? `${inner.slice(1)}>${prop.text}()` : null;
  }

  /** A type name with an import alias at its head replaced by the imported name (`Sq` → `Square`). */
  private unaliased(type: string): string {
    const dot = type.indexOf(".");
    const head = dot < 0 ? type : type.slice(0, dot);
    const name = this.imported.get(head);
    return name ? name + type.slice(head.length) : type;
  }

  private mapOf(m: Map<number, Map<string, string | null>>, id: number): Map<string, string | null> {
    let x = m.get(id);
    if (!x) m.set(id, x = new Map());
    return x;
  }
}
