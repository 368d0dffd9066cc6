/**
 * find_related_symbols: what an agent looks at next around one symbol —
 * its container and members, the types it extends or that extend it, what it
 * calls and what calls it (from the extracted references, resolved by
 * proximity), what its file imports, and its neighbours in the same file and
 * directory. Structural relations come first; `limit` cuts the tail.
 * Reads only the open index.
 */
import type { Db } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import { parseEnum, parseLimit } from "./_input_rules.ts";
import { resolveSymbol, symbolByRowId } from "./_resolve_symbol.ts";
import { TargetResolver } from "./_resolve_target.ts";
import { containmentChain, goMethodsOf } from "./symbol_hierarchy.ts";
import {
  CALLABLE_KINDS,
  dirOf,
  SYMBOL_COLUMNS,
  type SymbolFields,
  symbolFields,
  type SymbolRow,
  TYPE_KINDS,
} from "./_symbol_row.ts";

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
  truncated: boolean;
}

export const RELATED_DEFAULT_LIMIT = 20;
export const RELATED_MAX_LIMIT = 200;
/** Per-relation bound on what is read (callers of `String` in a big repository are thousands). */
const PER_RELATION = 300;
/** Call sites of the name examined for callers (each needs a resolution from its file). */
const MAX_CALLER_EDGES = 400;
const CALL_TARGET_KINDS = new Set([...CALLABLE_KINDS, ...TYPE_KINDS]);

/**
 * Symbols related to one symbol. `scope` bounds where related symbols may
 * live: `file` (same file), `module` (same directory: a Go package, a Python
 * package, a JS folder) or `package` (anywhere in the project; default).
 * Throws like get_symbol_hierarchy; `no_edges_available` only when nothing at
 * all is related and the index holds no references for the symbol's language.
 */
export function findRelatedSymbols(db: Db, input: RelatedInput): RelatedResult {
  const scope = parseEnum(input?.scope, "scope", ["file", "module", "package"] as const, "package");
  const limit = parseLimit(input?.limit, RELATED_DEFAULT_LIMIT, RELATED_MAX_LIMIT);
  const sym = resolveSymbol(db, input?.symbol_name, input?.path);
  const dir = dirOf(sym.path);
  const inScope = (path: string) =>
    scope === "package" || path === sym.path || (scope === "module" && dirOf(path) === dir);
  const resolver = new TargetResolver(db);
  const out: RelatedSymbol[] = [];
  const seen = new Set<string>();
  const add = (relation: Relation, r: SymbolRow, extra: Partial<RelatedSymbol> = {}) => {
    const key = relation + "\0" + r.id;
    if (r.id === sym.id || seen.has(key) || !inScope(r.path)) return;
    seen.add(key);
    out.push({ relation, ...symbolFields(r), ...extra });
  };

  // Containment: the direct container, then members (Go methods count as members of their type).
  const chain = containmentChain(db, sym);
  const parent = chain[0] && "symbol_id" in chain[0] ? chain[0] : null;
  if (parent) {
    const row = db.prepare(`SELECT ${SYMBOL_COLUMNS} FROM symbols WHERE symbol_id = ?`).get(
      parent.symbol_id,
    ) as unknown as
      | SymbolRow
      | undefined;
    if (row) add("parent", row);
  }
  const children = db.prepare(`SELECT ${SYMBOL_COLUMNS} FROM symbols WHERE parent_id = ? ORDER BY line_start LIMIT ?`)
    .all(sym.id, PER_RELATION) as unknown as SymbolRow[];
  if (TYPE_KINDS.has(sym.kind) && sym.language === "go") {
    children.push(...goMethodsOf(db, sym, PER_RELATION));
  }
  for (const c of children) add("child", c);

  // Type hierarchy, one level each way.
  const heritage = db.prepare(
    "SELECT kind, target, line FROM edges WHERE source_id = ? AND kind IN ('extends', 'implements') ORDER BY id",
  ).all(sym.id) as { kind: "extends" | "implements"; target: string; line: number }[];
  for (const e of heritage) {
    const t = resolver.resolve(e.target, sym.path, sym.language, TYPE_KINDS);
    if (t) add(e.kind, t.row, { line: e.line });
  }
  if (TYPE_KINDS.has(sym.kind)) {
    const subs = db.prepare(
      `SELECT kind, source_id, line FROM edges WHERE target_lower = ? AND target = ?
         AND kind IN ('extends', 'implements') AND source_id IS NOT NULL ORDER BY path, line LIMIT ?`,
    ).all(sym.name.toLowerCase(), sym.name, PER_RELATION) as { kind: string; source_id: number; line: number }[];
    for (const e of subs) {
      const sub = symbolByRowId(db, e.source_id);
      if (!sub) continue;
      const back = resolver.resolve(sym.name, sub.path, sub.language, TYPE_KINDS);
      if (back?.row.id === sym.id) add(e.kind === "extends" ? "extended_by" : "implemented_by", sub, { line: e.line });
    }
  }

  // Calls out of the symbol (and out of its members, for a type), resolved by proximity.
  const sources = [sym.id, ...children.filter((c) => CALLABLE_KINDS.has(c.kind)).map((c) => c.id)];
  const calls = db.prepare(
    `SELECT target, min(line) AS line FROM edges WHERE kind = 'calls' AND source_id IN (${
      sources.map(() => "?").join(",")
    })
     GROUP BY target ORDER BY line LIMIT ?`,
  ).all(...sources, PER_RELATION) as { target: string; line: number }[];
  for (const c of calls) {
    const t = resolver.resolve(c.target, sym.path, sym.language, CALL_TARGET_KINDS);
    if (t && !sources.includes(t.row.id)) add("calls", t.row, { line: c.line });
  }

  // Callers: uses of the name whose resolution from the caller's file is this symbol.
  const callers = db.prepare(
    `SELECT e.path, e.line, e.source_id FROM edges e WHERE e.target_lower = ? AND e.target = ? AND e.kind = 'calls'
       AND e.source_id IS NOT NULL ORDER BY (e.path = ?) DESC, e.path, e.line LIMIT ?`,
  ).all(sym.name.toLowerCase(), sym.name, sym.path, MAX_CALLER_EDGES) as {
    path: string;
    line: number;
    source_id: number;
  }[];
  const resolvesHere = new Map<string, boolean>();
  const languageOf = db.prepare("SELECT language FROM files WHERE path = ?");
  for (const c of callers) {
    if (!inScope(c.path)) continue;
    let ok = resolvesHere.get(c.path);
    if (ok === undefined) {
      const lang = (languageOf.get(c.path) as { language: string } | undefined)?.language ?? sym.language;
      ok = resolver.resolvesTo(sym, c.path, lang, CALL_TARGET_KINDS);
      resolvesHere.set(c.path, ok);
    }
    if (!ok) continue;
    const caller = symbolByRowId(db, c.source_id);
    if (caller) add("called_by", caller, { line: c.line });
  }

  // The file's imports: module names, with the indexed file or directory they name when found.
  const imports = db.prepare(
    "SELECT target, min(line) AS line FROM edges WHERE path = ? AND kind = 'imports' GROUP BY target ORDER BY line LIMIT ?",
  ).all(sym.path, PER_RELATION) as { target: string; line: number }[];
  for (const i of imports) {
    out.push({
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

  // Neighbours: top-level symbols of the same file (nearest first), then of the same directory.
  const sameFile = db.prepare(
    `SELECT ${SYMBOL_COLUMNS} FROM symbols WHERE path = ? AND parent_id IS NULL ORDER BY abs(line_start - ?) LIMIT ?`,
  ).all(sym.path, sym.line_start, PER_RELATION) as unknown as SymbolRow[];
  const ancestors = new Set(chain.filter((c) => "symbol_id" in c).map((c) => (c as SymbolFields).symbol_id));
  for (const r of sameFile) if (!ancestors.has(r.symbol_id)) add("same_file", r);
  let moreNeighbours = 0;
  if (scope !== "file") {
    const rows = db.prepare(
      `SELECT ${SYMBOL_COLUMNS} FROM symbols WHERE path > ? AND path < ? AND path != ? AND +parent_id IS NULL
         AND instr(substr(path, ?), '/') = 0 ORDER BY (visibility = 'public') DESC, path, line_start LIMIT ?`,
    ).all(
      dir ? dir + "/" : "",
      dir ? dir + "/\uffff" : "\uffff",
      sym.path,
      dir ? dir.length + 2 : 1,
      PER_RELATION + 1,
    ) as unknown as SymbolRow[];
    if (rows.length > PER_RELATION) moreNeighbours = 1;
    for (const r of rows.slice(0, PER_RELATION)) add("same_module", r);
  }

  const edgesAvailable = !!db.prepare(
    "SELECT 1 FROM edges JOIN files ON files.path = edges.path WHERE files.language = ? LIMIT 1",
  ).get(sym.language);
  if (out.length === 0 && !edgesAvailable) {
    throw new CruxeError(
      "no_edges_available",
      `No references are extracted for ${sym.language} files, and ${sym.qualified_name} has no neighbours in scope`,
      { language: sym.language, symbol_id: sym.symbol_id },
    );
  }
  const total = out.length + moreNeighbours;
  return {
    symbol: symbolFields(sym),
    scope,
    related: out.slice(0, limit),
    total_candidates: total,
    edges_available: edgesAvailable,
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
  const file = db.prepare("SELECT path FROM files WHERE path IN (?, ?, ?, ?, ?, ?, ?) LIMIT 1");
  const inDir = db.prepare("SELECT path FROM files WHERE path > ? AND path < ? LIMIT 1");
  for (const t of tries) {
    if (!t) continue;
    const f = file.get(
      t,
      t + ".py",
      t + ".ts",
      t + ".js",
      t + "/__init__.py",
      t + "/index.ts",
      t.replace(/\.[jt]sx?$/, "") + ".ts",
    ) as { path: string } | undefined;
    if (f) return f.path;
    if (inDir.get(t + "/", t + "/\uffff")) return t;
  }
  return null;
}
