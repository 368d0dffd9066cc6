/**
 * find_related_symbols: what an agent looks at next around one symbol —
 * its container and members, the types it extends or that extend it, what it
 * calls and what calls it (get_call_graph's resolved calls, one level, where
 * call sites are judged; else by proximity), what its file imports, and its
 * neighbours in the same file and directory. Structural relations come
 * first; `limit` cuts the tail. Reads only the open index.
 */
import type { Db } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import { parseEnum, parseLimit } from "./_input_rules.ts";
import { resolveSymbol } from "./_resolve_symbol.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { childrenOf, symbolById, symbolByRowId, topLevelInDirectory, topLevelNear } from "../state/read/symbols.ts";
import { calleesOf, callersOf, heritageOf, importsOf, languageHasEdges, subtypesOf } from "../state/read/edges.ts";
import { HINTED_LANGUAGES } from "./find_references.ts";
import { directCalls } from "./call_graph.ts";
import { firstIndexedOf, hasFileUnder, languageOfFile } from "../state/read/files.ts";
import { TargetResolver } from "./_resolve_target.ts";
import { containmentChain, goMethodsOf } from "./symbol_hierarchy.ts";
import { CALLABLE_KINDS, dirOf, type SymbolFields, symbolFields, TYPE_KINDS } from "./_symbol_row.ts";
import { LIMITS } from "./limits.ts";

/** Inputs of find_related_symbols. */
export interface RelatedInput {
  symbol_name: string;
  path?: string;
  scope?: "file" | "module" | "package";
  limit?: number;
}

/** How a related symbol relates to the one asked about. */
export type Relation =
  | "parent"
  | "child"
  | "extends"
  | "implements"
  | "extended_by"
  | "implemented_by"
  | "calls"
  | "called_by"
  | "imports"
  | "same_file"
  | "same_module";

/**
 * One related symbol. `line` is where the relation is written (the call site,
 * the import line) when that is a single line. An `imports` entry names a
 * module, not a symbol row: its symbol handles are empty and `resolved_path`
 * is the indexed file or directory it names, when there is one.
 */
export interface RelatedSymbol extends SymbolFields {
  relation: Relation;
  line?: number;
  resolved_path?: string | null;
}

/** The answer of find_related_symbols (without the protocol metadata). */
export interface RelatedResult {
  symbol: SymbolFields;
  scope: "file" | "module" | "package";
  related: RelatedSymbol[];
  total_candidates: number;
  edges_available: boolean;
  /**
   * Call sites into or out of the symbol left out because only the name matches (get_call_graph lists them
   * with `include_candidates`); 0 where calls go by proximity.
   */
  name_only_calls: number;
  truncated: boolean;
}

export const RELATED_DEFAULT_LIMIT = LIMITS.related.default;
export const RELATED_MAX_LIMIT = LIMITS.related.max;
/** Per-relation bound on what is read (callers of `String` in a big repository are thousands). */
const PER_RELATION = 300;
/**
 * Languages whose call sites find_references judges (hints, imports and `self` in Python, TypeScript and
 * JavaScript; packages, imports and declared types in Go): their related calls are get_call_graph's.
 */
const JUDGED_CALL_LANGUAGES = new Set([...HINTED_LANGUAGES, "go"]);
/** Callers read (each call site judged as find_references judges it). */
const MAX_CALLERS = 300;
/** Call sites of the name examined for callers by proximity (each needs a resolution from its file). */
const MAX_CALLER_EDGES = 400;
const CALL_TARGET_KINDS = new Set([...CALLABLE_KINDS, ...TYPE_KINDS]);

/** What every relation step shares: the symbol, the scope, the resolver and the growing answer. */
interface Collect {
  db: Db;
  sym: SymbolRow;
  scope: "file" | "module" | "package";
  /** The symbol's directory ("" at the root). */
  dir: string;
  resolver: TargetResolver;
  out: RelatedSymbol[];
  /** Adds `r` under `relation` once, unless it is the symbol itself or out of scope. */
  add(relation: Relation, r: SymbolRow, extra?: Partial<RelatedSymbol>): void;
  inScope(path: string): boolean;
}

/** The collector of one call: dedupes by relation and row, and keeps to the scope. */
function collector(db: Db, sym: SymbolRow, scope: Collect["scope"]): Collect {
  const dir = dirOf(sym.path);
  const inScope = (path: string) =>
    scope === "package" || path === sym.path || (scope === "module" && dirOf(path) === dir);
  const out: RelatedSymbol[] = [];
  const seen = new Set<string>();
  const add = (relation: Relation, r: SymbolRow, extra: Partial<RelatedSymbol> = {}) => {
    const key = relation + "\0" + r.id;
    if (r.id === sym.id || seen.has(key) || !inScope(r.path)) return;
    seen.add(key);
    out.push({ relation, ...symbolFields(r), ...extra });
  };
  return { db, sym, scope, dir, resolver: new TargetResolver(db), out, add, inScope };
}

/** Containment: the direct container, then members (Go methods count as members of their type). Returns the members. */
function addContainment(c: Collect, chain: ReturnType<typeof containmentChain>): SymbolRow[] {
  const { db, sym } = c;
  const parent = chain[0] && "symbol_id" in chain[0] ? chain[0] : null;
  if (parent) {
    const row = symbolById(db, parent.symbol_id);
    if (row) c.add("parent", row);
  }
  const children = childrenOf(db, sym.id, PER_RELATION);
  if (TYPE_KINDS.has(sym.kind) && sym.language === "go") {
    children.push(...goMethodsOf(db, sym, PER_RELATION));
  }
  for (const ch of children) c.add("child", ch);
  return children;
}

/** Type hierarchy, one level each way; a subtype counts only if its base name resolves back to this symbol. */
function addTypeHierarchy(c: Collect): void {
  const { db, sym, resolver } = c;
  for (const e of heritageOf(db, sym.id)) {
    const t = resolver.resolve(e.target, sym.path, sym.language, TYPE_KINDS);
    if (t) c.add(e.kind, t.row, { line: e.line });
  }
  if (!TYPE_KINDS.has(sym.kind)) return;
  for (const e of subtypesOf(db, sym.name, PER_RELATION)) {
    const sub = symbolByRowId(db, e.source_id);
    if (!sub) continue;
    const back = resolver.resolve(sym.name, sub.path, sub.language, TYPE_KINDS);
    if (back?.row.id === sym.id) c.add(e.kind === "extends" ? "extended_by" : "implemented_by", sub, { line: e.line });
  }
}

/**
 * Calls out of the symbol and into it. Where find_references judges a call site (JUDGED_CALL_LANGUAGES),
 * they are get_call_graph's resolved calls, and a call whose callee only
 * shares the name (`items.add()` with `items` of unknown type) is left out and counted (the count is
 * returned). Elsewhere (C, where a called name is one global function, and the other languages) a call goes to
 * the closest definition of its name.
 */
function addCalls(c: Collect, children: SymbolRow[]): number {
  if (!JUDGED_CALL_LANGUAGES.has(c.sym.language)) {
    addCallees(c, children);
    addCallers(c);
    return 0;
  }
  const { db, sym } = c;
  const bodies = children.filter((ch) => CALLABLE_KINDS.has(ch.kind));
  const sources = new Set([sym.id, ...bodies.map((b) => b.id)]);
  const { callers, callees, nameOnly } = directCalls(db, sym, bodies, MAX_CALLERS);
  for (const t of callees) if (!sources.has(t.row.id)) c.add("calls", t.row, { line: t.line });
  for (const t of callers) c.add("called_by", t.row, { line: t.line });
  return nameOnly;
}

/** Calls out of the symbol (and out of its members, for a type), resolved by proximity. */
function addCallees(c: Collect, children: SymbolRow[]): void {
  const { db, sym } = c;
  const sources = [sym.id, ...children.filter((ch) => CALLABLE_KINDS.has(ch.kind)).map((ch) => ch.id)];
  for (const call of calleesOf(db, sources, PER_RELATION)) {
    const t = c.resolver.resolve(call.target, sym.path, sym.language, CALL_TARGET_KINDS);
    if (t && !sources.includes(t.row.id)) c.add("calls", t.row, { line: call.line });
  }
}

/** Callers: uses of the name whose resolution from the caller's file is this symbol (decided once per file). */
function addCallers(c: Collect): void {
  const { db, sym } = c;
  const resolvesHere = new Map<string, boolean>();
  for (const site of callersOf(db, sym.name, sym.path, MAX_CALLER_EDGES)) {
    if (!c.inScope(site.path)) continue;
    let ok = resolvesHere.get(site.path);
    if (ok === undefined) {
      const lang = languageOfFile(db, site.path) ?? sym.language;
      ok = c.resolver.resolvesTo(sym, site.path, lang, CALL_TARGET_KINDS);
      resolvesHere.set(site.path, ok);
    }
    if (!ok) continue;
    const caller = symbolByRowId(db, site.source_id);
    if (caller) c.add("called_by", caller, { line: site.line });
  }
}

/** The file's imports: module names, with the indexed file or directory they name when found. */
function addImports(c: Collect): void {
  const { db, sym } = c;
  for (const i of importsOf(db, sym.path, PER_RELATION)) {
    c.out.push({
      relation: "imports",
      symbol_id: "",
      symbol_stable_id: "",
      path: sym.path,
      line_start: i.line,
      line_end: i.line,
      kind: "module",
      name: i.target,
      qualified_name: i.target,
      signature: "",
      language: sym.language,
      line: i.line,
      resolved_path: resolveImportPath(db, sym.path, i.target),
    });
  }
}

/**
 * Neighbours: top-level symbols of the same file (nearest first, not the
 * symbol's own containers), then of the same directory. Returns 1 when the
 * directory had more than were read (the total then says "more").
 */
function addNeighbours(c: Collect, chain: ReturnType<typeof containmentChain>): number {
  const { db, sym } = c;
  const ancestors = new Set(chain.filter((x) => "symbol_id" in x).map((x) => (x as SymbolFields).symbol_id));
  for (const r of topLevelNear(db, sym.path, sym.line_start, PER_RELATION)) {
    if (!ancestors.has(r.symbol_id)) c.add("same_file", r);
  }
  if (c.scope === "file") return 0;
  const rows = topLevelInDirectory(db, c.dir, sym.path, PER_RELATION + 1);
  for (const r of rows.slice(0, PER_RELATION)) c.add("same_module", r);
  return rows.length > PER_RELATION ? 1 : 0;
}

/**
 * Symbols related to one symbol. `scope` bounds where related symbols may
 * live: `file` (same file), `module` (same directory: a Go package, a Python
 * package, a JS folder) or `package` (anywhere in the project; default).
 * Throws like get_symbol_hierarchy; `no_edges_available` only when nothing at
 * all is related and the index holds no references for the symbol's language.
 * Relations are collected in this order, one step each: containment, type
 * hierarchy, callees, callers, imports, neighbours.
 */
export function findRelatedSymbols(db: Db, input: RelatedInput): RelatedResult {
  const scope = parseEnum(input?.scope, "scope", ["file", "module", "package"] as const, "package");
  const limit = parseLimit(input?.limit, RELATED_DEFAULT_LIMIT, RELATED_MAX_LIMIT);
  const sym = resolveSymbol(db, input?.symbol_name, input?.path);
  const c = collector(db, sym, scope);
  const chain = containmentChain(db, sym);
  const children = addContainment(c, chain);
  addTypeHierarchy(c);
  const nameOnly = addCalls(c, children);
  addImports(c);
  const moreNeighbours = addNeighbours(c, chain);

  const edgesAvailable = languageHasEdges(db, sym.language);
  if (c.out.length === 0 && !edgesAvailable) {
    throw new CruxeError(
      "no_edges_available",
      `No references are extracted for ${sym.language} files, and ${sym.qualified_name} has no neighbours in scope`,
      { language: sym.language, symbol_id: sym.symbol_id },
    );
  }
  const total = c.out.length + moreNeighbours;
  return {
    symbol: symbolFields(sym),
    scope,
    related: c.out.slice(0, limit),
    total_candidates: total,
    edges_available: edgesAvailable,
    name_only_calls: nameOnly,
    truncated: total > limit,
  };
}

/** The indexed file or directory an import names, if any (relative JS imports, dotted Python, Go paths). */
function resolveImportPath(db: Db, fromPath: string, target: string): string | null {
  const tries: string[] = [];
  if (/^\.\.?\//.test(target)) {
    const parts = dirOf(fromPath) ? dirOf(fromPath).split("/") : [];
    for (const seg of target.split("/")) {
      if (seg === "..") parts.pop();
      else if (seg !== "." && seg) parts.push(seg);
    }
    tries.push(parts.join("/"));
  } else {
    const slashed = target.replace(/^\.+/, "").replace(/\./g, "/");
    tries.push(target.includes("/") ? target : slashed);
    // A Go import path or a Python package may be rooted above the indexed tree: try its tails.
    const segs = (target.includes("/") ? target : slashed).split("/");
    for (let i = 1; i < segs.length; i++) tries.push(segs.slice(i).join("/"));
  }
  for (const [i, t] of tries.entries()) {
    if (!t) continue;
    // The last segment alone of a path's tail (`Kconfig` of `drivers/foo/Kconfig`) is any file of that name: only
    // a directory of that name is taken for it (a Go package rooted above the tree).
    const bare = i > 0 && target.includes("/") && !t.includes("/");
    const f = bare ? null : firstIndexedOf(db, [
      t,
      t + ".py",
      t + ".ts",
      t + ".js",
      t + "/__init__.py",
      t + "/index.ts",
      t.replace(/\.[jt]sx?$/, "") + ".ts",
    ]);
    if (f) return f;
    if (hasFileUnder(db, t + "/")) return t;
  }
  return null;
}
