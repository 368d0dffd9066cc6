/**
 * Which class a `self.m` / `this.m` use inside a class means when `m` is not
 * the class's own: walks the class's in-repository bases (heritage edges,
 * each base name resolved to its closest definition) to the first that
 * defines `m`. Reads the open index; answers are cached per resolver.
 */
import type { Db } from "../state/db.ts";
import { hasChildNamed, symbolByRowId } from "../state/read/symbols.ts";
import { heritageOf } from "../state/read/edges.ts";
import type { TargetResolver } from "./_resolve_target.ts";
import { TYPE_KINDS } from "./_symbol_row.ts";

const MAX_DEPTH = 6;

/** Resolves members through class hierarchies of one index. */
export class ClassBases {
  private owners = new Map<string, number | null | undefined>();
  private bases = new Map<number, { ids: number[]; unknown: boolean }>();

  constructor(private db: Db, private resolver: TargetResolver) {}

  /**
   * The row id of the class whose member `name` a `self.name` inside class
   * `classId` means: the class itself or the nearest base defining it; null
   * when no class of the repository defines it; undefined when a base is
   * outside the repository (it may define it).
   */
  ownerOf(classId: number, name: string, depth = 0): number | null | undefined {
    const key = classId + "\0" + name;
    if (this.owners.has(key)) return this.owners.get(key);
    this.owners.set(key, undefined); // a cycle of bases answers "unknown"
    const owner = this.find(classId, name, depth);
    this.owners.set(key, owner);
    return owner;
  }

  /** The in-repository bases of `classId`, nearest first, and whether some base is outside the repository. */
  basesOf(classId: number): { ids: number[]; unknown: boolean } {
    let b = this.bases.get(classId);
    if (!b) this.bases.set(classId, b = this.readBases(classId));
    return b;
  }

  private readBases(classId: number): { ids: number[]; unknown: boolean } {
    const cls = symbolByRowId(this.db, classId);
    const ids: number[] = [];
    let unknown = !cls;
    for (const base of cls ? heritageOf(this.db, classId) : []) {
      const b = this.resolver.resolve(base.target, cls!.path, cls!.language, TYPE_KINDS)?.row;
      // `class X(mod.X)`: a base spelled like the class itself is another module's (outside the repository).
      if (b && b.id !== classId) ids.push(b.id);
      else unknown = true;
    }
    return { ids, unknown };
  }

  /** True when class `classId` derives from class `ancestorId` through in-repository bases. */
  derivesFrom(classId: number, ancestorId: number, depth = 0): boolean {
    if (depth >= MAX_DEPTH) return false;
    return this.basesOf(classId).ids.some((b) => b === ancestorId || this.derivesFrom(b, ancestorId, depth + 1));
  }

  /** As `ownerOf`, for the bases of `classId` only (what `super().name` means inside it). */
  inheritedOwner(classId: number, name: string, depth = 0): number | null | undefined {
    if (depth >= MAX_DEPTH) return undefined;
    const bases = this.basesOf(classId);
    let unknown = bases.unknown;
    for (const b of bases.ids) {
      const owner = this.ownerOf(b, name, depth + 1);
      if (owner) return owner;
      if (owner === undefined) unknown = true;
    }
    return unknown ? undefined : null;
  }

  private find(classId: number, name: string, depth: number): number | null | undefined {
    if (hasChildNamed(this.db, classId, name)) return classId;
    return this.inheritedOwner(classId, name, depth);
  }
}
