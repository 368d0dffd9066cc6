/**
 * Python locals from one file's syntax: a function's parameters and every
 * name it binds (assignment, `for`, `with … as`, walrus, comprehension and
 * lambda variables), minus its `global` / `nonlocal` names. A bare call of
 * such a name — in the function or a function nested in it — calls a local
 * value, not a definition of the module. Where the file shows what a name or
 * `self.attr` holds (an annotation, or every binding is `= T(…)`), a member
 * use through it gets a type hint (see `PyHint`). Pure: no I/O.
 */
import type { Node } from "web-tree-sitter";

/**
 * A hint on one member use, as stored:
 * - `local`: a bare call of a local value (never stored: the use is dropped);
 * - `:T` — the operand is `T` or an instance of it (`x: T`, `Mod.T`, a name not
 *   bound in the file's functions, `self.a` after `self.a: T`), `T` a dotted name;
 * - `:T()` — the operand is what calling `T` gives (`x = T()`, `T().m()`);
 * - `:@` — the operand is `self` / `cls` (as the start of a longer expression);
 * - any of these then `>a`, `>b`…: the attribute `a` of it, then `b` of that
 *   (`self.loader.graph` where the file does not bind `self.loader`: `:@>loader>graph`);
 * - `^` — the operand is `super()`;
 * - `=T`, `=T()`, `=?` — on the `a` of `self.a = …` (its operand is `self`):
 *   what the assignment stores, `?` when the file does not show it.
 */
export type PyHint = string;

/** Node types that bind names, read by the scope pass (collected by the caller's walk). */
const BINDERS = [
  "assignment",
  "augmented_assignment",
  "for_statement",
  "for_in_clause",
  "as_pattern_target",
  "named_expression",
  "global_statement",
  "nonlocal_statement",
];

/** Node types the scope pass reads. */
export const PY_SCOPE_NODE_TYPES = ["function_definition", "lambda", ...BINDERS];

const FUNCTIONS = new Set(["function_definition", "lambda"]);

const DOTTED = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/;
const SELF = new Set(["self", "cls"]);

/** A dotted name's text (`a.b.C`), or null for any other expression. */
function dottedText(n: Node | null): string | null {
  if (!n || (n.type !== "identifier" && n.type !== "attribute")) return null;
  return n.text.length <= 200 && DOTTED.test(n.text) ? n.text : null;
}

/** The class an annotation names (`T`, `"T"`, `Optional[T]`, `T | None`), or null. */
function annotationType(n: Node | null): string | null {
  if (!n) return null;
  const t = n.text.replace(/^["']|["']$/g, "").replace(/^Optional\[(.*)\]$/, "$1").replace(/\s*\|\s*None$/, "");
  return DOTTED.test(t) && t !== "None" ? t : null;
}

/**
 * What an assigned value is, when it is a call of a dotted name (`T(…)` → `T()`), also as the fallback of an
 * `or` (`query or T()`: the value is a `T` or what the left side holds, the same class as a rule); null otherwise.
 */
function valueType(n: Node | null): string | null {
  if (n?.type === "boolean_operator" && n.children.some((c) => c?.type === "or")) {
    return valueType(n.childForFieldName("right"));
  }
  if (n?.type !== "call") return null;
  const f = dottedText(n.childForFieldName("function"));
  return f ? f + "()" : null;
}

/** The names a parameter list binds, each with its annotation's type (null without one). */
function parameterTypes(params: Node | null): [string, string | null][] {
  const out: [string, string | null][] = [];
  for (const p of params?.namedChildren ?? []) {
    if (!p) continue;
    if (p.type === "identifier") out.push([p.text, null]);
    else if (p.type === "typed_parameter") {
      const id = p.namedChildren.find((c) => c?.type === "identifier");
      const names: string[] = [];
      if (id) names.push(id.text);
      else boundNames(p.namedChildren[0] ?? null, names);
      for (const n of names) out.push([n, id ? annotationType(p.childForFieldName("type")) : null]);
    } else if (p.type === "default_parameter" || p.type === "typed_default_parameter") {
      const name = p.childForFieldName("name");
      if (name) out.push([name.text, annotationType(p.childForFieldName("type"))]);
    } else {
      const names: string[] = [];
      boundNames(p, names);
      for (const n of names) out.push([n, null]);
    }
  }
  return out;
}

/** Records that `name` is bound to `type` in `m`: two different types (or an unknown one) leave it unknown. */
function record(m: Map<string, string | null>, name: string, type: string | null): void {
  if (!m.has(name)) m.set(name, type);
  else if (m.get(name) !== type) m.set(name, null);
}

/** Identifiers a target pattern binds (`a`, `a, b`, `[a, *b]`; not `a.b` or `a[i]`). */
function boundNames(target: Node | null, out: string[]): void {
  if (!target) return;
  if (target.type === "identifier") {
    out.push(target.text);
    return;
  }
  if (target.type === "attribute" || target.type === "subscript") return;
  for (const c of target.namedChildren) if (c) boundNames(c, out);
}

/** The class whose body `n` is in (directly or in one of its methods), or null. */
function classOf(n: Node): Node | null {
  for (let p = n.parent; p; p = p.parent) if (p.type === "class_definition") return p;
  return null;
}

/** The innermost function (or lambda) around `n`, or null at module or class level. */
function functionOf(n: Node): Node | null {
  for (let p = n.parent; p; p = p.parent) {
    if (FUNCTIONS.has(p.type)) return p;
    if (p.type === "class_definition") return null;
  }
  return null;
}

/** The locals of each function of one Python file. */
export class PyScope {
  private locals = new Map<number, Set<string>>();
  /** Per function, then for the module (key -1): the type each bound name holds, null when unknown. */
  private types = new Map<number, Map<string, string | null>>();
  /** Per class: the type each `self.a` / class attribute holds, null when unknown. */
  private attrs = new Map<number, Map<string, string | null>>();
  /** The `a` of each `self.a = …` (by start offset): the type assigned, null when the file does not show it. */
  private assignedAt = new Map<number, string | null>();

  constructor(of: (type: string) => Node[]) {
    for (const t of ["function_definition", "lambda"]) {
      for (const fn of of(t)) {
        const typed = parameterTypes(fn.childForFieldName("parameters"));
        this.bind(fn, typed.map(([n]) => n));
        for (const [n, type] of typed) record(this.typesOf(fn.id), n, type);
      }
    }
    const declared = new Map<number, Set<string>>();
    for (const t of BINDERS) {
      for (const n of of(t)) {
        const fn = functionOf(n);
        if (t === "assignment") this.assigned(n, fn);
        if (!fn) continue;
        const names: string[] = [];
        if (t === "global_statement" || t === "nonlocal_statement") {
          boundNames(n, names);
          const d = declared.get(fn.id) ?? new Set<string>();
          for (const x of names) d.add(x);
          declared.set(fn.id, d);
          continue;
        }
        const target = t === "as_pattern_target" ? n : n.childForFieldName(t === "named_expression" ? "name" : "left");
        boundNames(target, names);
        this.bind(fn, names);
        if (t === "as_pattern_target" && n.parent?.parent?.type === "except_clause") {
          // `except T as e`: `e` is a `T`.
          const caught = dottedText(n.parent.namedChildren[0] ?? null);
          for (const x of names) record(this.typesOf(fn.id), x, caught);
        } else if (t !== "assignment" || target?.type !== "identifier") {
          for (const x of names) record(this.typesOf(fn.id), x, null);
        }
      }
    }
    for (const [id, names] of declared) for (const x of names) this.locals.get(id)?.delete(x);
  }

  /**
   * `local` for a bare callee (no `operand`) naming a local of an enclosing
   * function; for a member use, the operand's type as far as the file shows
   * it (see `PyHint`); null otherwise.
   */
  hint(leaf: Node, operand: Node | null): PyHint | null {
    if (!operand) return leaf.type === "identifier" && this.localFn(leaf, leaf.text) ? "local" : null;
    if (operand.type === "identifier" && SELF.has(operand.text)) {
      const t = this.assignedAt.get(leaf.startIndex);
      return t === undefined ? null : "=" + (t ?? "?");
    }
    return this.typeOf(leaf, operand, 0);
  }

  /** What `n` holds as a hint's type expression (`:T`, `:T()`, `:@>a`, `:T>a`, `^`), seen at `leaf`; or null. */
  private typeOf(leaf: Node, n: Node, depth: number): PyHint | null {
    if (n.type === "identifier") {
      if (SELF.has(n.text)) return classOf(leaf) ? ":@" : null;
      const fn = this.localFn(leaf, n.text);
      const t = fn ? this.types.get(fn.id)?.get(n.text) : this.types.get(-1)?.get(n.text);
      if (t === undefined && !fn) return ":" + n.text; // a class, an imported name
      return t ? ":" + t : null;
    }
    if (n.type === "call") {
      const f = n.childForFieldName("function");
      if (f?.type === "identifier" && f.text === "super") return "^";
      const t = valueType(n);
      return t && !this.localFn(leaf, t.split(/[.(]/)[0]) ? ":" + t : null;
    }
    const obj = n.childForFieldName("object");
    const attr = n.childForFieldName("attribute");
    if (n.type !== "attribute" || !obj || !attr || depth > 3) return null;
    if (obj.type === "identifier" && SELF.has(obj.text)) {
      const cls = classOf(leaf);
      const t = cls ? this.attrs.get(cls.id)?.get(attr.text) : null;
      return t ? ":" + t : t === undefined ? `:@>${attr.text}` : null; // not bound in this file: maybe in a base
    }
    const text = dottedText(n);
    const head = text?.split(".")[0] ?? "";
    if (text && !SELF.has(head)) return this.localFn(leaf, head) ? null : ":" + text;
    const inner = this.typeOf(leaf, obj, depth + 1);
    return inner && inner !== "^" ? `${inner}>${attr.text}` : null;
  }

  /** The innermost function around `leaf` that binds `name`, or null. */
  private localFn(leaf: Node, name: string): Node | null {
    for (let fn = functionOf(leaf); fn; fn = functionOf(fn)) {
      if (this.locals.get(fn.id)?.has(name)) return fn;
    }
    return null;
  }

  /** Types from one assignment: `x = T()`, `x: T`, `self.a = T()` in a method, `a = T()` in a class body. */
  private assigned(n: Node, fn: Node | null): void {
    const left = n.childForFieldName("left");
    const annotated = n.childForFieldName("type");
    const type = annotated ? annotationType(annotated) : valueType(n.childForFieldName("right"));
    if (left?.type === "identifier") {
      const cls = fn ? null : classOf(n);
      if (cls) record(this.attrsOf(cls.id), left.text, type);
      else record(this.typesOf(fn ? fn.id : -1), left.text, type);
      return;
    }
    const obj = left?.childForFieldName("object");
    const attr = left?.childForFieldName("attribute");
    const cls = fn && left?.type === "attribute" && obj?.type === "identifier" && SELF.has(obj.text)
      ? classOf(fn)
      : null;
    if (cls && attr) {
      record(this.attrsOf(cls.id), attr.text, type);
      this.assignedAt.set(attr.startIndex, type);
    } else if (!fn) {
      const names: string[] = [];
      boundNames(left ?? null, names);
      for (const x of names) record(this.typesOf(-1), x, null);
    }
  }

  private typesOf(id: number): Map<string, string | null> {
    let m = this.types.get(id);
    if (!m) this.types.set(id, m = new Map());
    return m;
  }

  private attrsOf(id: number): Map<string, string | null> {
    let m = this.attrs.get(id);
    if (!m) this.attrs.set(id, m = new Map());
    return m;
  }

  private bind(fn: Node, names: string[]): void {
    if (!names.length) return;
    let s = this.locals.get(fn.id);
    if (!s) this.locals.set(fn.id, s = new Set());
    for (const n of names) s.add(n);
  }
}
