/**
 * A call edge kept once (schema 27). An edge "symbol S calls name N" is, on
 * almost every line it comes from, also a call reference: the same file,
 * line, name and enclosing symbol. Such an edge is not written as an edge
 * row; the reference that states it is stored with kind `CALL_EDGE_KIND`
 * instead of the call kind, and the readers of call edges
 * (`read/edges.ts`) read those references as edges. An edge no reference
 * states (a call inside an inline assembly string, a file whose language
 * extracts no references) stays an edge row.
 */
import { REFERENCE_KINDS, type ReferenceKind } from "../core/types.ts";

/** The stored kind of a call reference that also stands for its enclosing symbol's call edge to that name. */
export const CALL_EDGE_KIND = REFERENCE_KINDS.length;

/** The stored kind of the plain call reference. */
export const CALL_KIND = REFERENCE_KINDS.indexOf("call");

/** The reference kind a stored kind code reads as (a call edge's reference is a call). */
export function storedReferenceKind(code: number): ReferenceKind {
  return code === CALL_EDGE_KIND ? "call" : REFERENCE_KINDS[code] ?? "call";
}

/** An edge as the writer has it: `from` is its enclosing symbol's place among the file's symbols. */
interface Edge {
  kind: string;
  from: number | null;
  target: string;
  line: number;
}

/** A reference as the writer has it (the first one extracted at its place). */
interface Occurrence {
  name: string;
  kind: ReferenceKind;
  line: number;
  column: number;
  from: number | null;
}

/**
 * Splits a file's edges into those still written as edge rows and the
 * references that stand for the others: for each call edge, the leftmost
 * call reference on its line with its name and its enclosing symbol (as
 * `place` normalises both), if there is one. Every other edge is kept.
 */
export function foldCallEdges<E extends Edge>(
  edges: readonly E[],
  occurrences: readonly Occurrence[],
  place: (from: number | null) => number | null,
): { kept: E[]; standing: Set<number> } {
  const calls = new Map<string, number>();
  occurrences.forEach((o, i) => {
    if (o.kind !== "call") return;
    const key = `${o.line}\0${place(o.from)}\0${o.name}`;
    const at = calls.get(key);
    if (at === undefined || occurrences[at].column > o.column) calls.set(key, i);
  });
  const kept: E[] = [];
  const standing = new Set<number>();
  for (const e of edges) {
    const at = e.kind === "calls" ? calls.get(`${e.line}\0${place(e.from)}\0${e.target}`) : undefined;
    // Edges are one per (enclosing symbol, target), so no reference stands for two.
    if (at === undefined || standing.has(at)) kept.push(e);
    else standing.add(at);
  }
  return { kept, standing };
}
