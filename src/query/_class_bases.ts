/**
 * Which class a `self.m` / `this.m` use inside a class means when `m` is not
 * the class's own: walks the class's in-repository bases (heritage edges,
 * each base name resolved to its closest definition) to the first that
 * defines `m`. Reads the open index; answers are cached per resolver.
 */
import type { Db } from "../state/db.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { childrenOf, symbolByRowId } from "../state/read/symbols.ts";
import { heritageOf } from "../state/read/edges.ts";
import type { TargetResolver } from "./_resolve_target.ts";
import { TYPE_KINDS } from "./_symbol_row.ts";

const MAX_DEPTH = 6;

/** Resolves members through class hierarchies of one index. */
export class ClassBases {
  private owners = new Map<string, number | null | undefined>();

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

  /** As `ownerOf`, for the bases of `classId` only (what `super().name` means inside it). */
  inheritedOwner(classId: number, name: string, depth = 0): number | null | undefined {
    if (depth >= MAX_DEPTH) return undefined;
    const cls = symbolByRowId(this.db, classId);
    if (!cls) return undefined;
    let unknown = false;
    for (const base of heritageOf(this.db, classId)) {
      const b: SymbolRow | undefined = this.resolver.resolve(base.target, cls.path, cls.language, TYPE_KINDS)?.row;
      if (!b) {
        unknown = true;
        continue;
      }
      const owner = this.ownerOf(b.id, name, depth + 1);
      if (owner) return owner;
      if (owner === undefined) unknown = true;
    }
    return unknown ? undefined : null;
  }

  private find(classId: number, name: string, depth: number): number | null | undefined {
    if (childrenOf(this.db, classId).some((c) => c.name === name)) return classId;
    return this.inheritedOwner(classId, name, depth);
  }
}
