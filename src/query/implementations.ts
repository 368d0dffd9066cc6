/**
 * find_implementations: the types that implement or extend one type. Go: the
 * named types whose method set (their own methods and those promoted from
 * embedded fields) has every method of an interface, `exact` when each
 * method's parameter and result counts match too, else `candidate`. Other
 * languages: classes whose `extends` / `implements` / base list names the
 * type, directly or through other such classes of the repository, each base
 * name resolved from the subclass's file (`exact` in the same file, `import`
 * when the file imports the definition, else `candidate`). Candidates are
 * counted and listed only when asked for. Reads only the open index.
 */
import type { Db } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { symbolByRowId } from "../state/read/symbols.ts";
import { subtypesOf } from "../state/read/edges.ts";
import { parseFlag, parseLimit } from "./_input_rules.ts";
import { type Resolution, RESOLUTION_BY_AFFINITY, targetSymbol } from "./find_references.ts";
import { GoResolver, type GoType, resultType } from "./_go_resolve.ts";
import { TargetResolver } from "./_resolve_target.ts";
import { type SymbolFields, symbolFields, TYPE_KINDS } from "./_symbol_row.ts";

/** Inputs of find_implementations. */
export interface FindImplementationsInput {
  symbol_name?: string;
  symbol_id?: string;
  path?: string;
  kind?: string;
  include_candidates?: boolean;
  limit?: number;
}

/** One implementing type. */
export interface Implementation {
  symbol: SymbolFields;
  resolution: Resolution;
  /** How it implements: a Go method set, or a heritage clause (through `depth` classes: 1 is direct). */
  via: "method_set" | "heritage";
  depth: number;
}

/** The answer of find_implementations (without the protocol metadata). */
export interface FindImplementationsResult {
  symbol: SymbolFields;
  implementations: Implementation[];
  returned: number;
  /** Implementations only the names match (listed with `include_candidates`). */
  unresolved_candidates: number;
  truncated: boolean;
}

export const IMPLEMENTATIONS_DEFAULT_LIMIT = 50;
export const IMPLEMENTATIONS_MAX_LIMIT = 500;
/** Heritage levels followed below the type, and subtypes read per level. */
const MAX_DEPTH = 5;
const SUBTYPE_SCAN = 2000;
/** Levels of struct embedding followed from the interface and the types declaring its methods. */
const EMBEDDING_DEPTH = 3;

/** Answers find_implementations (see the module comment). */
export function findImplementations(db: Db, input: FindImplementationsInput): FindImplementationsResult {
  const limit = parseLimit(input?.limit, IMPLEMENTATIONS_DEFAULT_LIMIT, IMPLEMENTATIONS_MAX_LIMIT);
  const withCandidates = parseFlag(input?.include_candidates, "include_candidates");
  const sym = targetSymbol(db, input, TYPE_KINDS);
  if (!TYPE_KINDS.has(sym.kind)) {
    throw new CruxeError("invalid_input", `${sym.qualified_name} is a ${sym.kind}, not a type`, {
      field: "symbol_name",
    });
  }
  const found = sym.language === "go" ? goImplementations(db, sym) : heritageImplementations(db, sym);
  const candidates = found.filter((f) => f.resolution === "candidate").length;
  const listed = withCandidates ? found : found.filter((f) => f.resolution !== "candidate");
  const page = listed.slice(0, limit);
  return {
    symbol: symbolFields(sym),
    implementations: page,
    returned: page.length,
    unresolved_candidates: candidates,
    truncated: listed.length > limit,
  };
}

/**
 * Go: named types whose method set covers the interface's methods: the types declaring its rarest method,
 * then, up to EMBEDDING_DEPTH levels, the structs embedding the interface or a type found (their methods are
 * promoted: `struct{ io.Writer }` is a Writer).
 */
function goImplementations(db: Db, iface: SymbolRow): Implementation[] {
  if (iface.kind !== "interface") return [];
  const go = new GoResolver(db);
  const t = go.typeOf(iface.name, iface.path);
  const methods = t ? go.interfaceMethods(t) : [];
  if (!t || !methods.length) return []; // every type has the empty method set: nothing to list
  const seen = new Set<string>([t.dir + "\0" + t.name]);
  const out: Implementation[] = [];
  /** Adds `owner` when its method set covers the interface's (a method promoted from an embedded interface counts). */
  const consider = (owner: GoType): boolean => {
    if (seen.has(owner.dir + "\0" + owner.name)) return false;
    seen.add(owner.dir + "\0" + owner.name);
    let exact = true;
    const covers = methods.every((m) => {
      const impl = go.member(owner, m.name);
      if (!impl || impl.kind !== "method") return false;
      if (!sameArity(impl.signature, m.signature)) exact = false;
      return true;
    });
    if (covers) {
      out.push({
        symbol: symbolFields(owner.rows[0]),
        resolution: exact ? "exact" : "candidate",
        via: "method_set",
        depth: 1,
      });
    }
    return covers;
  };
  // Types declaring the rarest method name, then checked for every other one.
  const rarest = methods.map((m) => ({ m, n: go.named(m.name).length })).sort((a, b) => a.n - b.n)[0].m;
  const found: GoType[] = [t];
  for (const decl of go.named(rarest.name)) {
    if (decl.kind !== "method" || decl.parent_id !== null) continue;
    const owner = go.receiverType(decl);
    if (owner && consider(owner)) found.push(owner);
  }
  let frontier = found;
  for (let level = 0; level < EMBEDDING_DEPTH && frontier.length; level++) {
    const next: GoType[] = [];
    for (const inner of frontier) for (const e of go.embeddersOf(inner)) if (consider(e)) next.push(e);
    frontier = next;
  }
  return out;
}

/** Parameter and result counts of a Go signature (a method declaration or an interface method). */
function arity(sig: string): string {
  const s = sig.replace(/^func\s*(\([^)]*\))?\s*/, "");
  const open = s.indexOf("(");
  let depth = 0;
  let close = -1;
  for (let i = open; i >= 0 && i < s.length; i++) {
    if (s[i] === "(") depth++;
    else if (s[i] === ")" && --depth === 0) {
      close = i;
      break;
    }
  }
  if (open < 0 || close < 0) return "?";
  const params = s.slice(open + 1, close).trim();
  const count = params ? params.split(",").length : 0;
  const results = resultType(sig, 0) === null ? 0 : (resultType(sig, 1) === null ? 1 : 2);
  return `${count}/${results}`;
}

function sameArity(a: string, b: string): boolean {
  return arity(a) === arity(b);
}

/** Classes whose heritage names the type, directly or through classes of the repository. */
function heritageImplementations(db: Db, base: SymbolRow): Implementation[] {
  const resolver = new TargetResolver(db);
  const out: Implementation[] = [];
  const seen = new Set<number>([base.id]);
  let frontier: { row: SymbolRow; resolution: Resolution }[] = [{ row: base, resolution: "exact" }];
  for (let depth = 1; depth <= MAX_DEPTH && frontier.length; depth++) {
    const next: typeof frontier = [];
    for (const { row, resolution: above } of frontier) {
      for (const e of subtypesOf(db, row.name, SUBTYPE_SCAN)) {
        if (seen.has(e.source_id)) continue;
        const sub = symbolByRowId(db, e.source_id);
        if (!sub) continue;
        const t = resolver.resolve(row.name, sub.path, sub.language, TYPE_KINDS);
        if (!t || t.row.id !== row.id) continue; // the name means another definition there
        seen.add(sub.id);
        const own = RESOLUTION_BY_AFFINITY[t.affinity];
        const resolution: Resolution = above === "candidate" || own === "candidate"
          ? "candidate"
          : above === "import" || own === "import"
          ? "import"
          : "exact";
        out.push({ symbol: symbolFields(sub), resolution, via: "heritage", depth });
        next.push({ row: sub, resolution });
      }
    }
    frontier = next;
  }
  return out;
}
