/**
 * get_call_graph: who calls a symbol and what it calls, a few levels deep,
 * from the reference index. Callers are the call sites of the symbol's name
 * that resolve to it (the same judgement as find_references); callees are the
 * calls inside its body (a class's: its constructor's, body's and fields')
 * resolved by the same rules (Go: package, imports, declared types; Python
 * and TypeScript: the hints, then find_references' judgement of the closest
 * definition of the name), else that definition as a `candidate`. Edges are resolved ones only unless candidates are asked for.
 * Edges inside a cycle (recursion, mutual calls) are marked. Bounded by
 * depth (at most 3), `max_nodes` and the call sites read per symbol; any cut
 * is said in `truncated`. Reads only the open index.
 */
import type { Db } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import {
  referenceCount,
  referenceNameId,
  type ReferencePosition,
  referencesAfter,
  referencesInLines,
} from "../state/read/references.ts";
import { parseEnum, parseFlag, parseLimit } from "./_input_rules.ts";
import { childrenOf, symbolByRowId } from "../state/read/symbols.ts";
import { type Affinity, TargetResolver } from "./_resolve_target.ts";
import { CALLABLE_KINDS, TYPE_KINDS } from "./_symbol_row.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import {
  HINTED_LANGUAGES,
  pythonResolvers,
  ReferenceJudge,
  type Resolution,
  RESOLUTION_BY_AFFINITY,
  SELF_NAMES,
  targetSymbol,
} from "./find_references.ts";
import { GoResolver, importNamesDir } from "./_go_resolve.ts";
import { dirOf } from "./_symbol_row.ts";
import type { ReferenceRow } from "../state/read/references.ts";

/** Inputs of get_call_graph. */
export interface CallGraphInput {
  symbol_name?: string;
  symbol_id?: string;
  path?: string;
  kind?: string;
  direction?: string;
  depth?: number;
  max_nodes?: number;
  include_candidates?: boolean;
}

/** A symbol in the graph; `depth` is its distance from the root (callers and callees both count up). */
export interface CallGraphNode {
  symbol_id: string;
  qualified_name: string;
  name: string;
  kind: string;
  path: string;
  line_start: number;
  line_end: number;
  depth: number;
}

/** `from` calls `to` (symbol ids) at `lines` of `from`'s file. */
export interface CallGraphEdge {
  from: string;
  to: string;
  lines: number[];
  resolution: Resolution;
  /** The edge lies on a cycle (recursion or mutual calls). */
  cycle: boolean;
}

/** The answer of get_call_graph (without the protocol metadata). */
export interface CallGraphResult {
  root: string;
  direction: "callers" | "callees" | "both";
  depth: number;
  nodes: CallGraphNode[];
  edges: CallGraphEdge[];
  /** Calls inside visited bodies whose callee is defined nowhere in the index (library calls). */
  unresolved_calls: number;
  /** Edges left out because only the name matches (listed with `include_candidates`). */
  unresolved_candidates: number;
  has_cycles: boolean;
  truncated: boolean;
  /** What was cut when `truncated`: `max_nodes`, `call_sites` (a symbol with very many callers). */
  truncated_by: string[];
}

export const CALL_GRAPH_MAX_DEPTH = 3;
export const CALL_GRAPH_DEFAULT_NODES = 20;
export const CALL_GRAPH_MAX_NODES = 500;
/** Call sites of one name read when looking for callers. */
const CALLER_SCAN = 5000;
const CALL_TARGETS = new Set([...CALLABLE_KINDS, ...TYPE_KINDS]);

/**
 * How sure a resolved callee is: a bare name by its affinity; `self.m()` is
 * exact only for a member of the caller's own container; a Go `pkg.F()` by
 * its import; any other receiver is a name match.
 */
function calleeResolution(caller: SymbolRow, callee: SymbolRow, affinity: Affinity, qualifier: string | null) {
  if (qualifier === null) return RESOLUTION_BY_AFFINITY[affinity];
  if (SELF_NAMES.has(qualifier) && qualifier !== "super") {
    return callee.parent_id !== null && callee.parent_id === caller.parent_id ? "exact" : "candidate";
  }
  return "candidate";
}

/** Builds the call graph around one symbol (see the module comment). */
export function getCallGraph(db: Db, input: CallGraphInput): CallGraphResult {
  const direction = parseEnum(input?.direction, "direction", ["callers", "callees", "both"] as const, "both");
  const depth = input?.depth ?? 1;
  if (typeof depth !== "number" || !Number.isInteger(depth) || depth < 1 || depth > CALL_GRAPH_MAX_DEPTH) {
    throw new CruxeError("invalid_input", `depth must be an integer from 1 to ${CALL_GRAPH_MAX_DEPTH}`, {
      field: "depth",
      min: 1,
      max: CALL_GRAPH_MAX_DEPTH,
    });
  }
  const maxNodes = parseLimit(input?.max_nodes, CALL_GRAPH_DEFAULT_NODES, CALL_GRAPH_MAX_NODES, "max_nodes");
  const withCandidates = parseFlag(input?.include_candidates, "include_candidates");
  const root = targetSymbol(db, input);
  const graph = new CallGraphBuilder(db, maxNodes, withCandidates);
  graph.addNode(root, 0);
  const frontier: Frontier = [];
  if (direction !== "callees") frontier.push({ row: root, way: "callers" });
  if (direction !== "callers") frontier.push({ row: root, way: "callees" });
  graph.walk(frontier, depth);
  return { root: root.symbol_id, direction, depth, ...graph.result() };
}

/**
 * The calls into and out of `sym` that get_call_graph answers at depth 1
 * (name-only matches left out), with the line of each call site: up to
 * `maxCallers` callers (a caller's sites in its own file), the callees of
 * `sym` and of each of `bodies` (sites in `sym`'s file), and how many call
 * sites were left out because only the name matches.
 */
export function directCalls(
  db: Db,
  sym: SymbolRow,
  bodies: readonly SymbolRow[],
  maxCallers: number,
): { callers: { row: SymbolRow; line: number }[]; callees: { row: SymbolRow; line: number }[]; nameOnly: number } {
  const graph = new CallGraphBuilder(db, maxCallers + 1, false);
  graph.addNode(sym, 0);
  const callers = graph.callersOf(sym).map((c) => ({ row: c.caller, line: c.line }));
  const callees = [sym, ...bodies].flatMap((b) => graph.calleesOf(b).map((c) => ({ row: c.callee, line: c.line })));
  return { callers, callees, nameOnly: graph.result().unresolved_candidates };
}

/** Symbols still to expand, each in the direction it was reached. */
type Frontier = { row: SymbolRow; way: "callers" | "callees" }[];

/** The nodes, edges and cuts of one call graph as it grows level by level. */
class CallGraphBuilder {
  private nodes = new Map<number, CallGraphNode>();
  private edges = new Map<string, CallGraphEdge & { fromRow: number; toRow: number }>();
  private cuts = new Set<string>();
  private unresolved = 0;
  private candidates = 0;
  private rows = new Map<number, SymbolRow | undefined>();
  private judges = new Map<number, ReferenceJudge>();
  private resolver: TargetResolver;
  private go: GoResolver;

  constructor(private db: Db, private maxNodes: number, private withCandidates: boolean) {
    this.resolver = new TargetResolver(db);
    this.go = new GoResolver(db);
  }

  /** Whether an edge of `resolution` is part of the answer (candidates only when asked for; counted either way). */
  private keep(resolution: Resolution): boolean {
    if (resolution !== "candidate") return true;
    this.candidates++;
    return this.withCandidates;
  }

  /** Adds `r` at distance `d` (a known node stays as it is); false when the graph is full. */
  addNode(r: SymbolRow, d: number): boolean {
    if (this.nodes.has(r.id)) return true;
    if (this.nodes.size >= this.maxNodes) {
      this.cuts.add("max_nodes");
      return false;
    }
    this.nodes.set(r.id, {
      symbol_id: r.symbol_id,
      qualified_name: r.qualified_name,
      name: r.name,
      kind: r.kind,
      path: r.path,
      line_start: r.line_start,
      line_end: r.line_end,
      depth: d,
    });
    return true;
  }

  /** Expands `frontier` up to `depth` levels; the rest stays unexpanded once the graph is full. */
  walk(frontier: Frontier, depth: number): void {
    for (let d = 1; d <= depth && frontier.length; d++) {
      const next: Frontier = [];
      for (const { row, way } of frontier) {
        // A full graph adds nothing more: the rest of the frontier stays unexpanded.
        if (this.nodes.size >= this.maxNodes) {
          this.cuts.add("max_nodes");
          break;
        }
        if (way === "callers") {
          for (const c of this.callersOf(row)) {
            const known = this.nodes.has(c.caller.id);
            if (!this.addNode(c.caller, d)) continue;
            this.addEdge(c.caller, row, c.line, c.resolution);
            if (!known) next.push({ row: c.caller, way });
          }
        } else {
          for (const c of this.calleesOf(row)) {
            const known = this.nodes.has(c.callee.id);
            if (!this.addNode(c.callee, d)) continue;
            this.addEdge(row, c.callee, c.line, c.resolution);
            if (!known) next.push({ row: c.callee, way });
          }
        }
      }
      frontier = next;
    }
  }

  /** The graph so far, cycles marked. */
  result(): Omit<CallGraphResult, "root" | "direction" | "depth"> {
    const edgeList = [...this.edges.values()];
    markCycles(edgeList);
    return {
      nodes: [...this.nodes.values()],
      edges: edgeList.map(({ fromRow: _f, toRow: _t, ...e }) => e),
      unresolved_calls: this.unresolved,
      unresolved_candidates: this.candidates,
      has_cycles: edgeList.some((e) => e.cycle),
      truncated: this.cuts.size > 0,
      truncated_by: [...this.cuts].sort(),
    };
  }

  private addEdge(from: SymbolRow, to: SymbolRow, line: number, resolution: Resolution): void {
    const key = from.id + ">" + to.id;
    const e = this.edges.get(key);
    if (e) {
      if (!e.lines.includes(line) && e.lines.length < 20) e.lines.push(line);
      return;
    }
    this.edges.set(key, {
      from: from.symbol_id,
      to: to.symbol_id,
      lines: [line],
      resolution,
      cycle: false,
      fromRow: from.id,
      toRow: to.id,
    });
  }

  private rowOf(id: number): SymbolRow | undefined {
    if (!this.rows.has(id)) this.rows.set(id, symbolByRowId(this.db, id));
    return this.rows.get(id);
  }

  /**
   * Call sites of `sym` that resolve to it, grouped by caller. Reading stops once more new callers were
   * found than the graph has room for (`max_nodes` then cuts), or after CALLER_SCAN stored occurrences.
   */
  callersOf(sym: SymbolRow): { caller: SymbolRow; line: number; resolution: Resolution }[] {
    const nameId = referenceNameId(this.db, sym.name);
    if (nameId === null) return [];
    const judge = new ReferenceJudge(this.db, sym, this.resolver, this.go);
    const out: { caller: SymbolRow; line: number; resolution: Resolution }[] = [];
    const fresh = new Set<number>();
    const room = this.maxNodes - this.nodes.size;
    let position: ReferencePosition | null = null;
    const occurrences = referenceCount(this.db, nameId);
    let scanned = 0;
    while (scanned < CALLER_SCAN) {
      const batch = referencesAfter(this.db, nameId, position, 1000, occurrences);
      if (!batch.length) return out;
      for (const r of batch) {
        scanned++;
        position = r;
        if (r.kind !== "call" || r.source_id === null) continue;
        const resolution = judge.judge(r);
        if (!resolution || !this.keep(resolution)) continue;
        const caller = this.rowOf(r.source_id);
        if (!caller) continue;
        if (!this.nodes.has(caller.id)) fresh.add(caller.id);
        if (fresh.size > room) {
          this.cuts.add("max_nodes");
          return out;
        }
        out.push({ caller, line: r.line, resolution });
      }
    }
    if (referencesAfter(this.db, nameId, position, 1, occurrences).length) this.cuts.add("call_sites");
    return out;
  }

  /** The calls inside `sym`'s body resolved to their closest definition (the rest count as unresolved). */
  calleesOf(sym: SymbolRow): { callee: SymbolRow; line: number; resolution: Resolution }[] {
    const out: { callee: SymbolRow; line: number; resolution: Resolution }[] = [];
    const isClass = TYPE_KINDS.has(sym.kind);
    for (const r of referencesInLines(this.db, sym.path, sym.line_start, sym.line_end)) {
      if (r.kind !== "call") continue;
      // A class calls what its constructor and its fields' values call, not what its methods do.
      if (isClass && !this.inConstruction(r.source_id, sym.id)) continue;
      const exact = sym.language === "go"
        ? this.goCallee(r, sym.path)
        : HINTED_LANGUAGES.has(sym.language)
        ? this.pyCallee(r, sym)
        : undefined;
      if (exact) {
        out.push({ callee: exact, line: r.line, resolution: "exact" });
        continue;
      }
      const t = exact === null ? null : this.resolver.resolve(r.name, sym.path, sym.language, CALL_TARGETS);
      if (!t) {
        this.unresolved++;
        continue;
      }
      let resolution: Resolution = calleeResolution(sym, t.row, t.affinity, r.qualifier);
      if (HINTED_LANGUAGES.has(sym.language)) {
        // Python, TypeScript: the same judgement as find_references (`mod.f()` through a module or its alias is
        // an import; a bare name never means a method); a call it gives to another definition is unresolved.
        const judged = this.judgeOf(t.row).judge(r);
        if (judged === null) {
          this.unresolved++;
          continue;
        }
        resolution = judged;
      }
      // A name-only match never makes a symbol its own callee: the call resolves elsewhere or nowhere known.
      if (resolution === "candidate" && t.row.id === sym.id) continue;
      if (this.keep(resolution)) out.push({ callee: t.row, line: r.line, resolution });
    }
    return out;
  }

  /** True when a call in the symbol `sourceId` runs when class `classId` is made: the class body, a field, the constructor. */
  private inConstruction(sourceId: number | null, classId: number): boolean {
    const row = sourceId === null ? undefined : this.rowOf(sourceId);
    if (!row || row.id === classId) return true;
    if (row.parent_id !== classId) return false;
    return !CALLABLE_KINDS.has(row.kind) || row.kind === "constructor" || row.name === "__init__" ||
      row.name === "constructor";
  }

  /** The class a symbol is, or the nearest class around it (a method's, a nested function's); null at top level. */
  private classAround(sym: SymbolRow): number | null {
    let row: SymbolRow | undefined = sym;
    for (let depth = 0; row && !TYPE_KINDS.has(row.kind) && depth < 8; depth++) {
      row = row.parent_id === null ? undefined : this.rowOf(row.parent_id);
    }
    return row && TYPE_KINDS.has(row.kind) ? row.id : null;
  }

  /** The reference judge of one symbol, made once per graph. */
  private judgeOf(row: SymbolRow): ReferenceJudge {
    let j = this.judges.get(row.id);
    if (!j) this.judges.set(row.id, j = new ReferenceJudge(this.db, row, this.resolver, this.go));
    return j;
  }

  /** A Python `x.m()` whose operand's class the file shows: that class's (or its base's) `m`; else undefined. */
  private pyCallee(r: ReferenceRow & { name: string }, sym: SymbolRow): SymbolRow | undefined {
    const shared = pythonResolvers(this.db, this.resolver);
    let owner: number | null | undefined;
    if (r.hint) owner = shared.hints(sym.language).owner(r.hint, sym.path, () => this.classAround(sym), r.name);
    else if (r.qualifier === "self" || r.qualifier === "cls" || r.qualifier === "this") {
      // `self.m()`: the class around the caller, or the nearest of its in-repository bases that defines `m`.
      const cls = this.classAround(sym);
      owner = cls === null ? undefined : shared.bases.ownerOf(cls, r.name);
    }
    if (typeof owner !== "number") return undefined;
    return childrenOf(this.db, owner).find((c) => c.name === r.name && CALL_TARGETS.has(c.kind));
  }

  /**
   * A Go call resolved by the package, the file's imports or the operand's declared type; null when it
   * resolves to nothing in the index (a builtin, a library); undefined when only the name can say.
   */
  private goCallee(r: ReferenceRow & { name: string }, path: string): SymbolRow | null | undefined {
    const hint = r.hint ?? "";
    if (r.qualifier === null) {
      const here = dirOf(path);
      const dots = hint.startsWith(".") ? hint.slice(1).split(",") : [];
      return this.go.topLevel(r.name, (d) => d === here, CALL_TARGETS) ??
        (dots.length ? this.go.topLevel(r.name, (d) => dots.some((p) => importNamesDir(p, d)), CALL_TARGETS) : null);
    }
    if (hint.startsWith("=")) return this.go.topLevel(r.name, (d) => importNamesDir(hint.slice(1), d), CALL_TARGETS);
    const t = this.go.typeOf(hint, path);
    const m = t ? this.go.member(t, r.name) : null;
    return m ?? undefined;
  }
}

/** Marks every edge whose ends lie in one strongly connected component (or that calls itself). */
function markCycles(edges: { fromRow: number; toRow: number; cycle: boolean }[]): void {
  const out = new Map<number, number[]>();
  for (const e of edges) (out.get(e.fromRow) ?? out.set(e.fromRow, []).get(e.fromRow)!).push(e.toRow);
  // Tarjan's algorithm, iterative (graphs are at most a few hundred nodes, but recursion depth is not ours to pick).
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const comp = new Map<number, number>();
  const stack: number[] = [];
  const onStack = new Set<number>();
  let counter = 0;
  let comps = 0;
  const all = new Set<number>(edges.flatMap((e) => [e.fromRow, e.toRow]));
  for (const start of all) {
    if (index.has(start)) continue;
    const work: { v: number; i: number }[] = [{ v: start, i: 0 }];
    index.set(start, counter), low.set(start, counter++), stack.push(start), onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1];
      const succ = out.get(top.v) ?? [];
      if (top.i < succ.length) {
        const w = succ[top.i++];
        if (!index.has(w)) {
          index.set(w, counter), low.set(w, counter++), stack.push(w), onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].v;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.v)!));
      }
      if (low.get(top.v) === index.get(top.v)) {
        let w: number;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          comp.set(w, comps);
        } while (w !== top.v);
        comps++;
      }
    }
  }
  for (const e of edges) e.cycle = e.fromRow === e.toRow || comp.get(e.fromRow) === comp.get(e.toRow);
}
