/**
 * Resolving a referenced name (a callee, a base type) to the definition it
 * most likely means, seen from the file that references it. References are
 * stored by name only, so this is a ranking, stated as such to clients:
 * same file > a file the source imports > same directory > same language.
 */
import type { Db } from "../state/db.ts";
import { byCodeUnits, dirOf } from "./_symbol_row.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { symbolsByName } from "../state/read/symbols.ts";
import { importTargetsOf } from "../state/read/edges.ts";
import { isTestPath } from "../core/test_paths.ts";
import { seesItsDirectory } from "../core/languages.ts";

/** Why a target was chosen, strongest first. */
export type Affinity = "same_file" | "imported" | "same_directory" | "same_language" | "elsewhere";

/** Affinities as numbers, higher is closer. */
export const AFFINITY_RANK: Record<Affinity, number> = {
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

/** Tie-break between equally close definitions: non-test, shorter path, path order, line. */
function before(a: SymbolRow, b: SymbolRow): boolean {
  const ta = isTestPath(a.path);
  const tb = isTestPath(b.path);
  if (ta !== tb) return tb;
  if (a.path.length !== b.path.length) return a.path.length < b.path.length;
  if (a.path !== b.path) return byCodeUnits(a.path, b.path) < 0;
  return a.line_start < b.line_start || (a.line_start === b.line_start && a.id < b.id);
}

/** Resolves names referenced from one file; caches the file's imports and name lookups. */
export class TargetResolver {
  private imports = new Map<string, { keys: Set<string>; whole: string[] }>();
  private prefixes = new Map<string, string[]>();
  private rowsByName = new Map<string, SymbolRow[]>();

  constructor(private db: Db) {}

  /**
   * What `path` imports, as lower-case slash paths relative to the indexed
   * root (`keys`): relative imports resolved against the file, dotted or
   * slashed module names with every tail (the tree may start below the import
   * root: `django.db` → `db`, `example.com/x/auth` → `auth`); and each whole
   * module name (`whole`), which may also sit below folders of the tree
   * (`src/main/java/com/acme/Store.java` for `com.acme.Store`).
   */
  private importKeys(path: string): { keys: Set<string>; whole: string[] } {
    const known = this.imports.get(path);
    if (known) return known;
    const keys = new Set<string>();
    const whole: string[] = [];
    for (const t of importTargetsOf(this.db, path)) {
      if (/^\.\.?\//.test(t)) {
        keys.add(joinRelative(dirOf(path), t.replace(/\.[jt]sx?$/, "")).toLowerCase());
        continue;
      }
      const rel = t.match(/^(\.+)(.*)$/);
      if (rel) {
        // Python relative import: one dot is the current package, each further dot one level up.
        let base = dirOf(path);
        for (let i = 1; i < rel[1].length; i++) base = dirOf(base);
        keys.add(joinRelative(base, rel[2].replace(/\./g, "/")).toLowerCase());
        continue;
      }
      const segs = t.replace(/[\/:.]+/g, "/").toLowerCase().split("/").filter(Boolean);
      for (let i = 0; i < segs.length; i++) keys.add(segs.slice(i).join("/"));
      // Only a name of two segments or more is matched below folders: one alone is any file of that name.
      if (segs.length > 1) whole.push("/" + segs.join("/"));
    }
    const imports = { keys, whole };
    this.imports.set(path, imports);
    return imports;
  }

  /** The file's stem and each of its ancestor directories (`a/b/c.py` → `a`, `a/b`, `a/b/c`), lower-case. */
  private pathPrefixes(path: string): string[] {
    let p = this.prefixes.get(path);
    if (!p) {
      const segs = path.replace(/\.[^./]+$/, "").toLowerCase().split("/");
      p = segs.map((_, i) => segs.slice(0, i + 1).join("/"));
      this.prefixes.set(path, p);
    }
    return p;
  }

  /** True when `candidatePath` is what one of `fromPath`'s imports names (or lies in a package it names). */
  private imported(fromPath: string, candidatePath: string): boolean {
    const { keys, whole } = this.importKeys(fromPath);
    if (!keys.size) return false;
    for (const p of this.pathPrefixes(candidatePath)) {
      if (keys.has(p) || whole.some((w) => p.endsWith(w))) return true;
    }
    return false;
  }

  /** Definitions spelled exactly `name` (cached: callers and callees repeat names). */
  private rows(name: string): SymbolRow[] {
    let all = this.rowsByName.get(name);
    if (!all) {
      all = symbolsByName(this.db, name, { limit: 2000 }).filter((r) => r.name === name);
      this.rowsByName.set(name, all);
    }
    return all;
  }

  /** How close `candidate` is to the referencing file. */
  affinity(fromPath: string, fromLanguage: string, candidate: SymbolRow): Affinity {
    if (candidate.path === fromPath) return "same_file";
    if (candidate.language === fromLanguage && this.imported(fromPath, candidate.path)) return "imported";
    if (dirOf(candidate.path) === dirOf(fromPath)) {
      // A Java file sees every type of its package (its directory) as if it imported it.
      return candidate.language === fromLanguage && seesItsDirectory(fromLanguage) ? "imported" : "same_directory";
    }
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
    const rows = this.rows(name).filter((r) => kinds.has(r.kind));
    return rows.map((row) => ({ row, affinity: this.affinity(fromPath, fromLanguage, row) }))
      .filter((c) => c.affinity !== "elsewhere")
      .sort((a, b) => AFFINITY_RANK[b.affinity] - AFFINITY_RANK[a.affinity] || (before(a.row, b.row) ? -1 : 1));
  }

  /**
   * True when `target` is what its own name resolves to from `fromPath`
   * (same answer as `resolve`, without ranking every candidate).
   */
  resolvesTo(target: SymbolRow, fromPath: string, fromLanguage: string, kinds: Set<string>): boolean {
    const mine = this.affinity(fromPath, fromLanguage, target);
    if (mine === "elsewhere") return false;
    const rank = AFFINITY_RANK[mine];
    const others = this.rows(target.name).filter((r) => r.id !== target.id && kinds.has(r.kind));
    let ties = 0;
    for (const r of others) {
      const a = AFFINITY_RANK[this.affinity(fromPath, fromLanguage, r)];
      if (a > rank) return false;
      if (a === rank) {
        ties++;
        if (before(r, target)) return false;
      }
    }
    // A common name defined in many unrelated places resolves to none of them.
    return !(mine === "same_language" && ties > 0);
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
