/**
 * What one Go file's syntax says about the names it uses, without type
 * checking: which names are locals (parameters, receivers, `:=`, `var`,
 * range and type-switch variables), the declared type of each local where the
 * file spells it, and which identifiers name imported packages. From that,
 * each selector's operand gets a hint the query side can finish against the
 * index (see `GoHint`), and a call of a local function value is known not to
 * be a call of a package function. Pure: no I/O.
 */
import type { Node } from "web-tree-sitter";
import { defaultPackageName } from "../../core/go_package_name.ts";

/**
 * A hint on one occurrence, as stored:
 * - `=path`: the operand is the package imported from `path` (`http.Get`);
 * - `?`: the operand is a local whose type the file does not spell;
 * - `.p1,p2`: a bare name in a file that dot-imports `p1`, `p2`;
 * - a type expression of the operand: `T` (a type of this package), `path#T`
 *   (of an imported package), `$v` / `path#$v` (a package-level variable's
 *   type), `F()` / `path#F()` (the result of a function, `F()1` its second),
 *   then any number of `>f` (a field's type), `>m()` (a method's result) and
 *   `>[]` (an element of a slice, array, map or channel), `>[k]` (a map's key,
 *   a channel's element: what a one-name `range` gives).
 */
export type GoHint = string;

/** Node types that declare locals. */
const DECLARATIONS = [
  "function_declaration",
  "method_declaration",
  "func_literal",
  "short_var_declaration",
  "var_spec",
  "const_spec",
  "range_clause",
  "type_switch_statement",
];

/** Node types the scope pass reads (collected by the caller's walk). */
export const GO_SCOPE_NODE_TYPES = ["import_spec", ...DECLARATIONS];

/** Node types that open a scope: a declaration inside lasts until the node ends. */
const SCOPES = new Set([
  "block",
  "if_statement",
  "for_statement",
  "expression_switch_statement",
  "type_switch_statement",
  "select_statement",
  "expression_case",
  "type_case",
  "default_case",
  "communication_case",
  "function_declaration",
  "method_declaration",
  "func_literal",
]);

const BUILTIN_TYPES = new Set(
  ("bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 " +
    "uint16 uint32 uint64 uintptr any comparable").split(" "),
);

interface Decl {
  start: number;
  end: number;
  /** The declared type expression, or null when the file does not spell it; worked out when first read. */
  type: string | null | (() => string | null);
}

/** A declaration's type expression, worked out (once) when first read: most locals are never a selector's operand. */
function typeOfDecl(d: Decl): string | null {
  if (typeof d.type === "function") d.type = d.type();
  return d.type;
}

/** Locals, declared types and imports of one Go file (built from its collected nodes). */
export class GoScope {
  private decls = new Map<string, Decl[]>();
  private imports = new Map<string, string>();
  private dotImports: string[] = [];

  constructor(of: (type: string) => Node[]) {
    for (const n of of("import_spec")) this.addImport(n);
    // Declarations in source order: a value's type is read from the declarations before it.
    // Each node keeps the type it was collected under (asking the tree again is a call into WebAssembly).
    const decls = DECLARATIONS.flatMap((type) => of(type).map((n) => ({ n, type })))
      .sort((a, b) => a.n.startIndex - b.n.startIndex);
    for (const { n, type } of decls) {
      switch (type) {
        case "short_var_declaration":
          this.addAssigned(n.childForFieldName("left"), n, n);
          break;
        case "var_spec":
          this.addVarSpec(n);
          break;
        case "const_spec":
          if (this.inFunction(n)) this.addNames(n.childrenForFieldName("name"), n, null);
          break;
        case "range_clause": {
          // `for k, v := range m`: a map's key and element, a channel's element (a slice's index is an int).
          const names = n.childForFieldName("left")?.namedChildren ?? [];
          const over = n.childForFieldName("right");
          const ranged = (suffix: string) => () => {
            const t = over ? this.typeOf(over) : null;
            return t ? t + suffix : null;
          };
          this.addNames(names.slice(0, 1), n, ranged(">[k]"));
          this.addNames(names.slice(1), n, ranged(">[]"));
          break;
        }
        case "type_switch_statement": {
          const alias = n.childForFieldName("alias");
          if (alias) this.addNames(alias.namedChildren, alias, null);
          break;
        }
        default:
          this.addParameters(n);
      }
    }
  }

  /**
   * The hint of a name leaf reached through `operand` (a selector's operand,
   * a qualified type's package): what the operand is. Of a bare callee:
   * `local` when it is a local function value, else the dot-imports. Null
   * when nothing is known.
   */
  hint(leaf: Node, operand: Node | null): GoHint | "local" | null {
    if (operand) return this.operandHint(operand);
    if (leaf.type !== "identifier") return null;
    if (this.lookup(leaf.text, leaf.startIndex)) return "local";
    return this.dotImports.length ? "." + this.dotImports.join(",") : null;
  }

  private operandHint(operand: Node): GoHint | null {
    if (operand.type === "identifier" || operand.type === "package_identifier") {
      const d = this.lookup(operand.text, operand.startIndex);
      if (d) return typeOfDecl(d) ?? "?";
      const path = this.imports.get(operand.text);
      if (path !== undefined) return "=" + path;
      return "$" + operand.text;
    }
    return this.typeOf(operand);
  }

  private lookup(name: string, at: number): Decl | null {
    const ds = this.decls.get(name);
    if (!ds) return null;
    let best: Decl | null = null;
    for (const d of ds) if (d.start <= at && at < d.end && (!best || d.start > best.start)) best = d;
    return best;
  }

  private addImport(n: Node): void {
    const raw = n.childForFieldName("path")?.text ?? "";
    const path = raw.replace(/^["`]|["`]$/g, "");
    if (!path) return;
    const name = n.childForFieldName("name");
    if (name?.type === "dot") this.dotImports.push(path);
    else if (name?.type === "blank_identifier") return;
    else this.imports.set(name ? name.text : defaultPackageName(path), path);
  }

  private inFunction(n: Node): boolean {
    for (let p = n.parent; p; p = p.parent) {
      if (p.type === "block") return true;
      if (p.type === "source_file") return false;
    }
    return false;
  }

  /** The end of the scope a declaration at `n` lives in. */
  private scopeEnd(n: Node): number {
    for (let p = n.parent; p; p = p.parent) if (SCOPES.has(p.type)) return p.endIndex;
    return -1;
  }

  private declare(name: string, start: number, end: number, type: Decl["type"]): void {
    if (end < 0 || name === "_") return;
    const ds = this.decls.get(name);
    if (ds) ds.push({ start, end, type });
    else this.decls.set(name, [{ start, end, type }]);
  }

  private addNames(names: (Node | null)[], at: Node, type: Decl["type"]): void {
    const end = this.scopeEnd(at);
    for (const n of names) if (n?.type === "identifier") this.declare(n.text, at.endIndex, end, type);
  }

  private addParameters(fn: Node): void {
    for (const field of ["receiver", "parameters", "result"]) {
      const list = fn.childForFieldName(field);
      if (!list || list.type !== "parameter_list") continue;
      for (const p of list.namedChildren) {
        if (!p) continue;
        const t = p.childForFieldName("type");
        const type = t ? () => this.typeOfType(t) : null;
        for (const name of p.childrenForFieldName("name")) {
          if (name) this.declare(name.text, fn.startIndex, fn.endIndex, type);
        }
      }
    }
  }

  private addVarSpec(n: Node): void {
    if (!this.inFunction(n)) return;
    const t = n.childForFieldName("type");
    const names = n.childrenForFieldName("name");
    if (t) return this.addNames(names, n, () => this.typeOfType(t));
    this.addAssigned(null, n, n, names);
  }

  /** `a, b := x, y` / `a, b := f()`: each name with the type of its value. */
  private addAssigned(left: Node | null, values: Node, at: Node, names?: (Node | null)[]): void {
    const ls = names ?? left?.namedChildren ?? [];
    const rs = values.childForFieldName(values.type === "var_spec" ? "value" : "right")?.namedChildren ?? [];
    const end = this.scopeEnd(at);
    ls.forEach((l, i) => {
      if (l?.type !== "identifier") return;
      const type = () => {
        if (rs.length === ls.length) return rs[i] ? this.typeOf(rs[i]!) : null;
        if (rs.length === 1 && rs[0]!.type === "call_expression") {
          const t = this.typeOf(rs[0]!);
          return t && t.endsWith("()") ? (i ? t + i : t) : i ? null : t;
        }
        return rs.length === 1 && i === 0 ? this.typeOf(rs[0]!) : null; // `v, ok := m[k]`, `x.(T)`, `<-ch`
      };
      this.declare(l.text, at.endIndex, end, type);
    });
  }

  /** The type expression of a value expression, when the file spells enough of it. */
  private typeOf(e: Node, depth = 0): string | null {
    if (depth > 8) return null;
    switch (e.type) {
      case "identifier": {
        const d = this.lookup(e.text, e.startIndex);
        if (d) return typeOfDecl(d);
        return this.imports.has(e.text) ? null : "$" + e.text;
      }
      case "parenthesized_expression":
        return e.firstNamedChild ? this.typeOf(e.firstNamedChild, depth + 1) : null;
      case "composite_literal": {
        const t = e.childForFieldName("type");
        return t ? this.typeOfType(t) : null;
      }
      case "unary_expression": {
        // `&T{}`, and `*p` (pointers are seen through: `*p` has the named type `p` has).
        const op = e.childForFieldName("operator")?.text ?? e.firstChild?.text;
        const x = e.childForFieldName("operand");
        if (!x) return null;
        if (op === "<-") {
          const ch = this.typeOf(x, depth + 1);
          return ch ? ch + ">[]" : null;
        }
        return op === "&" || op === "*" ? this.typeOf(x, depth + 1) : null;
      }
      case "index_expression": {
        const x = e.childForFieldName("operand");
        const base = x ? this.typeOf(x, depth + 1) : null;
        return base ? base + ">[]" : null;
      }
      case "type_assertion_expression": {
        const t = e.childForFieldName("type");
        return t ? this.typeOfType(t) : null;
      }
      case "selector_expression": {
        const x = e.childForFieldName("operand");
        const f = e.childForFieldName("field");
        if (!x || !f) return null;
        if (x.type === "identifier" && !this.lookup(x.text, x.startIndex) && this.imports.has(x.text)) {
          return `${this.imports.get(x.text)}#$${f.text}`;
        }
        const base = this.typeOf(x, depth + 1);
        return base ? `${base}>${f.text}` : null;
      }
      case "call_expression":
        return this.resultOf(e, depth);
      default:
        return null;
    }
  }

  /** The type expression of a call's (first) result. */
  private resultOf(call: Node, depth: number): string | null {
    const fn = call.childForFieldName("function");
    if (!fn) return null;
    if (fn.type === "identifier") {
      if (this.lookup(fn.text, fn.startIndex)) return null; // a local function value
      if (fn.text === "new") {
        const arg = call.childForFieldName("arguments")?.firstNamedChild;
        return arg ? this.typeOfType(arg) : null;
      }
      return BUILTIN_TYPES.has(fn.text) ? null : fn.text + "()";
    }
    if (fn.type === "selector_expression") {
      const x = fn.childForFieldName("operand");
      const f = fn.childForFieldName("field");
      if (!x || !f) return null;
      if (x.type === "identifier" && !this.lookup(x.text, x.startIndex)) {
        const path = this.imports.get(x.text);
        if (path !== undefined) return `${path}#${f.text}()`;
      }
      const base = this.typeOf(x, depth + 1);
      return base ? `${base}>${f.text}()` : null;
    }
    if (fn.type === "parenthesized_expression" || fn.type === "qualified_type" || fn.type === "pointer_type") {
      return this.typeOfType(fn); // a conversion `(*T)(x)`
    }
    return null;
  }

  /** The type expression of a type node: named types only (pointers see through, generics drop arguments). */
  private typeOfType(t: Node): string | null {
    switch (t.type) {
      case "type_identifier":
        return BUILTIN_TYPES.has(t.text) ? null : t.text;
      case "identifier": // `new(T)` parses T as an expression
        return this.lookup(t.text, t.startIndex) || BUILTIN_TYPES.has(t.text) ? null : t.text;
      case "pointer_type":
      case "parenthesized_type":
      case "parenthesized_expression":
      case "unary_expression": {
        const inner = t.childForFieldName("operand") ?? t.lastNamedChild;
        return inner ? this.typeOfType(inner) : null;
      }
      case "generic_type": {
        const inner = t.childForFieldName("type");
        return inner ? this.typeOfType(inner) : null;
      }
      case "qualified_type":
      case "selector_expression": {
        const pkg = t.childForFieldName(t.type === "qualified_type" ? "package" : "operand");
        const name = t.childForFieldName(t.type === "qualified_type" ? "name" : "field");
        const path = pkg ? this.imports.get(pkg.text) : undefined;
        return path !== undefined && name ? `${path}#${name.text}` : null;
      }
      default:
        return null;
    }
  }
}
