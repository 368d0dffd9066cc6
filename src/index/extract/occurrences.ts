/**
 * Identifier occurrences that refer to other symbols: callees, type uses,
 * imported names, base types and attribute/field accesses, each with its
 * position and enclosing symbol. Works from node shapes most tree-sitter
 * grammars share (call nodes of the language spec, `type_identifier`,
 * member/selector/attribute/field expressions) so every language with full
 * symbols gets references without rules of its own. Plain value reads
 * (`x = y`) and definition names are not occurrences. Pure: no I/O.
 */
import type { Node, Tree } from "web-tree-sitter";
import type { ExtractedOccurrence, ExtractedSymbol, ReferenceKind, SymbolKind } from "../../core/types.ts";
import type { LanguageSpec } from "./spec.ts";
import { GO_SCOPE_NODE_TYPES, GoScope } from "./go_scope.ts";
import { PY_SCOPE_NODE_TYPES, PyScope } from "./py_scope.ts";
import { TS_SCOPE_NODE_TYPES, TsScope } from "./ts_scope.ts";

/** Leaf node types that spell a name. */
const NAME_LEAVES = new Set([
  "identifier",
  "type_identifier",
  "field_identifier",
  "property_identifier",
  "private_property_identifier",
  "constant",
  "name",
  "simple_identifier",
]);

/** Member-access node types → the field holding the member name and the one holding the object. */
const ACCESS: Record<string, [string, string]> = {
  selector_expression: ["field", "operand"], // Go
  member_expression: ["property", "object"], // JS/TS
  attribute: ["attribute", "object"], // Python
  field_expression: ["field", "value"], // Rust; C uses `argument`
  field_access: ["field", "object"], // Java
  member_access_expression: ["name", "expression"], // C#
  scoped_identifier: ["name", "path"], // Rust paths, Java
  scoped_type_identifier: ["name", "path"], // Rust
  qualified_type: ["name", "package"], // Go
  member_call_expression: ["name", "object"], // PHP
  nullsafe_member_call_expression: ["name", "object"],
  scoped_call_expression: ["name", "scope"],
  method_invocation: ["name", "object"], // Java
  call: ["method", "receiver"], // Ruby (a call node that is also its callee)
};

/** Containers of base-type lists in class-like definitions. */
const HERITAGE = new Set([
  "superclasses", // Python (a field holding an argument_list)
  "class_heritage",
  "extends_clause",
  "implements_clause",
  "extends_type_clause",
  "superclass",
  "super_interfaces",
  "extends_interfaces",
  "base_list",
  "base_class_clause",
  "trait_bounds",
]);

/** Fields of an import statement that hold the module path or a local alias, not an imported name. */
const IMPORT_SKIP_FIELDS = new Set(["module_name", "source", "path", "alias"]);

/** Declaration nodes whose `name` field defines, not references, even when no spec rule matches them. */
const DECLARES = new Set(["type_parameter", "type_parameter_declaration", "parameter", "required_parameter"]);

/** Symbols that enclose occurrences (members such as fields are skipped in favour of their container). */
const NOT_ENCLOSING = new Set<SymbolKind>(["field", "enum_member", "property"]);

const MAX_NAME = 200;

/** Predeclared type names a grammar spells as ordinary type identifiers (Go): never a symbol of the repository. */
const BUILTIN_TYPES: Record<string, Set<string>> = {
  go: new Set(
    ("bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 " +
      "uint16 uint32 uint64 uintptr any comparable").split(" "),
  ),
};

/** A name leaf with what it is reached through: the object's text (see `qualifierText`) and node. */
interface Member {
  leaf: Node;
  qualifier: string | null;
  operand: Node | null;
}

/** The member-name leaf of a callee or access expression (`a.b.c` → `c`), with what it is reached through. */
function memberLeaf(n: Node, depth = 0): Member | null {
  if (NAME_LEAVES.has(n.type)) return { leaf: n, qualifier: null, operand: null };
  if (depth > 4) return null;
  const access = ACCESS[n.type];
  if (access) {
    const member = n.childForFieldName(access[0]) ??
      (n.type === "field_expression" ? n.childForFieldName("field") : null);
    if (member && NAME_LEAVES.has(member.type)) {
      const obj = n.childForFieldName(access[1]) ?? n.childForFieldName("argument");
      return { leaf: member, qualifier: obj ? qualifierText(obj) : null, operand: obj };
    }
  }
  // Generic instantiations and wrappers: `f[T](x)`, `f::<T>()`, `(f)(x)`, `new Foo<T>()`.
  for (const field of ["function", "operand", "name", "type", "value"]) {
    const c = n.childForFieldName(field);
    if (c && c.id !== n.id) {
      const r = memberLeaf(c, depth + 1);
      if (r) return r;
    }
  }
  if (n.type === "parenthesized_expression" || n.type === "generic_type") {
    const c = n.firstNamedChild;
    if (c) return memberLeaf(c, depth + 1);
  }
  return null;
}

/** `self` / `fmt` / `os` for a plain identifier object; "" for any other expression. */
function qualifierText(obj: Node): string {
  if (
    NAME_LEAVES.has(obj.type) || obj.type === "self" || obj.type === "this" || obj.type === "super" ||
    obj.type === "package_identifier"
  ) {
    return obj.text.length <= MAX_NAME ? obj.text : "";
  }
  return "";
}

/**
 * The first leaf spelled `name` in a call node outside its arguments, in source order (custom call rules return
 * only the name; the grammar's leaf type varies: Bash `word`, Haskell `variable`, PowerShell `simple_name`).
 */
function leafNamed(n: Node, name: string, depth = 0): Node | null {
  for (const c of n.namedChildren) {
    if (!c || /argument/.test(c.type)) continue;
    if (c.text === name && (NAME_LEAVES.has(c.type) || c.namedChildCount === 0)) return c;
    if (depth < 4) {
      const r = leafNamed(c, name, depth + 1);
      if (r) return r;
    }
  }
  return null;
}

/** Every name leaf under `n` (bounded), in source order. */
function leavesUnder(n: Node, out: Node[], skipFields?: Set<string>, depth = 0): void {
  if (depth > 12 || out.length > 2000) return;
  if (NAME_LEAVES.has(n.type)) {
    out.push(n);
    return;
  }
  const count = n.namedChildCount;
  for (let i = 0; i < count; i++) {
    const c = n.namedChild(i);
    if (!c) continue;
    if (skipFields) {
      const f = n.fieldNameForNamedChild(i);
      if (f && skipFields.has(f)) continue;
    }
    leavesUnder(c, out, skipFields, depth + 1);
  }
}

/** Per-line innermost enclosing symbol (by line spans: the smallest span wins). */
function enclosingByLine(symbols: ExtractedSymbol[], lines: number): Int32Array {
  const at = new Int32Array(lines + 2).fill(-1);
  const order = symbols.map((_s, i) => i).filter((i) => !NOT_ENCLOSING.has(symbols[i].kind))
    .sort((a, b) => (symbols[b].lineEnd - symbols[b].lineStart) - (symbols[a].lineEnd - symbols[a].lineStart) || a - b);
  for (const i of order) {
    const s = symbols[i];
    const hi = Math.min(s.lineEnd, lines + 1);
    for (let l = Math.max(1, s.lineStart); l <= hi; l++) at[l] = i;
  }
  return at;
}

/** Languages whose member uses get TypeScript scope hints. */
const TS_FAMILY = new Set(["typescript", "tsx", "javascript"]);

/** The node types occurrence extraction reads (a caller walking the tree once can collect them too). */
export function occurrenceNodeTypes(spec: LanguageSpec): string[] {
  return [
    ...new Set<string>([
      ...Object.keys(spec.calls ?? {}),
      ...Object.keys(spec.imports ?? {}),
      ...Object.keys(spec.uses ?? {}),
      ...Object.entries(spec.defs).filter(([, r]) => r.heritage).map(([t]) => t),
      ...Object.keys(ACCESS),
      "type_identifier",
      ...(spec.id === "python" ? ["type"] : []),
      ...(spec.id === "go" ? GO_SCOPE_NODE_TYPES : spec.id === "python" ? PY_SCOPE_NODE_TYPES : []),
      ...(TS_FAMILY.has(spec.id) ? [...TS_SCOPE_NODE_TYPES, ...TS_VALUE_NODE_TYPES] : []),
    ]),
  ];
}

/**
 * The identifier occurrences of one parsed file. `symbols` are the file's
 * extracted definitions (for the enclosing symbol); a definition's own name
 * is never an occurrence. `collected`: the tree's nodes of (at least) the
 * `occurrenceNodeTypes` with their node types (`types[i]` of `nodes[i]`),
 * when the caller already walked the tree for them.
 */
export function extractOccurrences(
  tree: Tree,
  spec: LanguageSpec,
  symbols: ExtractedSymbol[],
  source: string,
  collected?: { nodes: Node[]; types: string[] },
): ExtractedOccurrence[] {
  const root = tree.rootNode;
  const language = tree.language;
  const callTypes = Object.keys(spec.calls ?? {});
  const importTypes = Object.keys(spec.imports ?? {});
  const heritageDefs = Object.entries(spec.defs).filter(([, r]) => r.heritage).map(([t]) => t);
  const defTypes = new Set(Object.keys(spec.defs));
  let nodes = collected?.nodes;
  let nodeTypes = collected?.types;
  if (!nodes || !nodeTypes) {
    const types = occurrenceNodeTypes(spec).filter((t) => language.idForNodeType(t, true));
    if (!types.length) return [];
    nodes = root.descendantsOfType(types).filter((n): n is Node => n !== null);
    nodeTypes = nodes.map((n) => n.type);
  }

  let lineCount = 1;
  for (let i = source.indexOf("\n"); i >= 0; i = source.indexOf("\n", i + 1)) lineCount++;
  const byType = new Map<string, Node[]>();
  for (let i = 0; i < nodes.length; i++) {
    let l = byType.get(nodeTypes[i]);
    if (!l) byType.set(nodeTypes[i], l = []);
    l.push(nodes[i]);
  }
  const of = (t: string) => byType.get(t) ?? [];
  const scope = spec.id === "go"
    ? new GoScope(of)
    : spec.id === "python"
    ? new PyScope(of)
    : TS_FAMILY.has(spec.id)
    ? new TsScope(of)
    : null;
  const c = new Occurrences(enclosingByLine(symbols, lineCount), defTypes, scope);

  // Priority (the first kind a leaf is added as wins): a base type is `inherit` before it is a `type`; a
  // callee is a `call` before it is an `attribute`.
  inheritOccurrences(c, heritageDefs, of);
  callOccurrences(c, spec, callTypes, of);
  importOccurrences(c, spec, importTypes, of);
  accessOccurrences(c, of);
  if (scope instanceof TsScope) tsValueOccurrences(c, scope, of);
  typeOccurrences(c, BUILTIN_TYPES[spec.id], of);
  useOccurrences(c, spec, of);
  return c.sorted();
}

/** Names read in expressions, by the language's `uses` rules. */
function useOccurrences(c: Occurrences, spec: LanguageSpec, of: NodesOf): void {
  for (const [t, isUse] of Object.entries(spec.uses ?? {})) {
    for (const n of of(t)) if (isUse(n)) c.add(n, "use", null);
  }
}

/** Nodes of a type, from the file's collected nodes. */
type NodesOf = (type: string) => Node[];

/** The occurrences of one file as they are found: each leaf once, its enclosing symbol by line. */
class Occurrences {
  private seen = new Set<number>();
  private out: ExtractedOccurrence[] = [];

  constructor(
    private enclosing: Int32Array,
    private defTypes: ReadonlySet<string>,
    private scope: {
      hint(leaf: Node, operand: Node | null): string | null;
      original?(leaf: Node): string | null;
    } | null,
  ) {}

  /**
   * Adds `leaf` as a use of `kind` unless it was added before, is no name, is a definition's own name, or (Go,
   * Python) calls a local value. `operand`: the object the name is reached through (for the language's hint).
   */
  add(
    leaf: Node,
    kind: ReferenceKind,
    qualifier: string | null | (() => string | null),
    operand: Node | null | (() => Node | null) = null,
  ): void {
    if (this.seen.has(leaf.startIndex)) return;
    this.seen.add(leaf.startIndex);
    if (typeof qualifier === "function") qualifier = qualifier();
    // A bare use of an import alias (`import { f as g }`; `g()`) is recorded as a use of the imported name.
    const name = (kind !== "import" && qualifier === null ? this.scope?.original?.(leaf) : null) ?? leaf.text;
    if (!name || name.length > MAX_NAME || !/^[\p{L}_$@][\p{L}\p{N}_$!?.:-]*$/u.test(name)) return;
    // A callee or a member access is never a definition's own name; only type, import and base-type leaves can be.
    if (kind !== "call" && kind !== "attribute" && this.isDefinitionName(leaf)) return;
    // Only a callee or a qualified name can have a hint (bare type, import and base-type names have none).
    const hint = this.scope && (kind === "call" || qualifier !== null)
      ? this.scope.hint(leaf, typeof operand === "function" ? operand() : operand)
      : null;
    if (hint === "local") return;
    const line = leaf.startPosition.row + 1;
    const from = this.enclosing[line];
    const o: ExtractedOccurrence = {
      name,
      kind,
      line,
      column: leaf.startPosition.column + 1,
      qualifier,
      from: from < 0 ? null : from,
    };
    if (hint !== null) o.hint = hint;
    this.out.push(o);
  }

  /** Everything added, in source order. */
  sorted(): ExtractedOccurrence[] {
    return this.out.sort((a, b) => a.line - b.line || a.column - b.column);
  }

  private isDefinitionName(leaf: Node): boolean {
    const p = leaf.parent;
    if (!p) return false;
    if (!this.defTypes.has(p.type) && !DECLARES.has(p.type)) return false;
    const name = p.childForFieldName("name");
    return !!name && name.startIndex === leaf.startIndex;
  }
}

/** Base types named in definitions' heritage clauses (`inherit`). */
function inheritOccurrences(c: Occurrences, heritageDefs: string[], of: NodesOf): void {
  for (const t of heritageDefs) {
    for (const def of of(t)) {
      const leaves: Node[] = [];
      const field = def.childForFieldName("superclasses");
      for (const c of def.namedChildren) {
        if (c && (HERITAGE.has(c.type) || (field && field.id === c.id))) leavesUnder(c, leaves);
      }
      // Go embeds and TS interface `extends` live one level down (in the type / body).
      for (const l of leaves) {
        const m = memberLeaf(l.parent && ACCESS[l.parent.type] ? l.parent : l);
        if (m) c.add(m.leaf, "inherit", m.qualifier);
      }
    }
  }
}

/** Callees of calls (`call`), with the object they are called on as qualifier. */
function callOccurrences(c: Occurrences, spec: LanguageSpec, callTypes: string[], of: NodesOf): void {
  for (const t of callTypes) {
    const rule = spec.calls![t];
    for (const call of of(t)) {
      let m: Member | null = null;
      if (typeof rule === "function") {
        const name = rule(call);
        const leaf = name ? leafNamed(call, name) : null;
        if (leaf) {
          const p = leaf.parent;
          const access = p ? ACCESS[p.type] : undefined;
          const obj = access ? p!.childForFieldName(access[1]) : null;
          m = { leaf, qualifier: obj ? qualifierText(obj) : null, operand: obj };
        }
      } else {
        for (const field of rule) {
          const callee = field === "" ? call : call.childForFieldName(field);
          if (!callee) continue;
          m = memberLeaf(callee);
          // `obj.method(...)` written as one node (Java, PHP): the object is the call's own field.
          if (m && m.qualifier === null && ACCESS[t] && callee.id !== call.id) {
            const obj = call.childForFieldName(ACCESS[t][1]);
            if (obj) m.qualifier = qualifierText(obj), m.operand = obj;
          }
          break;
        }
      }
      if (m) c.add(m.leaf, "call", m.qualifier, m.operand);
    }
  }
}

/** Names imports bring in (`import`): the last part of a dotted path. */
function importOccurrences(c: Occurrences, spec: LanguageSpec, importTypes: string[], of: NodesOf): void {
  for (const t of importTypes) {
    for (const imp of of(t)) {
      // Some languages' import rules share a node type with calls (`require`, `alias`): only real imports count.
      if (!spec.imports![t](imp).some(Boolean)) continue;
      const leaves: Node[] = [];
      leavesUnder(imp, leaves, IMPORT_SKIP_FIELDS);
      for (const l of leaves) {
        // Of a dotted path (`a.b.c`) only the last part names something imported.
        const p = l.parent;
        if (p && (p.type === "dotted_name" || p.type === "scoped_identifier") && p.lastNamedChild?.id !== l.id) {
          continue;
        }
        c.add(l, "import", null);
      }
    }
  }
}

/** Member accesses (`attribute`) and qualified types (`type`), with their object as qualifier. */
function accessOccurrences(c: Occurrences, of: NodesOf): void {
  for (const [t, [member, object]] of Object.entries(ACCESS)) {
    if (t === "call" || t === "method_invocation" || t.endsWith("call_expression")) continue;
    for (const n of of(t)) {
      const leaf = n.childForFieldName(member);
      if (!leaf || !NAME_LEAVES.has(leaf.type)) continue;
      const kind: ReferenceKind = leaf.type === "type_identifier" || t === "qualified_type" ? "type" : "attribute";
      let obj: Node | null | undefined;
      const objOf = () =>
        obj !== undefined ? obj : (obj = n.childForFieldName(object) ?? n.childForFieldName("argument"));
      c.add(leaf, kind, () => {
        const o = objOf();
        return o ? qualifierText(o) : null;
      }, objOf);
    }
  }
}

/** TypeScript/JavaScript nodes whose names are uses of a class or function spelled as a value. */
const TS_VALUE_NODE_TYPES = ["binary_expression", "type_query"];

/**
 * TypeScript/JavaScript classes, enums and imports used as values (`type`): `x instanceof T`, `T.staticM()`,
 * `E.A` (a name the file imports or declares as a class or enum, no local rebinding it), and `typeof f` in a type.
 */
function tsValueOccurrences(c: Occurrences, scope: TsScope, of: NodesOf): void {
  for (const n of of("binary_expression")) {
    const right = n.childForFieldName("right");
    if (right?.type !== "identifier" || !n.children.some((x) => x?.type === "instanceof")) continue;
    if (scope.namesType(right)) c.add(right, "type", null);
  }
  for (const n of of("member_expression")) {
    const obj = n.childForFieldName("object");
    if (obj?.type === "identifier" && scope.namesType(obj)) c.add(obj, "type", null);
  }
  for (const n of of("type_query")) {
    const id = n.namedChildren[0];
    if (id?.type === "identifier" && scope.free(id)) c.add(id, "type", null);
  }
}

/** Type names (`type`), except the language's built-in types. */
function typeOccurrences(c: Occurrences, builtins: ReadonlySet<string> | undefined, of: NodesOf): void {
  for (const n of of("type_identifier")) if (!builtins?.has(n.text)) c.add(n, "type", null);
  for (const n of of("type")) {
    const leaves: Node[] = [];
    leavesUnder(n, leaves);
    for (const l of leaves) c.add(l, "type", null);
  }
}
