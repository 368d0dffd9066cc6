/**
 * find_references: every place a symbol is used — calls, type uses, imports,
 * base types, attribute/field accesses — from the reference index. Stored
 * occurrences carry only a name; which definition each one means is decided
 * here, at query time, so an edit on either side never leaves a stale answer:
 * - `exact`: scope and type rules pin it (same file; Go: the package, the
 *   file's imports and dot-imports, the declared type of a selector's operand
 *   through receivers, parameters, variables, struct fields and results;
 *   `self.x` inside the defining class, `Type.x` of the defining type;
 *   Python: the class the file shows a member's operand is, see _py_resolve.ts;
 *   TypeScript/JavaScript: also through any member of the symbol's family of
 *   overrides and implementations, whose declarations start the first page
 *   as `override`s, see _member_family.ts; Kconfig: any file, its names
 *   being one namespace);
 * - `import`: the referencing file imports the defining file or package;
 * - `candidate`: only the name matches and nothing shows it is this definition
 *   (a method call on a value of unknown type). Candidates are counted and
 *   listed only when asked for.
 * A use that resolves to another definition of the same name is not listed,
 * nor a use in a file of another language family, nor a Go local.
 * Reads only the open index.
 */
import type { Db } from "../state/db.ts";
import { getMeta } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import { fastHash } from "../core/ids.ts";
import { REFERENCE_KINDS, type ReferenceKind, SYMBOL_KINDS } from "../core/types.ts";
import { hasGlobalNames, usePrefixOf } from "../core/languages.ts";
import {
  referenceCount,
  referenceNameId,
  type ReferencePosition,
  type ReferenceRow,
  referencesAfter,
  referencesInLines,
} from "../state/read/references.ts";
import { parseEnum, parseFlag, parseKind, parseLimit } from "./_input_rules.ts";
import { resolveSymbol } from "./_resolve_symbol.ts";
import { childrenOf, symbolByRowId } from "../state/read/symbols.ts";
import { type Affinity, AFFINITY_RANK, TargetResolver } from "./_resolve_target.ts";
import { dirOf, type SymbolFields, symbolFields, TYPE_KINDS } from "./_symbol_row.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { fileLines } from "./_file_lines.ts";
import { goOwnerName, GoResolver, importNamesDir } from "./_go_resolve.ts";
import { ClassBases } from "./_class_bases.ts";
import { moduleAliases } from "./_module_aliases.ts";
import { PyResolver } from "./_py_resolve.ts";
import { MemberFamily } from "./_member_family.ts";
import { importsOf, subtypesOf } from "../state/read/edges.ts";
import { LIMITS } from "./limits.ts";

/** How sure a reference is to mean the symbol asked about. */
export type Resolution = "exact" | "import" | "candidate";

/** The resolution of a bare name by where its closest definition is (same file, imported, or only by name). */
export const RESOLUTION_BY_AFFINITY: Record<Affinity, Resolution> = {
  same_file: "exact",
  imported: "import",
  same_directory: "candidate",
  same_language: "candidate",
  elsewhere: "candidate",
};

/** Inputs of find_references. */
export interface FindReferencesInput {
  symbol_name?: string;
  symbol_id?: string;
  path?: string;
  kind?: string;
  reference_kind?: string;
  include_definition?: boolean;
  include_candidates?: boolean;
  limit?: number;
  cursor?: string;
}

/** One use of the symbol. */
export interface Reference {
  path: string;
  line: number;
  column: number;
  line_text: string;
  /** `override`: a TypeScript/JavaScript declaration that overrides or implements the symbol, or that it does. */
  reference_kind: ReferenceKind | "definition" | "override";
  resolution: Resolution;
  /** What the name was reached through (`self`, `fmt`); absent for a bare name. */
  qualifier?: string;
  /** The symbol the use sits in; null at file level. */
  enclosing: { qualified_name: string; symbol_id: string; kind: string } | null;
}

/** References of one file (the answer's shape when there are many). */
export interface FileReferences {
  path: string;
  count: number;
  references: Omit<Reference, "path">[];
}

/** The answer of find_references (without the protocol metadata). */
export interface FindReferencesResult {
  symbol: SymbolFields;
  /** `file` when the page is grouped by file (then `files` is set), else `none` (then `references`). */
  grouping: "none" | "file";
  references?: Reference[];
  files?: FileReferences[];
  returned: number;
  /** Stored occurrences of the name (every definition, before resolution): an upper bound of the total. */
  name_occurrences: number;
  /** Uses whose name matches but that nothing resolves to this definition (listed with `include_candidates`). */
  unresolved_candidates: number;
  next_cursor: string | null;
  truncated: boolean;
  /** `partial` when other languages spell the symbol with a prefix whose uses are not recorded (Kconfig in C). */
  meta?: { result_completeness: "partial"; note: string };
}

export const REFERENCES_DEFAULT_LIMIT = LIMITS.refs.default;
export const REFERENCES_MAX_LIMIT = LIMITS.refs.max;
/** Above this many references on a page, or spread over this many files, the page is grouped by file. */
const GROUP_THRESHOLD = 20;
/** Stored occurrences examined per call at most (a page of a very common name stops early with a cursor). */
const MAX_SCAN = 50_000;
/** Receivers that name the current object or type. */
export const SELF_NAMES = new Set(["self", "this", "cls", "super", "Self"]);
const ALL_KINDS = new Set<string>(SYMBOL_KINDS);

/**
 * The one symbol a call names: `symbol_id`, or `symbol_name` narrowed by
 * `path` and `kind`, then by `answerable` (the kinds the tool answers for:
 * find_implementations asks about a type, not the field of the same name).
 * Throws `symbol_not_found`, `ambiguous_symbol` (with candidates),
 * `file_not_found`, `invalid_input`.
 */
export function targetSymbol(
  db: Db,
  input: { symbol_name?: unknown; symbol_id?: unknown; path?: unknown; kind?: unknown },
  answerable?: ReadonlySet<string>,
): SymbolRow {
  const kind = parseKind(input?.kind);
  const byId = input?.symbol_id;
  if (byId !== undefined && byId !== null && byId !== "") {
    if (typeof byId !== "string" || !/^sym_[0-9a-f]{24}$/.test(byId.trim())) {
      throw new CruxeError("invalid_input", "symbol_id must be a sym_ handle from an earlier answer", {
        field: "symbol_id",
      });
    }
    return resolveSymbol(db, byId.trim());
  }
  if (input?.symbol_name === undefined || input.symbol_name === null) {
    throw new CruxeError("invalid_input", "symbol_name or symbol_id is required", { field: "symbol_name" });
  }
  try {
    return resolveSymbol(db, input.symbol_name, input.path, kind);
  } catch (e) {
    // `kind` already narrowed the candidates (resolveSymbol). The kinds the tool answers for narrow an ambiguous
    // name to one definition when only one candidate has them; only when every candidate is listed (a cut list
    // may hide another).
    if (!answerable || !(e instanceof CruxeError) || e.code !== "ambiguous_symbol") throw e;
    const data = e.data as { candidates?: SymbolFields[]; total_candidates?: number };
    const listed = data.candidates ?? [];
    const cands = listed.filter((c) => answerable.has(c.kind));
    if (cands.length === 1 && (data.total_candidates ?? 0) <= listed.length) {
      return resolveSymbol(db, cands[0].symbol_id);
    }
    if (cands.length === 0) throw e;
    throw new CruxeError("ambiguous_symbol", e.message, {
      ...(e.data as Record<string, unknown>),
      total_candidates: cands.length,
      candidates: cands,
    });
  }
}

/** Languages whose files can name each other's definitions (one grammar family). */
const LANGUAGE_FAMILY: Record<string, string> = { tsx: "typescript", javascript: "typescript", cpp: "c" };

function family(language: string): string {
  return LANGUAGE_FAMILY[language] ?? language;
}

/** The name a module is imported as by default: the file's stem, or its directory for `__init__`/`index`. */
function moduleName(sym: SymbolRow): string {
  const parts = sym.path.replace(/\.[^./]+$/, "").split("/");
  const last = parts.pop() ?? "";
  return last === "__init__" || last === "index" || last === "mod" ? parts.pop() ?? last : last;
}

/** Languages whose member uses carry hints in the Python hint language. */
export const HINTED_LANGUAGES = new Set(["python", "typescript", "tsx", "javascript"]);
/** Languages where a use of one member of a family of overrides is a use of each (as the TypeScript compiler says). */
const FAMILY_LANGUAGES = new Set(["typescript", "tsx", "javascript"]);

interface HintResolvers {
  bases: ClassBases;
  /** TypeScript member families (overrides and implementations of one name). */
  family: MemberFamily;
  /** The hint resolver for uses in files of one language (made when first asked). */
  hints(language: string): PyResolver;
}

/** Class hierarchy and hint caches, per resolver (so per query). */
const PY_CACHES = new WeakMap<TargetResolver, HintResolvers>();

/** The class hierarchy and the hint resolvers over `resolver`, made once per resolver (one query). */
export function pythonResolvers(db: Db, resolver: TargetResolver): HintResolvers {
  let shared = PY_CACHES.get(resolver);
  if (!shared) {
    const bases = new ClassBases(db, resolver);
    const byLanguage = new Map<string, PyResolver>();
    const hints = (language: string) =>
      byLanguage.get(language) ??
        byLanguage.set(language, new PyResolver(db, resolver, bases, language)).get(language)!;
    PY_CACHES.set(resolver, shared = { bases, hints, family: new MemberFamily(db, bases) });
  }
  return shared;
}

/** Decides whether and how surely stored occurrences mean one symbol. */
export class ReferenceJudge {
  private resolver: TargetResolver;
  private parent: SymbolRow | undefined;
  private enclosingParents = new Map<number, number | null>();
  private competitors = new Map<string, boolean>();
  private go: GoResolver;
  private bases: ClassBases;
  private hints: HintResolvers;
  /** Whether the package around the symbol's module re-exports its name (read when first needed). */
  private reexported: boolean | undefined;
  /** Whether any class names the symbol's class as a base (read when first needed). */
  private subclassed: boolean | undefined;
  private classes = new Map<number, number | null>();
  private aliases = new Map<string, Map<string, string>>();
  /** Go: the type the symbol is a method or field of (null for a package-level symbol). */
  private goOwner: string | null = null;

  /** `resolver`, `go`: caches over the same index, shared when one caller judges many symbols. */
  constructor(private db: Db, private sym: SymbolRow, resolver = new TargetResolver(db), go = new GoResolver(db)) {
    this.resolver = resolver;
    this.go = go;
    // Judges sharing a resolver (one call graph) share the class and Python caches too.
    const shared = pythonResolvers(db, resolver);
    this.bases = shared.bases;
    this.hints = shared;
    this.parent = sym.parent_id === null ? undefined : symbolByRowId(db, sym.parent_id);
    if (sym.language === "go") this.goOwner = goOwnerName(sym, this.parent);
  }

  /** The container of the symbol a use sits in (for `self.x`), cached. */
  private containerOf(sourceId: number | null): number | null {
    if (sourceId === null) return null;
    let p = this.enclosingParents.get(sourceId);
    if (p === undefined) {
      const row = symbolByRowId(this.db, sourceId);
      p = row ? (row.id === this.sym.parent_id ? row.id : row.parent_id) : null;
      this.enclosingParents.set(sourceId, p);
    }
    return p;
  }

  /**
   * Python: true when `qualifier` (or the module it aliases in `path`) names the package holding the symbol's
   * module and the package's `__init__.py` imports the symbol's name (re-exports it), or all of its module's.
   */
  private packageExports(qualifier: string, path: string): boolean {
    const dir = dirOf(this.sym.path);
    const pkg = dir.slice(dir.lastIndexOf("/") + 1);
    if (this.sym.language !== "python" || !pkg || (qualifier !== pkg && this.aliasesOf(path).get(qualifier) !== pkg)) {
      return false;
    }
    const init = dir + "/__init__.py";
    const stem = this.sym.path.slice(dir.length + 1).replace(/\.py$/, "");
    this.reexported ??= referencesInLines(this.db, init, 1, 1_000_000)
      .some((x) => x.kind === "import" && x.name === this.sym.name) ||
      // `from .api import *` (or `from pkg.api import *`): every name of the module.
      importsOf(this.db, init, 200).some((e) =>
        (e.target === "." + stem || e.target.endsWith("." + stem)) &&
        /\bimport\s+\*/.test(fileLines(this.db, init, e.line, e.line)[0] ?? "")
      );
    return this.reexported;
  }

  /** The module aliases of a file (Python), cached. */
  private aliasesOf(path: string): Map<string, string> {
    let a = this.aliases.get(path);
    if (!a) this.aliases.set(path, a = moduleAliases(this.db, path));
    return a;
  }

  /** The class a use sits in (the enclosing symbol when it is a class, else the nearest class around it), cached. */
  private classOf(sourceId: number | null): number | null {
    if (sourceId === null) return null;
    let c = this.classes.get(sourceId);
    if (c === undefined) {
      // The nearest type around the use's symbol (a function nested in a method is in its class too).
      let row = symbolByRowId(this.db, sourceId);
      for (let depth = 0; row && !TYPE_KINDS.has(row.kind) && depth < 8; depth++) {
        row = row.parent_id === null ? undefined : symbolByRowId(this.db, row.parent_id);
      }
      c = row && TYPE_KINDS.has(row.kind) ? row.id : null;
      this.classes.set(sourceId, c);
    }
    return c;
  }

  /** True when another definition of the name is closer to `path` than the symbol (the use means that one). */
  private shadowed(path: string, language: string, mine: Affinity): boolean {
    let hit = this.competitors.get(path);
    if (hit === undefined) {
      const cands = this.resolver.candidates(this.sym.name, path, language, ALL_KINDS);
      hit = cands.some((c) => c.row.id !== this.sym.id && AFFINITY_RANK[c.affinity] > AFFINITY_RANK[mine]);
      this.competitors.set(path, hit);
    }
    return hit;
  }

  /** The resolution of one occurrence of the symbol's name, or null when it does not refer to the symbol. */
  judge(r: ReferenceRow): Resolution | null {
    const sym = this.sym;
    // A name in a file of another language family names something else (a JS `get_format` is not Python's).
    if (family(r.language) !== family(sym.language)) return null;
    if (sym.language === "go") return this.judgeGo(r);
    // One namespace (Kconfig): every use of the name, in any file, is of this symbol.
    if (hasGlobalNames(sym.language)) return "exact";
    const affinity = this.resolver.affinity(r.path, r.language, sym);
    if (r.qualifier === null) {
      // Python and TypeScript reach a member only through an object (`self.m`, `this.m`), never by a bare name.
      if (this.parent && TYPE_KINDS.has(this.parent.kind) && HINTED_LANGUAGES.has(r.language)) return null;
      if (r.kind === "import") return affinity === "same_file" || affinity === "imported" ? "import" : "candidate";
      if (this.shadowed(r.path, r.language, affinity)) return null;
      if (affinity === "same_file") return "exact";
      return affinity === "imported" ? "import" : "candidate";
    }
    if (SELF_NAMES.has(r.qualifier) && this.parent) {
      if (r.path === sym.path && this.containerOf(r.source_id) === this.parent.id) return "exact";
      // `self.m` in a subclass: the nearest class of the hierarchy that defines `m`.
      const cls = this.classOf(r.source_id);
      // `super.m`: the nearest base's `m`, never the class's own.
      const owner = cls === null
        ? undefined
        : r.qualifier === "super"
        ? this.bases.inheritedOwner(cls, sym.name)
        : this.bases.ownerOf(cls, sym.name);
      if (owner === this.parent.id || this.sameFamily(owner)) return "exact";
      // `self.m` in a base that does not define `m`: the subclasses' `m` (this one when it derives from it).
      if (owner === null && cls !== null && this.bases.derivesFrom(this.parent.id, cls)) return "exact";
      return typeof owner === "number" ? null : "candidate";
    }
    if (r.hint && this.parent && TYPE_KINDS.has(this.parent.kind) && HINTED_LANGUAGES.has(r.language)) {
      // `x.m` where the file shows `x`'s class (`x = T()`, `x: T`, `self.a = T()`, `T.m`, `super().m`).
      // `super().m` means a base's `m`: never this one when no class derives from its class.
      if (r.hint === "^" && !(this.subclassed ??= subtypesOf(this.db, this.parent.name, 1).length > 0)) return null;
      const owner = this.hints.hints(r.language).owner(r.hint, r.path, () => this.classOf(r.source_id), sym.name);
      if (owner === this.parent.id || this.sameFamily(owner)) return "exact";
      // A use through a base whose member this one overrides may run this one: a candidate.
      if (typeof owner === "number") return this.bases.derivesFrom(this.parent.id, owner) ? "candidate" : null;
    }
    if (this.parent && r.qualifier === this.parent.name) {
      return affinity === "same_file" ? "exact" : affinity === "imported" ? "import" : "candidate";
    }
    const module = moduleName(sym);
    if (
      sym.parent_id === null && sym.kind !== "method" &&
      (r.qualifier === module || this.aliasesOf(r.path).get(r.qualifier) === module)
    ) {
      // `formats.get_format`, `fmt.get_format` after `import formats as fmt`: a top-level name through its module.
      return affinity === "imported" || affinity === "same_file" ? "import" : "candidate";
    }
    if (sym.parent_id === null && sym.kind !== "method" && this.packageExports(r.qualifier, r.path)) {
      // `migrations.swappable_dependency`: the package's `__init__` imports the name from its module.
      return affinity === "imported" || affinity === "same_file" ? "import" : "candidate";
    }
    return "candidate";
  }

  /**
   * TypeScript/JavaScript: true when `owner`'s member of the symbol's name and the symbol are one family of
   * overrides and implementations (a use through an interface or base type is a use of each implementation).
   */
  private sameFamily(owner: number | null | undefined): boolean {
    return typeof owner === "number" && FAMILY_LANGUAGES.has(this.sym.language) && !!this.parent &&
      this.hints.family.related(owner, this.parent.id, this.sym.name);
  }

  /**
   * Go, from the hints the file's declarations gave: a package-level name is
   * used bare in its package or through a dot-import, or as `pkg.Name` through
   * an import of its directory; a method or field through an operand whose
   * type resolves to its type (or embeds it). An operand of unknown type is a
   * candidate; anything else is another definition's use.
   */
  private judgeGo(r: ReferenceRow): Resolution | null {
    const dir = dirOf(this.sym.path);
    const hint = r.hint ?? "";
    if (this.goOwner === null) {
      if (r.qualifier === null) {
        if (dirOf(r.path) === dir) return "exact";
        return hint.startsWith(".") && hint.slice(1).split(",").some((p) => importNamesDir(p, dir)) ? "exact" : null;
      }
      return hint.startsWith("=") && importNamesDir(hint.slice(1), dir) ? "exact" : null;
    }
    if (r.qualifier === null || hint.startsWith("=")) return null; // a bare name or `pkg.X` is never a member
    const t = this.go.typeOf(hint, r.path);
    const members = t ? this.go.members(t, this.sym.name) : [];
    if (!members.length) return "candidate";
    return members.some((m) => m.id === this.sym.id) ? "exact" : null;
  }
}

interface CursorState {
  k: string;
  p: string;
  f: number;
  /** The file's path (the order of a name with few occurrences). */
  q: string;
  l: number;
  c: number;
}

function encodeCursor(s: CursorState): string {
  return "ref1." + btoa(JSON.stringify(s)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The position a cursor continues from; `invalid_input` when it belongs to another query or index. */
function decodeCursor(value: unknown, key: string, published: string): ReferencePosition | null {
  if (value === undefined || value === null || value === "") return null;
  const bad = (why: string) =>
    new CruxeError("invalid_input", `cursor ${why}; repeat the call without cursor to start again`, {
      field: "cursor",
    });
  if (typeof value !== "string" || !value.startsWith("ref1.") || value.length > 400) throw bad("is not valid");
  let s: CursorState;
  try {
    s = JSON.parse(atob(value.slice(5).replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    throw bad("is not valid");
  }
  if (!s || typeof s !== "object" || ![s.f, s.l, s.c].every(Number.isInteger) || typeof s.q !== "string") {
    throw bad("is not valid");
  }
  if (s.p !== published) throw bad("was issued before the index changed");
  if (s.k !== key) throw bad("belongs to another query");
  return { file_id: s.f, path: s.q, line: s.l, col: s.c };
}

/** Cached line text of indexed files (one read per file and page). */
class LineTexts {
  private cache = new Map<string, Map<number, string>>();
  constructor(private db: Db) {}

  /** Loads the needed lines of every path at once per path. */
  prime(rows: { path: string; line: number }[]): void {
    const byPath = new Map<string, number[]>();
    for (const r of rows) (byPath.get(r.path) ?? byPath.set(r.path, []).get(r.path)!).push(r.line);
    for (const [path, lines] of byPath) {
      const lo = Math.min(...lines);
      const hi = Math.max(...lines);
      const m = this.cache.get(path) ?? new Map<number, string>();
      // One window per file when close together, else one read per line.
      if (hi - lo < 400) {
        const text = fileLines(this.db, path, lo, hi);
        for (const l of lines) m.set(l, text[l - lo] ?? "");
      } else for (const l of lines) m.set(l, fileLines(this.db, path, l, l)[0] ?? "");
      this.cache.set(path, m);
    }
  }

  get(path: string, line: number): string {
    const t = this.cache.get(path)?.get(line) ?? "";
    return t.length > 300 ? t.slice(0, 300) + "…" : t;
  }
}

/** Answers find_references (see the module comment for how uses are resolved). */
export function findReferences(db: Db, input: FindReferencesInput): FindReferencesResult {
  const limit = parseLimit(input?.limit, REFERENCES_DEFAULT_LIMIT, REFERENCES_MAX_LIMIT);
  const refKind = input?.reference_kind === undefined || input.reference_kind === null
    ? undefined
    : parseEnum(input.reference_kind, "reference_kind", REFERENCE_KINDS, "call");
  if (input?.include_definition !== undefined && typeof input.include_definition !== "boolean") {
    throw new CruxeError("invalid_input", "include_definition must be a boolean", { field: "include_definition" });
  }
  const sym = targetSymbol(db, input);
  const published = getMeta(db, "published_at_ms") ?? "";
  const key = fastHash(
    sym.symbol_id,
    refKind ?? "",
    String(!!input.include_definition),
    String(!!input.include_candidates),
  )
    .slice(0, 16);
  const after = decodeCursor(input?.cursor, key, published);
  const nameId = referenceNameId(db, sym.name);
  const candidates = parseFlag(input?.include_candidates, "include_candidates");
  // The first page starts with the declarations of the symbol's family of overrides (TypeScript, JavaScript).
  const family = after || refKind ? [] : familyDeclarations(db, sym, limit - 1);
  const occurrences = nameId === null ? 0 : referenceCount(db, nameId);
  const page = acceptedUses(db, sym, nameId, {
    refKind,
    after,
    limit: limit - family.length,
    candidates,
    occurrences,
  });
  const refs = referenceList(db, sym, page.accepted, !!input.include_definition && !after, family);
  const { accepted, more, position } = page;
  const last = accepted.length ? accepted[accepted.length - 1].row : null;
  const nextCursor = more && last
    ? encodeCursor({ k: key, p: published, f: last.file_id, q: last.path, l: last.line, c: last.col })
    : more && position
    ? encodeCursor({ k: key, p: published, f: position.file_id, q: position.path, l: position.line, c: position.col })
    : null;
  const files = new Set(refs.map((r) => r.path));
  const grouped = refs.length > GROUP_THRESHOLD && files.size > 1;
  const result: FindReferencesResult = {
    symbol: symbolFields(sym),
    grouping: grouped ? "file" : "none",
    returned: refs.length,
    name_occurrences: occurrences,
    unresolved_candidates: page.candidates,
    next_cursor: nextCursor,
    truncated: nextCursor !== null,
  };
  if (grouped) result.files = groupByFile(refs);
  else result.references = refs;
  const prefix = usePrefixOf(sym.language);
  if (prefix) {
    result.meta = {
      result_completeness: "partial",
      note: `uses spelled ${prefix}${sym.name} in other languages (C preprocessor lines) are not recorded: ` +
        `search_code "${prefix}${sym.name}" finds them`,
    };
  }
  return result;
}

/**
 * One page of the uses of `sym`'s name that resolve to it (and its candidates
 * when asked for), after `after`: at most `limit`, `more` when another
 * accepted use (or MAX_SCAN unread occurrences) follows, and the last
 * occurrence the page covers. The scan goes on past a full page, up to
 * MAX_SCAN occurrences, to count the candidates from `after` on.
 */
function acceptedUses(
  db: Db,
  sym: SymbolRow,
  nameId: number | null,
  o: {
    refKind: string | undefined;
    after: ReferencePosition | null;
    limit: number;
    candidates: boolean;
    /** The name's stored occurrences (which pick the order they are read in). */
    occurrences: number;
  },
): {
  accepted: { row: ReferenceRow; resolution: Resolution }[];
  more: boolean;
  position: ReferencePosition | null;
  candidates: number;
} {
  const judge = new ReferenceJudge(db, sym);
  const accepted: { row: ReferenceRow; resolution: Resolution }[] = [];
  let position = o.after;
  let read = o.after;
  let scanned = 0;
  let exhausted = nameId === null;
  let more = false;
  let candidates = 0;
  while (!exhausted && scanned < MAX_SCAN) {
    const batch = referencesAfter(db, nameId!, read, Math.min(2000, o.limit * 4 + 64), o.occurrences);
    if (!batch.length) {
      exhausted = true;
      break;
    }
    for (const row of batch) {
      scanned++;
      read = row;
      const resolution = o.refKind && row.kind !== o.refKind ? null : judge.judge(row);
      if (resolution === "candidate") candidates++;
      const wanted = resolution !== null && (resolution !== "candidate" || o.candidates);
      if (more) continue; // the page is full: only counting
      if (wanted && accepted.length === o.limit) {
        more = true;
        continue;
      }
      if (wanted) accepted.push({ row, resolution: resolution! });
      position = row;
    }
  }
  if (!exhausted && !more && scanned >= MAX_SCAN) more = true;
  return { accepted, more, position, candidates };
}

/** The accepted uses as answered, with their line text and enclosing symbol; the definition first when asked. */
function referenceList(
  db: Db,
  sym: SymbolRow,
  accepted: { row: ReferenceRow; resolution: Resolution }[],
  definitionFirst: boolean,
  family: SymbolRow[] = [],
): Reference[] {
  const enclosing = new Map<number, Reference["enclosing"]>();
  const enclosingOf = (id: number | null): Reference["enclosing"] => {
    if (id === null) return null;
    let e = enclosing.get(id);
    if (e === undefined) {
      const row = symbolByRowId(db, id);
      e = row ? { qualified_name: row.qualified_name, symbol_id: row.symbol_id, kind: row.kind } : null;
      enclosing.set(id, e);
    }
    return e;
  };
  const texts = new LineTexts(db);
  const rows = accepted.map((a) => a.row);
  if (definitionFirst) rows.push({ path: sym.path, line: sym.line_start } as ReferenceRow);
  for (const f of family) rows.push({ path: f.path, line: f.line_start } as ReferenceRow);
  texts.prime(rows);
  const refs: Reference[] = [];
  if (definitionFirst) {
    refs.push({
      path: sym.path,
      line: sym.line_start,
      column: 1,
      line_text: texts.get(sym.path, sym.line_start),
      reference_kind: "definition",
      resolution: "exact",
      enclosing: enclosingOf(sym.parent_id),
    });
  }
  for (const f of family) {
    const text = texts.get(f.path, f.line_start);
    refs.push({
      path: f.path,
      line: f.line_start,
      column: Math.max(0, text.indexOf(f.name)) + 1,
      line_text: text,
      reference_kind: "override",
      resolution: "exact",
      enclosing: enclosingOf(f.parent_id),
    });
  }
  for (const { row, resolution } of accepted) {
    refs.push({
      path: row.path,
      line: row.line,
      column: row.col,
      line_text: texts.get(row.path, row.line),
      reference_kind: row.kind,
      resolution,
      ...(row.qualifier !== null ? { qualifier: row.qualifier } : {}),
      enclosing: enclosingOf(row.source_id),
    });
  }
  return refs;
}

/**
 * TypeScript/JavaScript: the members of `sym`'s name that override or implement it or that it overrides or
 * implements, through in-repository classes and interfaces (see _member_family.ts), at most `max`, by path and line.
 */
function familyDeclarations(db: Db, sym: SymbolRow, max: number): SymbolRow[] {
  if (!FAMILY_LANGUAGES.has(sym.language) || sym.parent_id === null || max <= 0) return [];
  const parent = symbolByRowId(db, sym.parent_id);
  if (!parent || !TYPE_KINDS.has(parent.kind)) return [];
  const { family } = pythonResolvers(db, new TargetResolver(db));
  const out: SymbolRow[] = [];
  for (const cls of family.members(parent.id, sym.name, (id) => symbolByRowId(db, id)?.name ?? null)) {
    for (const c of childrenOf(db, cls)) if (c.name === sym.name && c.id !== sym.id) out.push(c);
  }
  return out.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : a.line_start - b.line_start).slice(0, max);
}

/** References grouped by file, files in first-seen order. */
function groupByFile(refs: Reference[]): FileReferences[] {
  const out = new Map<string, FileReferences>();
  for (const { path, ...rest } of refs) {
    let g = out.get(path);
    if (!g) out.set(path, g = { path, count: 0, references: [] });
    g.count++;
    g.references.push(rest);
  }
  return [...out.values()];
}
