/**
 * Resolving a referenced name (a callee, a base type) to the definition it
 * most likely means, seen from the file that references it. References are
 * stored by name only, so this is a ranking, stated as such to clients:
 * same file > a file the source imports > same directory > same language.
 */
import type { Db } from "../state/db.ts";
import { byCodeUnits, dirOf, isTestPath, SYMBOL_COLUMNS, type SymbolRow } from "./_symbol_row.ts";

/** Why a target was chosen, strongest first. */
export type Affinity = "same_file" | "imported" | "same_directory" | "same_language" | "elsewhere";

const AFFINITY_RANK: Record<Affinity, number> = {
  same_file: 4,
  imported: 3,
  same_directory: 2,
  same_language: 1,
  elsewhere: 0,
};

/** A resolved target with how sure we are. */
export interface ResolvedTarget {
  row: SymbolRow;
  affinity: Affinity;
  alternatives: number; // other definitions of the name with the same affinity
}

/** Normalizes `a/./b/../c` style relative joins (JS/TS relative imports). */
function joinRelative(dir: string, rel: string): string {
  const out = dir ? dir.split("/") : [];
  for (const seg of rel.split("/")) {
    if (seg === "." || seg === "") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return out.join("/");
}

/** Resolves names referenced from one file; caches the file's imports and name lookups. */
export class TargetResolver {
  private imports = new Map<string, string[]>();
  private rowsByName = new Map<string, SymbolRow[]>();
  private byName;
  private importsOf;

  constructor(private db: Db) {
    this.byName = db.prepare(`SELECT ${SYMBOL_COLUMNS} FROM symbols WHERE name_lower = ? LIMIT 2000`);
    this.importsOf = db.prepare("SELECT DISTINCT target FROM edges WHERE path = ? AND kind = 'imports'");
  }

  private importTargets(path: string): string[] {
    let t = this.imports.get(path);
    if (!t) {
      t = (this.importsOf.all(path) as { target: string }[]).map((r) => r.target);
      this.imports.set(path, t);
    }
    return t;
  }

  /** True when `candidatePath` is what one of `fromPath`'s imports names (or lies in a package it names). */
  private imported(fromPath: string, candidatePath: string): boolean {
    const stem = candidatePath.replace(/\.[^./]+$/, "");
    const dir = dirOf(candidatePath);
    const stemDots = stem.replace(/\//g, ".").toLowerCase();
    const dirDots = dir.replace(/\//g, ".").toLowerCase();
    for (const t of this.importTargets(fromPath)) {
      if (/^\.\.?\//.test(t)) {
        const r = joinRelative(dirOf(fromPath), t.replace(/\.[jt]sx?$/, ""));
        if (r === stem || r === dir) return true;
        continue;
      }
      const rel = t.match(/^(\.+)(.*)$/);
      if (rel) {
        // Python relative import: one dot is the current package, each further dot one level up.
        let base = dirOf(fromPath);
        for (let i = 1; i < rel[1].length; i++) base = dirOf(base);
        const r = joinRelative(base, rel[2].replace(/\./g, "/"));
        if (r === stem || r === dir || stem.startsWith(r + "/")) return true;
        continue;
      }
      const segs = t.replace(/[\/:]+/g, ".").toLowerCase().split(".").filter(Boolean);
      // The indexed tree may start below the import root (`django.db` → `db/...`): try each tail.
      for (let i = 0; i < segs.length; i++) {
        const td = segs.slice(i).join(".");
        if (td === stemDots || td === dirDots || stemDots.startsWith(td + ".")) return true;
      }
    }
    return false;
  }

  /** How close `candidate` is to the referencing file. */
  affinity(fromPath: string, fromLanguage: string, candidate: SymbolRow): Affinity {
    if (candidate.path === fromPath) return "same_file";
    if (candidate.language === fromLanguage && this.imported(fromPath, candidate.path)) return "imported";
    if (dirOf(candidate.path) === dirOf(fromPath)) return "same_directory";
    if (candidate.language === fromLanguage) return "same_language";
    return "elsewhere";
  }

  /**
   * Every definition named `name` (exact spelling) of one of `kinds`, best first,
   * each with its affinity to `fromPath`.
   */
  candidates(
    name: string,
    fromPath: string,
    fromLanguage: string,
    kinds: Set<string>,
  ): { row: SymbolRow; affinity: Affinity }[] {
    let all = this.rowsByName.get(name);
    if (!all) {
      all = (this.byName.all(name.toLowerCase()) as unknown as SymbolRow[]).filter((r) => r.name === name);
      this.rowsByName.set(name, all);
    }
    const rows = all.filter((r) => kinds.has(r.kind));
    return rows.map((row) => ({ row, affinity: this.affinity(fromPath, fromLanguage, row) }))
      .filter((c) => c.affinity !== "elsewhere")
      .sort((a, b) =>
        AFFINITY_RANK[b.affinity] - AFFINITY_RANK[a.affinity] ||
        Number(isTestPath(a.row.path)) - Number(isTestPath(b.row.path)) ||
        a.row.path.length - b.row.path.length || byCodeUnits(a.row.path, b.row.path) ||
        a.row.line_start - b.row.line_start
      );
  }

  /** The best definition of `name` seen from `fromPath`, or null when none in the same language. */
  resolve(name: string, fromPath: string, fromLanguage: string, kinds: Set<string>): ResolvedTarget | null {
    const c = this.candidates(name, fromPath, fromLanguage, kinds);
    if (!c.length) return null;
    const alternatives = c.filter((x) => x.affinity === c[0].affinity).length - 1;
    // A common name (`String`, `Write`) defined in many unrelated places resolves to none of them.
    if (c[0].affinity === "same_language" && alternatives > 0) return null;
    return { row: c[0].row, affinity: c[0].affinity, alternatives };
  }
}
