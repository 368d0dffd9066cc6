/**
 * Python locals from one file's syntax: a function's parameters and every
 * name it binds (assignment, `for`, `with … as`, walrus, comprehension and
 * lambda variables), minus its `global` / `nonlocal` names. A bare call of
 * such a name — in the function or a function nested in it — calls a local
 * value, not a definition of the module. Pure: no I/O.
 */
import type { Node } from "web-tree-sitter";

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

  constructor(of: (type: string) => Node[]) {
    for (const t of ["function_definition", "lambda"]) {
      for (const fn of of(t)) {
        const names: string[] = [];
        boundNames(fn.childForFieldName("parameters"), names);
        this.bind(fn, names);
      }
    }
    const declared = new Map<number, Set<string>>();
    for (const t of BINDERS) {
      for (const n of of(t)) {
        const fn = functionOf(n);
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
      }
    }
    for (const [id, names] of declared) for (const x of names) this.locals.get(id)?.delete(x);
  }

  /** `local` for a bare callee (no `operand`) naming a local of an enclosing function; null otherwise. */
  hint(leaf: Node, operand: Node | null): "local" | null {
    if (operand || leaf.type !== "identifier") return null;
    return this.isLocal(leaf) ? "local" : null;
  }

  private isLocal(leaf: Node): boolean {
    for (let fn = functionOf(leaf); fn; fn = functionOf(fn)) {
      if (this.locals.get(fn.id)?.has(leaf.text)) return true;
    }
    return false;
  }

  private bind(fn: Node, names: string[]): void {
    if (!names.length) return;
    let s = this.locals.get(fn.id);
    if (!s) this.locals.set(fn.id, s = new Set());
    for (const n of names) s.add(n);
  }
}
