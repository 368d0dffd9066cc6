/**
 * TypeScript and JavaScript member families: the declarations of one member
 * name that override or implement each other through in-repository class and
 * interface hierarchies. Two classes' members `m` are one family when some
 * class declaring `m` is each of them or an ancestor of each (so an interface's
 * `m`, its implementations' `m` and their overrides are one family); the
 * TypeScript compiler counts a use of any member of a family as a use of
 * each. Reads the open index through `ClassBases`; answers are cached.
 */
import type { Db } from "../state/db.ts";
import { hasChildNamed } from "../state/read/symbols.ts";
import { subtypesOf } from "../state/read/edges.ts";
import type { ClassBases } from "./_class_bases.ts";

const MAX_LEVELS = 6;
/** Subtypes read per class when listing a family (a very common base stops there). */
const MAX_SUBTYPES = 200;

/** Families of member names over one index. */
export class MemberFamily {
  private up = new Map<string, Set<number>>();

  constructor(private db: Db, private bases: ClassBases) {}

  /** `classId` and those of its in-repository ancestors that declare `name` (when `classId` does not, its ancestors'). */
  declaringUp(classId: number, name: string): Set<number> {
    const key = classId + "\0" + name;
    let s = this.up.get(key);
    if (!s) {
      s = new Set();
      const walk = (c: number, level: number) => {
        if (level > MAX_LEVELS || s!.has(c)) return;
        if (level === 0 || hasChildNamed(this.db, c, name)) s!.add(c);
        for (const b of this.bases.basesOf(c).ids) walk(b, level + 1);
      };
      walk(classId, 0);
      this.up.set(key, s);
    }
    return s;
  }

  /** True when the members `name` of classes `a` and `b` are one family (see the module comment). */
  related(a: number, b: number, name: string): boolean {
    if (a === b) return true;
    const ua = this.declaringUp(a, name);
    for (const x of this.declaringUp(b, name)) if (ua.has(x)) return true;
    return false;
  }

  /**
   * The classes (row ids) other than `classId` that declare a member `name` of `classId`'s family: the
   * declaring ancestors and every in-repository descendant of one of them that declares `name`.
   */
  members(classId: number, name: string, className: (id: number) => string | null): number[] {
    const out = new Set<number>();
    const seen = new Set<number>();
    const down = (c: number, level: number) => {
      if (level > MAX_LEVELS || seen.has(c)) return;
      seen.add(c);
      if (hasChildNamed(this.db, c, name)) out.add(c);
      const cName = className(c);
      if (!cName) return;
      for (const s of subtypesOf(this.db, cName, MAX_SUBTYPES)) {
        // A subtype found by the base's spelling counts only when its base resolves to this class.
        if (s.source_id !== c && this.bases.basesOf(s.source_id).ids.includes(c)) down(s.source_id, level + 1);
      }
    };
    for (const root of this.declaringUp(classId, name)) down(root, 0);
    out.delete(classId);
    return [...out];
  }
}
