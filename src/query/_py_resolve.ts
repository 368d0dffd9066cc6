/**
 * Finishing Python hints (src/index/extract/py_scope.ts) against the index:
 * the class a member use's operand is, or is an instance of — a class by its
 * name, a module-level variable assigned `T(…)` or annotated `T`, the return
 * annotation of a function called — and which class of that class's
 * hierarchy defines the member. Reads symbols and their signatures through
 * the caller's resolver; answers are cached for the life of one resolver.
 */
import type { ClassBases } from "./_class_bases.ts";
import type { TargetResolver } from "./_resolve_target.ts";
import { TYPE_KINDS } from "./_symbol_row.ts";

const VARIABLE_KINDS = new Set(["variable", "constant"]);
const FUNCTION_KINDS = new Set(["function"]);
const MAX_DEPTH = 4;

/** Finishes Python hints against one index. */
export class PyResolver {
  private classes = new Map<string, number | null>();

  constructor(private resolver: TargetResolver, private bases: ClassBases) {}

  /**
   * The row id of the class whose member `name` a use with `hint` in `path`
   * means (`useClass`: the class the use sits in, for `super()`); null when
   * the hierarchy is known and no class of it defines `name`; undefined when
   * the hint shows no class of the index.
   */
  owner(hint: string, path: string, useClass: number | null, name: string): number | null | undefined {
    if (hint === "^") return useClass === null ? undefined : this.bases.inheritedOwner(useClass, name);
    if (!hint.startsWith(":")) return undefined;
    const cls = this.classOf(hint.slice(1), path, 0);
    return cls === null ? undefined : this.bases.ownerOf(cls, name);
  }

  /** The class a type text (`T`, `a.T`, `T()`, `v`, `f()`) means seen from `path`, or null. */
  private classOf(text: string, path: string, depth: number): number | null {
    const key = path + "\0" + text;
    let c = this.classes.get(key);
    if (c === undefined) {
      this.classes.set(key, null); // a cycle answers "unknown"
      c = this.evaluate(text, path, depth);
      this.classes.set(key, c);
    }
    return c;
  }

  private evaluate(text: string, path: string, depth: number): number | null {
    const call = text.endsWith("()");
    const dotted = call ? text.slice(0, -2) : text;
    const last = dotted.slice(dotted.lastIndexOf(".") + 1);
    const cls = this.resolver.resolve(last, path, "python", TYPE_KINDS);
    if (cls) return cls.row.id;
    if (depth >= MAX_DEPTH || dotted.includes(".")) return null;
    const def = this.resolver.resolve(last, path, "python", call ? FUNCTION_KINDS : VARIABLE_KINDS)?.row;
    if (!def || def.parent_id !== null) return null;
    const sig = def.signature;
    if (call) {
      // `def make() -> T:`: the class the function's return annotation names.
      const ret = sig.match(/->\s*["']?([A-Za-z_][\w.]*)["']?\s*:?\s*$/);
      return ret ? this.classOf(ret[1], def.path, depth + 1) : null;
    }
    // `v = T(…)` or `v: T = …` at the top of its module.
    const m = sig.match(/^[A-Za-z_]\w*\s*(?::\s*["']?([A-Za-z_][\w.]*)["']?\s*)?=\s*([A-Za-z_][\w.]*)\(/) ??
      sig.match(/^[A-Za-z_]\w*\s*:\s*["']?([A-Za-z_][\w.]*)["']?\s*$/);
    if (!m) return null;
    return this.classOf(m[1] ?? m[2] + "()", def.path, depth + 1);
  }
}
