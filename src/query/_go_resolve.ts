/**
 * Finishing Go hints (src/index/extract/go_scope.ts) against the index: the
 * named type a selector's operand has, the method or field a member name
 * then means (through embedded fields too), and which directory an import
 * path names. Reads symbols, their signatures and the files' import edges;
 * every answer is cached for the life of one resolver (one query).
 */
import type { Db } from "../state/db.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { childrenOf, symbolByRowId, symbolsByName } from "../state/read/symbols.ts";
import { importTargetsOf } from "../state/read/edges.ts";
import { referencesInLines } from "../state/read/references.ts";
import { defaultPackageName } from "../core/go_package_name.ts";
import { dirOf } from "./_symbol_row.ts";
import { isTestPath } from "../core/test_paths.ts";

/** A named Go type of the index: its definitions in one directory (files for other builds may each define it). */
export interface GoType {
  dir: string;
  name: string;
  rows: SymbolRow[];
}

const GO_TYPE_KINDS = new Set(["struct", "interface", "type"]);
const BUILTIN = new Set(
  ("bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 " +
    "uint16 uint32 uint64 uintptr any comparable").split(" "),
);
const MAX_DEPTH = 6;

/** True when the import path `importPath` names the package in directory `dir` of the index. */
export function importNamesDir(importPath: string, dir: string): boolean {
  if (!dir) return false;
  return importPath === dir || importPath.endsWith("/" + dir) || dir.endsWith("/" + importPath);
}

/** The type a Go method or field belongs to: its parent, or the receiver named in its qualified name. */
export function goOwnerName(sym: SymbolRow, parent: SymbolRow | undefined): string | null {
  if (parent) return parent.name;
  if (sym.kind !== "method") return null;
  const parts = sym.qualified_name.split(".");
  return parts.length >= 3 ? parts[parts.length - 2] : null;
}

/** Finishes Go hints against one index. */
export class GoResolver {
  private byName = new Map<string, SymbolRow[]>();
  private byDir = new Map<string, Map<string, SymbolRow[]>>();
  private types = new Map<string, GoType | null>();
  private children = new Map<number, SymbolRow[]>();
  private imports = new Map<string, string[]>();

  constructor(private db: Db) {}

  /** Go symbols spelled exactly `name`. */
  named(name: string): SymbolRow[] {
    let rows = this.byName.get(name);
    if (!rows) {
      rows = symbolsByName(this.db, name).filter((r) => r.language === "go" && r.name === name);
      this.byName.set(name, rows);
    }
    return rows;
  }

  /** `named`, by directory (a name's definitions are looked up per package far more often than in all). */
  private namedByDir(name: string): Map<string, SymbolRow[]> {
    let m = this.byDir.get(name);
    if (!m) {
      m = new Map();
      for (const r of this.named(name)) {
        const d = dirOf(r.path);
        const l = m.get(d);
        if (l) l.push(r);
        else m.set(d, [r]);
      }
      this.byDir.set(name, m);
    }
    return m;
  }

  /** The named type a hint's type expression means in file `path`; null when it is no type expression or unknown. */
  typeOf(hint: string, path: string, depth = 0): GoType | null {
    if (!hint || "=.?".includes(hint[0]) || depth > MAX_DEPTH) return null;
    const key = dirOf(path) + "\0" + hint;
    if (this.types.has(key)) return this.types.get(key)!;
    this.types.set(key, null); // a cycle through this key answers "unknown"
    const t = this.evaluate(hint, path, depth);
    this.types.set(key, t);
    return t;
  }

  /**
   * The method or field `name` of `t`, its own or promoted through embedded
   * fields and embedded interfaces: every definition of it (files for other
   * platforms may each define it), the portable ones first.
   */
  members(t: GoType, name: string, depth = 0): SymbolRow[] {
    const ids = new Set(t.rows.map((r) => r.id));
    const own = (this.namedByDir(name).get(t.dir) ?? []).filter((r) => (ids.has(r.parent_id ?? -1) ||
      (r.parent_id === null && r.kind === "method" && r.qualified_name.endsWith(`.${t.name}.${name}`)))
    );
    if (own.length || depth > 3) return own.sort((a, b) => platformRank(a.path) - platformRank(b.path));
    for (const inner of this.embedded(t, depth)) {
      const m = this.members(inner, name, depth + 1);
      if (m.length) return m;
    }
    return [];
  }

  /** The methods an interface type declares or embeds (one of each name). */
  interfaceMethods(t: GoType, depth = 0): SymbolRow[] {
    const out = new Map<string, SymbolRow>();
    for (const row of t.rows) {
      for (const m of this.childrenOf(row)) if (m.kind === "method" && !out.has(m.name)) out.set(m.name, m);
    }
    if (depth < 4) {
      for (const inner of this.embedded(t, depth)) {
        for (const m of this.interfaceMethods(inner, depth + 1)) if (!out.has(m.name)) out.set(m.name, m);
      }
    }
    return [...out.values()];
  }

  /** The type a method is declared on (its receiver's type), or null when the index does not hold it. */
  receiverType(method: SymbolRow): GoType | null {
    const owner = goOwnerName(method, undefined);
    return owner ? this.typeOf(owner, method.path) : null;
  }

  /** The first of `members`, or null. */
  member(t: GoType, name: string): SymbolRow | null {
    return this.members(t, name)[0] ?? null;
  }

  /**
   * The struct types with an embedded field of type `t` (`T`, `*T`, `pkg.T`): they have `t`'s methods
   * (promoted), so they may implement what `t` implements.
   */
  embeddersOf(t: GoType): GoType[] {
    const out = new Map<string, GoType>();
    for (const f of this.named(t.name)) {
      if (f.kind !== "field" || f.parent_id === null || !isEmbedded(f)) continue;
      const inner = this.typeOfText(f.signature, f.path, 0);
      if (!inner || inner.dir !== t.dir || inner.name !== t.name) continue;
      const parent = symbolByRowId(this.db, f.parent_id);
      if (!parent || parent.kind !== "struct") continue;
      const owner = this.typeOf(parent.name, parent.path);
      if (owner) out.set(owner.dir + "\0" + owner.name, owner);
    }
    return [...out.values()];
  }

  /** The types `t` embeds: a struct's embedded fields, an interface's embedded interfaces. */
  private embedded(t: GoType, depth: number): GoType[] {
    const out: GoType[] = [];
    for (const row of t.rows) {
      if (row.kind === "interface") {
        // Embedded interfaces are the type names on lines no method of the interface is declared on.
        const methods = this.childrenOf(row);
        const onMethod = (line: number) => methods.some((m) => m.line_start <= line && line <= m.line_end);
        for (const r of referencesInLines(this.db, row.path, row.line_start + 1, row.line_end)) {
          if ((r.kind !== "inherit" && r.kind !== "type") || onMethod(r.line)) continue;
          const expr = r.hint?.startsWith("=") ? `${r.hint.slice(1)}#${r.name}` : r.qualifier === null ? r.name : null;
          const inner = expr ? this.typeOf(expr, row.path, depth + 1) : null;
          if (inner) out.push(inner);
        }
        continue;
      }
      for (const f of this.childrenOf(row)) {
        if (f.kind !== "field" || !isEmbedded(f)) continue;
        const inner = this.typeOfText(f.signature, f.path, depth + 1);
        if (inner) out.push(inner);
      }
    }
    return out;
  }

  /** The top-level function, type, variable or constant `name` in a directory `inDir` accepts. */
  topLevel(name: string, inDir: (dir: string) => boolean, kinds?: ReadonlySet<string>): SymbolRow | null {
    return this.topLevels(name, inDir, kinds)[0] ?? null;
  }

  /** Every definition `topLevel` chooses from, the likeliest first (not a test, not another platform's). */
  private topLevels(name: string, inDir: (dir: string) => boolean, kinds?: ReadonlySet<string>): SymbolRow[] {
    const rows: SymbolRow[] = [];
    for (const [dir, defs] of this.namedByDir(name)) {
      if (!inDir(dir)) continue;
      for (const r of defs) {
        if ((r.parent_id === null ? r.kind !== "method" : GO_TYPE_KINDS.has(r.kind)) && (!kinds || kinds.has(r.kind))) {
          rows.push(r);
        }
      }
    }
    rows.sort((a, b) =>
      Number(isTestPath(a.path)) - Number(isTestPath(b.path)) || platformRank(a.path) - platformRank(b.path) ||
      a.path.length - b.path.length
    );
    return rows;
  }

  private childrenOf(row: SymbolRow): SymbolRow[] {
    let c = this.children.get(row.id);
    if (!c) this.children.set(row.id, c = childrenOf(this.db, row.id));
    return c;
  }

  private importsOf(path: string): string[] {
    let i = this.imports.get(path);
    if (!i) this.imports.set(path, i = importTargetsOf(this.db, path));
    return i;
  }

  private evaluate(hint: string, path: string, depth: number): GoType | null {
    const parts = hint.split(">");
    const m = parts[0].match(/^(?:([^#]*)#)?(\$)?([A-Za-z_][A-Za-z0-9_]*)(\(\)(\d*))?$/);
    if (!m) return null;
    const [, pkg, isVar, ident, call, index] = m;
    const here = dirOf(path);
    const inDir = pkg !== undefined ? (d: string) => importNamesDir(pkg, d) : (d: string) => d === here;
    // A named type, or a type's text where it may be unnamed (`[]*T`, `map[K]V`) until a member is read.
    let at: { t: GoType } | { text: string; path: string } | null = null;
    const asType = this.topLevels(ident, inDir, GO_TYPE_KINDS);
    if (asType.length) at = { t: this.goType(asType) }; // a type, a conversion `T(x)`, a method expression `T.M`
    else if (isVar) {
      const v = this.topLevel(ident, inDir, VAR_KINDS);
      at = v ? this.typeOfVar(v, depth) : null;
    } else if (call) {
      const f = this.topLevel(ident, inDir, FUNCTION_KINDS);
      const text = f ? resultType(f.signature, Number(index || 0)) : null;
      at = text !== null ? { text, path: f!.path } : null;
    }
    const named = (a: { t: GoType } | { text: string; path: string }) =>
      "t" in a ? a.t : this.typeOfText(a.text, a.path, depth + 1);
    for (const part of parts.slice(1)) {
      if (!at) return null;
      if (part === "[]" || part === "[k]") {
        const of = part === "[]" ? elementText : keyText;
        const row = "t" in at ? at.t.rows.find((r) => underlyingText(r.signature) !== null) : undefined;
        const text = "t" in at ? (row ? underlyingText(row.signature) : null) : at.text;
        const elem = text === null ? null : of(text);
        at = elem === null ? null : { text: elem, path: row ? row.path : (at as { path: string }).path };
        continue;
      }
      const s = part.match(/^([A-Za-z_][A-Za-z0-9_]*)(\(\)(\d*))?$/);
      const t = s ? named(at) : null;
      const mem = t ? this.member(t, s![1]) : null;
      if (!mem) return null;
      const text = s![2] ? resultType(mem.signature, Number(s![3] || 0)) : fieldType(mem.signature);
      at = text === null ? null : { text, path: mem.path };
    }
    return at ? named(at) : null;
  }

  /** The type the definitions `rows` (of one name, likeliest first) make in the first one's directory. */
  private goType(rows: SymbolRow[]): GoType {
    const dir = dirOf(rows[0].path);
    return { dir, name: rows[0].name, rows: rows.filter((r) => dirOf(r.path) === dir) };
  }

  /** The named type a type's source text (`*pkg.T`, `T[int]`) means in file `path`. */
  private typeOfText(text: string | null, path: string, depth: number): GoType | null {
    const expr = text === null
      ? null
      : typeExpr(text, (pkg) => this.importsOf(path).find((p) => defaultPackageName(p) === pkg));
    return expr ? this.typeOf(expr, path, depth + 1) : null;
  }

  /**
   * `var x T`, `var x = &T{}`, `var x = [...]T{}`, `var x = NewT()`: the variable's type (its text where it
   * may be unnamed), where its declaration says it.
   */
  private typeOfVar(v: SymbolRow, depth: number): { t: GoType } | { text: string; path: string } | null {
    const sig = v.signature.replace(/^(?:var|const)\s+/, "");
    const eq = sig.indexOf("=");
    const lhs = (eq < 0 ? sig : sig.slice(0, eq)).trim();
    const declared = lhs.match(/^[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*\s+(.+)$/);
    if (declared) return { text: declared[1], path: v.path };
    if (eq < 0) return null;
    const rhs = sig.slice(eq + 1).trim();
    const lit = rhs.match(/^&?([^\s{(]+)\s*\{/) ?? rhs.match(/^new\(\s*([*\w.]+)\s*\)/);
    if (lit) return { text: lit[1], path: v.path };
    const call = rhs.match(/^(?:([A-Za-z_]\w*)\.)?([A-Za-z_]\w*)\(/);
    if (!call) return null;
    const pkg = call[1] ? this.importsOf(v.path).find((p) => defaultPackageName(p) === call[1]) : undefined;
    if (call[1] && pkg === undefined) return null;
    const t = this.typeOf(`${pkg !== undefined ? pkg + "#" : ""}${call[2]}()`, v.path, depth + 1);
    return t ? { t } : null;
  }
}

const VAR_KINDS = new Set(["variable", "constant"]);
const FUNCTION_KINDS = new Set(["function"]);

/** GOOS and GOARCH file suffixes: a definition in such a file is one platform's. */
const PLATFORM_FILE =
  /_(aix|android|darwin|dragonfly|freebsd|hurd|illumos|ios|js|netbsd|openbsd|plan9|solaris|wasip1|windows|zos|386|arm|arm64|loong64|mips\w*|ppc64\w*|riscv64|s390x|wasm)(_\w+)?\.go$/;

/** 0 for a portable or Linux/Unix file, 1 for another platform's. */
function platformRank(path: string): number {
  return PLATFORM_FILE.test(path) ? 1 : 0;
}

/** The type a named type is defined as (`type X []*T` → `[]*T`), from its signature. */
function underlyingText(sig: string): string | null {
  const m = sig.match(/^type\s+[A-Za-z_]\w*(?:\[[^\]]*\])?\s+(.+)$/s);
  return m ? m[1] : null;
}

/** The element type of a slice, array, map or channel type text (`map[K]*V` → `*V`), or null. */
export function elementText(text: string): string | null {
  const t = text.trim().replace(/^\*+/, "");
  if (t.startsWith("map[")) {
    const end = closing(t, 3);
    return end < 0 ? null : t.slice(end + 1);
  }
  if (t.startsWith("[")) {
    const end = closing(t, 0);
    return end < 0 ? null : t.slice(end + 1);
  }
  const ch = t.match(/^(?:<-\s*)?chan(?:\s*<-)?\s+(.+)$/s);
  return ch ? ch[1] : null;
}

/** The key type of a map type text, or the element type of a channel's (what a one-name `range` gives), or null. */
export function keyText(text: string): string | null {
  const t = text.trim().replace(/^\*+/, "");
  if (t.startsWith("map[")) {
    const end = closing(t, 3);
    return end < 0 ? null : t.slice(4, end);
  }
  return t.startsWith("[") ? null : elementText(t);
}

/** A Go embedded field: its signature is only a type (`*Foo`, `io.Reader`), whose name is the field's. */
export function isEmbedded(f: SymbolRow): boolean {
  return !/\s/.test(f.signature.trim()) && f.signature.replace(/^\*/, "").split(".").pop() === f.name;
}

/** The type text of a field signature (`mu sync.Mutex` → `sync.Mutex`; an embedded `*Foo` stays). */
export function fieldType(sig: string): string {
  const m = sig.trim().match(/^[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*\s+(.+)$/);
  return m ? m[1] : sig.trim();
}

/** The index of the bracket closing the one at `open`, or -1. */
function closing(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === "(" || s[i] === "[" || s[i] === "{") depth++;
    else if (s[i] === ")" || s[i] === "]" || s[i] === "}") {
      if (--depth === 0) return i;
    }
  }
  return -1;
}

/** Top-level comma-separated parts of `s`. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (c === "," && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out.map((x) => x.trim()).filter(Boolean);
}

/** The type text of result `index` of a function or method signature (`func (r *T) F(x int) (*U, error)`). */
export function resultType(sig: string, index: number): string | null {
  let i = 0;
  let s = sig.trim();
  if (s.startsWith("func")) {
    s = s.slice(4).trimStart();
    if (s.startsWith("(")) s = s.slice(closing(s, 0) + 1).trimStart(); // the receiver
  }
  const name = s.match(/^[A-Za-z_]\w*/);
  if (!name) return null;
  i = name[0].length;
  if (s[i] === "[") i = closing(s, i) + 1; // type parameters
  if (s[i] !== "(") return null;
  const end = closing(s, i);
  if (end < 0) return null;
  let results = s.slice(end + 1).trim().replace(/\{$/, "").trim();
  if (!results) return null;
  if (results.startsWith("(")) results = results.slice(1, closing(results, 0));
  const parts = splitTop(results);
  const part = parts[index];
  if (!part) return null;
  const named = part.match(/^[A-Za-z_]\w*\s+(.+)$/);
  return named ? named[1] : part;
}

/** A type text as a hint type expression (`*pkg.T` → `path#T`), or null for unnamed and predeclared types. */
export function typeExpr(text: string, importOf: (pkg: string) => string | undefined): string | null {
  const t = text.trim().replace(/^\*+/, "").replace(/\[.*$/s, "");
  if (/^[A-Za-z_]\w*$/.test(t)) return BUILTIN.has(t) ? null : t;
  const q = t.match(/^([A-Za-z_]\w*)\.([A-Za-z_]\w*)$/);
  if (!q) return null;
  const path = importOf(q[1]);
  return path === undefined ? null : `${path}#${q[2]}`;
}
