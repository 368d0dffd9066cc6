/**
 * Finishing Python hints (src/index/extract/py_scope.ts) against the index:
 * the class a member use's operand is, or is an instance of — a class by its
 * name, a module-level variable assigned `T(…)` or annotated `T`, the return
 * annotation of a function called, an attribute of such a class (a class
 * attribute, or `self.a = T()` in one of its methods, through its bases) —
 * and which class of that class's hierarchy defines the member. Reads
 * symbols, their signatures and the hints of `self.a = …` occurrences; answers
 * are cached for the life of one resolver.
 */
import type { Db } from "../state/db.ts";
import { childrenOf, symbolByRowId } from "../state/read/symbols.ts";
import { referencesInLines } from "../state/read/references.ts";
import type { ClassBases } from "./_class_bases.ts";
import type { TargetResolver } from "./_resolve_target.ts";
import { TYPE_KINDS } from "./_symbol_row.ts";

const VARIABLE_KINDS = new Set(["variable", "constant"]);
const CALLABLE = new Set(["function", "method", "constructor"]);
/** `name = T` (an attribute or variable holding a dotted name, no call). */
const HOLDS_CLASS = /^[A-Za-z_]\w*\s*=\s*([A-Za-z_][\w.]*)\s*$/;
const FUNCTION_KINDS = new Set(["function"]);
const MAX_DEPTH = 5;
const SELF = new Set(["self", "cls", "this"]);
/** `name = T(…)`, `name: T = …`, `name: T` (a variable's or class attribute's signature). */
const ASSIGNED = /^[A-Za-z_]\w*\s*(?::\s*["']?([A-Za-z_][\w.]*)["']?\s*)?(?:=\s*([A-Za-z_][\w.]*)\(|=|$)/;
/** TypeScript: `[modifiers] name: T …`, `const name = new T(…)` (a field's or variable's signature). */
const TS_ASSIGNED =
  /^(?:(?:export|declare|private|public|protected|readonly|static|override|const|let|var)\s+)*[A-Za-z_$][\w$]*[?!]?\s*(?::\s*([A-Za-z_$][\w$.]*)(?:<[^=]*>)?(?:\s*\|\s*(?:null|undefined))*\s*)?(?:=\s*new\s+([A-Za-z_$][\w$.]*)|=|$)/;
/** A function signature's declared result: `def f() -> T:`, `function f(): T`. */
const RETURNS: Record<string, RegExp> = {
  python: /->\s*["']?([A-Za-z_][\w.]*)["']?\s*:?\s*$/,
  typescript: /\)\s*:\s*([A-Za-z_$][\w$.]*)(?:<.*>)?\s*$/,
};

/** The type a TypeScript constructor signature declares for its parameter property `name` (`private db: Db`), or null. */
function parameterProperty(signature: string, name: string): string | null {
  const m = signature.match(
    new RegExp(
      `[(,]\\s*(?:(?:public|private|protected|readonly|override)\\s+)+${
        name.replace(/\$/g, "\\$")
      }\\??\\s*:\\s*([A-Za-z_$][\\w$.]*)`,
    ),
  );
  return m ? m[1] : null;
}

/** Finishes Python hints (and TypeScript ones, written in the same language) against one index. */
export class PyResolver {
  private classes = new Map<string, number | null>();
  private attrTypes = new Map<number, Map<string, string[]>>();
  private attrClasses = new Map<string, number | null>();

  /** `language`: the language of the uses it finishes (`python`, or one of the TypeScript family). */
  constructor(
    private db: Db,
    private resolver: TargetResolver,
    private bases: ClassBases,
    private language = "python",
  ) {}

  /**
   * The row id of the class whose member `name` a use with `hint` in `path`
   * means (`useClassOf`: the class the use sits in, for `self` and `super()`);
   * null when the hierarchy is known and no class of it defines `name`;
   * undefined when the hint shows no class of the index.
   */
  owner(hint: string, path: string, useClassOf: () => number | null, name: string): number | null | undefined {
    if (hint === "^") {
      const useClass = useClassOf();
      return useClass === null ? undefined : this.bases.inheritedOwner(useClass, name);
    }
    if (!hint.startsWith(":")) return undefined;
    const cls = this.classOf(hint.slice(1), path, hint.startsWith(":@") ? useClassOf() : null, 0);
    return cls === null ? undefined : this.bases.ownerOf(cls, name);
  }

  /** The class a type expression (`T`, `a.T`, `T()`, `v`, `f()`, `@`, each then `>attr`…) means from `path`. */
  private classOf(text: string, path: string, useClass: number | null, depth: number): number | null {
    if (depth > MAX_DEPTH) return null;
    const key = `${path}\0${useClass}\0${text}`;
    let c = this.classes.get(key);
    if (c === undefined) {
      this.classes.set(key, null); // a cycle answers "unknown"
      const [base, ...steps] = text.split(">");
      c = base === "@" ? useClass : this.named(base, path, useClass, depth);
      for (const s of steps) {
        c = c === null
          ? null
          : s.endsWith("()")
          ? this.methodResult(c, s.slice(0, -2), depth + 1)
          : this.attrClass(c, s, depth + 1);
      }
      this.classes.set(key, c);
    }
    return c;
  }

  /** A dotted name or call (`a.b.T`, `T()`, `v`, `f()`): a class, a variable's or a function result's class. */
  private named(text: string, path: string, useClass: number | null, depth: number): number | null {
    const call = text.endsWith("()");
    const dotted = call ? text.slice(0, -2) : text;
    const dot = dotted.lastIndexOf(".");
    const last = dotted.slice(dot + 1);
    const cls = this.resolver.resolve(last, path, this.language, TYPE_KINDS);
    if (cls) return cls.row.id;
    // `v.a.b` where `v` is no module: the attributes of what `v` holds.
    if (dot >= 0 && call) {
      // `T.create()`: the declared result of a method of the class `T`.
      const owner = this.named(dotted.slice(0, dot), path, useClass, depth + 1);
      const m = owner === null ? undefined : childrenOf(this.db, owner).find((c) => c.name === last);
      return m ? this.resultClass(m.signature, m.path, depth) : null;
    }
    if (dot >= 0) return this.classOf(dotted.replace(/\./g, ">"), path, useClass, depth + 1);
    const def = this.resolver.resolve(last, path, this.language, call ? FUNCTION_KINDS : VARIABLE_KINDS)?.row;
    if (!def || def.parent_id !== null) return null;
    // `def make() -> T:`: the class the function's return annotation names.
    if (call) return this.resultClass(def.signature, def.path, depth);
    return this.assignedClass(def.signature, def.path, depth);
  }

  /** The class the method `name` of class `classId` (its own or the nearest base's) declares it returns, or null. */
  private methodResult(classId: number, name: string, depth: number): number | null {
    const owner = this.bases.ownerOf(classId, name);
    const m = typeof owner === "number" ? childrenOf(this.db, owner).find((c) => c.name === name) : undefined;
    // `a_class = T` (an attribute holding a class): calling it makes a `T`.
    const held = m && !CALLABLE.has(m.kind) ? m.signature.match(HOLDS_CLASS) : null;
    if (held) return this.classOf(held[1], m!.path, null, depth + 1);
    return m ? this.resultClass(m.signature, m.path, depth) : null;
  }

  /** The class a function signature's declared result names, or null. */
  private resultClass(sig: string, path: string, depth: number): number | null {
    const ret = sig.match(this.language === "python" ? RETURNS.python : RETURNS.typescript);
    return ret ? this.classOf(ret[1], path, null, depth + 1) : null;
  }

  /** The class a `v = T(…)` / `v: T` signature gives `v`, or null. */
  private assignedClass(sig: string, path: string, depth: number): number | null {
    const ts = this.language !== "python";
    const m = sig.match(ts ? TS_ASSIGNED : ASSIGNED);
    if (!m || (!m[1] && !m[2])) return null;
    return this.classOf(m[1] ?? (ts ? m[2] : m[2] + "()"), path, null, depth + 1);
  }

  /** The class attribute `attr` of class `classId` holds (its own or a base's), or null when unknown. */
  private attrClass(classId: number, attr: string, depth: number): number | null {
    const key = classId + "\0" + attr;
    let c = this.attrClasses.get(key);
    if (c === undefined) {
      this.attrClasses.set(key, null);
      c = this.findAttr(classId, attr, depth, 0, classId);
      this.attrClasses.set(key, c);
    }
    return c;
  }

  /** `origin`: the class the lookup started from (what `self` is in a base's `self.a = self.make()`). */
  private findAttr(classId: number, attr: string, depth: number, level: number, origin: number): number | null {
    const cls = symbolByRowId(this.db, classId);
    if (!cls || level > 4) return null;
    const children = childrenOf(this.db, classId);
    const own = children.filter((c) => c.name === attr);
    const types = [...this.selfAssigned(classId, cls.path, cls.line_start, cls.line_end).get(attr) ?? []];
    // TypeScript `constructor(private readonly db: Db)`: a parameter property is a field the class declares.
    const ctor = this.language === "python" || own.length ? undefined : children.find((c) => c.kind === "constructor");
    const property = ctor ? parameterProperty(ctor.signature, attr) : null;
    if (property) types.push(property);
    if (own.length || types.length) {
      const found = new Set<number | null>();
      for (const o of own) {
        found.add(
          o.kind === "field" || o.kind === "property" || VARIABLE_KINDS.has(o.kind)
            ? this.assignedClass(o.signature, o.path, depth)
            : null,
        );
      }
      for (const t of types) {
        // `self.a = self.a_class()`: `self` is the class the lookup started from (a subclass may set `a_class`).
        const own = /^(?:self|cls)\./.test(t) ? "@>" + t.slice(t.indexOf(".") + 1).replace(/\./g, ">") : t;
        found.add(t === "?" ? null : this.classOf(own, cls.path, own === t ? null : origin, depth + 1));
      }
      return found.size === 1 ? [...found][0] : null;
    }
    const bases = this.bases.basesOf(classId);
    for (const b of bases.ids) {
      const t = this.findAttr(b, attr, depth, level + 1, origin);
      if (t !== null) return t;
    }
    return null;
  }

  /** What each `self.a = …` in a class's lines assigns (`T`, `T()`, `?`), by attribute name. */
  private selfAssigned(classId: number, path: string, from: number, to: number): Map<string, string[]> {
    let m = this.attrTypes.get(classId);
    if (!m) {
      m = new Map();
      for (const r of referencesInLines(this.db, path, from, to)) {
        if (r.kind !== "attribute" || !r.hint?.startsWith("=") || !SELF.has(r.qualifier ?? "")) continue;
        const l = m.get(r.name);
        if (l) l.push(r.hint.slice(1));
        else m.set(r.name, [r.hint.slice(1)]);
      }
      this.attrTypes.set(classId, m);
    }
    return m;
  }
}
