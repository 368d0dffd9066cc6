/**
 * get_symbol_hierarchy: where a symbol sits. Ancestors: the containment chain
 * (method → class → module) and the types it extends / implements,
 * transitively. Descendants: its members and the types that extend /
 * implement it, transitively. Both bounded. Reads only the open index.
 */
import type { Db } from "../state/db.ts";
import { parseEnum } from "./_input_rules.ts";
import { resolveSymbol } from "./_resolve_symbol.ts";
import { type Affinity, TargetResolver } from "./_resolve_target.ts";
import { dirOf, type SymbolFields, symbolFields, TYPE_KINDS } from "./_symbol_row.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { childrenOf, symbolByRowId, symbolsByName, topLevelMethodsUnder } from "../state/read/symbols.ts";
import { heritageOf, subtypesOf } from "../state/read/edges.ts";

/** Inputs of get_symbol_hierarchy. */
export interface HierarchyInput {
  symbol_name: string;
  path?: string;
  direction?: "ancestors" | "descendants";
}

/** A containing scope that is not a symbol row (the module or package a file defines). */
export interface ModuleNode {
  kind: "module";
  name: string;
  qualified_name: string;
  path: string;
}

/** A member in the descendants' containment tree. */
export interface MemberNode extends SymbolFields {
  children: MemberNode[];
}

/**
 * One edge of the type hierarchy. `name` is the type as written in the
 * source; `symbol` the definition it resolves to (null when not in the index),
 * `resolution` how it was chosen (names are resolved by proximity).
 */
export interface TypeNode {
  relation: "extends" | "implements" | "extended_by" | "implemented_by";
  name: string;
  depth: number;
  symbol: SymbolFields | null;
  resolution: Affinity | "unresolved";
  children: TypeNode[];
}

/** The answer of get_symbol_hierarchy (without the protocol metadata). */
export interface HierarchyResult {
  symbol: SymbolFields;
  direction: "ancestors" | "descendants";
  /** Ancestors: innermost first, ending at the module. Descendants: the member tree. */
  containment: (SymbolFields | ModuleNode)[] | MemberNode[];
  type_hierarchy: TypeNode[];
  truncated: boolean;
}

/** Bounds: levels of the type hierarchy, nodes in it, members listed. */
export const HIERARCHY_MAX_DEPTH = 8;
export const HIERARCHY_MAX_NODES = 200;
const MAX_MEMBERS = 500;

/**
 * The hierarchy of one symbol. Throws `symbol_not_found` (with suggestions),
 * `ambiguous_symbol` (candidates in `data`), `file_not_found` for an unknown
 * `path`, `invalid_input` for a bad direction.
 */
export function getSymbolHierarchy(db: Db, input: HierarchyInput): HierarchyResult {
  const direction = parseEnum(input?.direction, "direction", ["ancestors", "descendants"] as const, "ancestors");
  const sym = resolveSymbol(db, input?.symbol_name, input?.path);
  const budget = { nodes: 0, truncated: false };
  const resolver = new TargetResolver(db);
  if (direction === "ancestors") {
    return {
      symbol: symbolFields(sym),
      direction,
      containment: containmentChain(db, sym),
      type_hierarchy: supertypes(db, resolver, sym, 1, new Set([sym.id]), budget),
      truncated: budget.truncated,
    };
  }
  const members = memberTree(db, sym, budget);
  return {
    symbol: symbolFields(sym),
    direction,
    containment: members,
    type_hierarchy: subtypes(db, resolver, sym, 1, new Set([sym.id]), budget),
    truncated: budget.truncated,
  };
}

/**
 * Enclosing symbols from the innermost out, then the module. A Go method is
 * declared at top level; its receiver type (same qualified prefix, same
 * package directory) is its container.
 */
export function containmentChain(db: Db, sym: SymbolRow): (SymbolFields | ModuleNode)[] {
  const out: (SymbolFields | ModuleNode)[] = [];
  let cur = sym;
  const seen = new Set([sym.id]);
  for (let i = 0; i < 32; i++) {
    let parent = cur.parent_id === null ? undefined : symbolByRowId(db, cur.parent_id);
    if (!parent && cur.kind === "method") parent = receiverOwner(db, cur);
    if (!parent || seen.has(parent.id)) break;
    seen.add(parent.id);
    out.push(symbolFields(parent));
    cur = parent;
  }
  // The module is what the qualified name adds before a separator: Kconfig's `CONFIG_FOO` is a spelling of `FOO`.
  const prefix = cur.qualified_name.endsWith(cur.name)
    ? cur.qualified_name.slice(0, cur.qualified_name.length - cur.name.length)
    : "";
  const moduleName = /(::|[.#/\\])$/.test(prefix) ? prefix.replace(/(::|[.#/])$/, "") : "";
  if (moduleName) {
    out.push({
      kind: "module",
      name: moduleName.split(/::|[.#/]/).pop() ?? moduleName,
      qualified_name: moduleName,
      path: cur.path,
    });
  }
  return out;
}

function receiverOwner(db: Db, m: SymbolRow): SymbolRow | undefined {
  const owner = m.qualified_name.slice(0, Math.max(0, m.qualified_name.length - m.name.length - 1));
  const ownerName = owner.split(".").pop();
  if (!owner || !ownerName || owner === m.qualified_name) return undefined;
  // By name first (indexed), then the qualified name.
  const rows = symbolsByName(db, ownerName, { limit: 2000 })
    .filter((r) => r.qualified_name === owner && r.language === m.language && TYPE_KINDS.has(r.kind));
  const dir = dirOf(m.path);
  return rows.find((r) => r.path === m.path) ?? rows.find((r) => dirOf(r.path) === dir);
}

function memberTree(db: Db, sym: SymbolRow, budget: { nodes: number; truncated: boolean }): MemberNode[] {
  const walk = (row: SymbolRow, depth: number): MemberNode[] => {
    const out: MemberNode[] = [];
    let kids = childrenOf(db, row.id);
    // Go methods live outside the type declaration: attach them as members.
    if (depth === 0 && TYPE_KINDS.has(row.kind) && row.language === "go") {
      kids = kids.concat(goMethodsOf(db, row));
    }
    for (const k of kids) {
      if (budget.nodes >= MAX_MEMBERS) {
        budget.truncated = true;
        break;
      }
      budget.nodes++;
      out.push({ ...symbolFields(k), children: depth < 4 ? walk(k, depth + 1) : [] });
    }
    return out;
  };
  const members = walk(sym, 0);
  budget.nodes = 0; // the type hierarchy has its own node budget
  return members;
}

/** Methods declared on Go type `t` anywhere in its package directory. */
export function goMethodsOf(db: Db, t: SymbolRow, max = MAX_MEMBERS): SymbolRow[] {
  const dir = dirOf(t.path);
  const lo = dir ? dir + "/" : "";
  return topLevelMethodsUnder(db, lo)
    .filter((m) => m.language === "go" && dirOf(m.path) === dir && m.qualified_name === `${t.qualified_name}.${m.name}`)
    .slice(0, max);
}

function supertypes(
  db: Db,
  resolver: TargetResolver,
  sym: SymbolRow,
  depth: number,
  seen: Set<number>,
  budget: { nodes: number; truncated: boolean },
): TypeNode[] {
  const edges = heritageOf(db, sym.id);
  const out: TypeNode[] = [];
  for (const e of edges) {
    if (budget.nodes >= HIERARCHY_MAX_NODES) {
      budget.truncated = true;
      break;
    }
    budget.nodes++;
    const target = resolver.resolve(e.target, sym.path, sym.language, TYPE_KINDS);
    const node: TypeNode = {
      relation: e.kind,
      name: e.target,
      depth,
      symbol: target ? symbolFields(target.row) : null,
      resolution: target ? target.affinity : "unresolved",
      children: [],
    };
    if (target && !seen.has(target.row.id)) {
      if (depth >= HIERARCHY_MAX_DEPTH) budget.truncated = true;
      else {
        seen.add(target.row.id);
        node.children = supertypes(db, resolver, target.row, depth + 1, seen, budget);
      }
    }
    out.push(node);
  }
  return out;
}

function subtypes(
  db: Db,
  resolver: TargetResolver,
  sym: SymbolRow,
  depth: number,
  seen: Set<number>,
  budget: { nodes: number; truncated: boolean },
): TypeNode[] {
  const edges = subtypesOf(db, sym.name, 2000);
  const out: TypeNode[] = [];
  for (const e of edges) {
    if (budget.nodes >= HIERARCHY_MAX_NODES) {
      budget.truncated = true;
      break;
    }
    const sub = symbolByRowId(db, e.source_id);
    if (!sub || seen.has(sub.id)) continue;
    // Names are shared across packages: keep a subtype only if its base name resolves to this symbol.
    const back = resolver.resolve(sym.name, sub.path, sub.language, TYPE_KINDS);
    if (!back || back.row.id !== sym.id) continue;
    budget.nodes++;
    seen.add(sub.id);
    const node: TypeNode = {
      relation: e.kind === "extends" ? "extended_by" : "implemented_by",
      name: sub.name,
      depth,
      symbol: symbolFields(sub),
      resolution: back.affinity,
      children: [],
    };
    if (depth >= HIERARCHY_MAX_DEPTH) budget.truncated = true;
    else node.children = subtypes(db, resolver, sub, depth + 1, seen, budget);
    out.push(node);
  }
  return out;
}
