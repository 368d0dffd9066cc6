/**
 * Call-graph scoring against an oracle's call relation: for each sampled
 * function, the nodes `get_call_graph` reaches at depth 1 and 2 (callees,
 * callers) are compared with the nodes the oracle's relation reaches, by
 * Cruxe symbol id. Recall and precision of the default answer, and the
 * precision of each label (the resolution of the edge a node was first
 * reached by, candidates included). An oracle may leave a symbol's calls
 * unknown (`known`): a node reached from such a symbol only is not judged.
 */
import type { Db } from "../src/state/db.ts";
import { getCallGraph } from "../src/query/call_graph.ts";

/** An oracle's call relation over Cruxe symbol ids. */
export interface CallOracle {
  /** The symbols `id` calls (resolved by the oracle, in the index). */
  callees(id: string): string[];
  /** The symbols calling `id`. */
  callers(id: string): string[];
  /**
   * False when the oracle cannot judge an edge of Cruxe's (`from` calls `to` at `lines` of `from`'s file): it
   * could not resolve a call on those lines, or did not list `to`'s callers.
   */
  known?(edge: { from: string; to: string; lines: number[] }, direction: "callees" | "callers"): boolean;
  /** A readable name of `id` for the disagreements printed. */
  describe?(id: string): string;
  /** The node the oracle names for an index symbol (a constructor: its class), when they differ. */
  canon?(id: string): string;
}

/** Recall and precision counts. */
class Tally {
  tp = 0;
  truth = 0;
  got = 0;
  line(label: string): string {
    const f = (a: number, b: number) => (b ? (a / b).toFixed(3) : "  -  ");
    return `${label.padEnd(34)} recall ${f(this.tp, this.truth)}  precision ${f(this.tp, this.got)}  ` +
      `(${this.tp} right of ${this.got} returned, ${this.truth} true)`;
  }
}

/** Ids within `depth` steps of `from` along `next`, the start left out. */
function reach(from: string, next: (k: string) => string[], depth: number): Set<string> {
  const seen = new Set([from]);
  let frontier = [from];
  for (let d = 0; d < depth; d++) {
    const n: string[] = [];
    for (const k of frontier) for (const m of next(k)) if (!seen.has(m)) seen.add(m), n.push(m);
    frontier = n;
  }
  seen.delete(from);
  return seen;
}

/**
 * Prints callees and callers at depth 1 and 2 for `roots` (symbol ids): the default answer's recall and
 * precision and each label's precision; then up to `show` disagreements per row.
 */
export function callGraphReport(db: Db, roots: string[], oracle: CallOracle, show: number): void {
  for (const direction of ["callees", "callers"] as const) {
    for (const depth of [1, 2]) {
      const all = new Tally();
      const labels = new Map<string, Tally>();
      const wrong: string[] = [];
      let unjudged = 0;
      for (const root of roots) {
        const next = direction === "callees" ? oracle.callees : oracle.callers;
        const truth = reach(root, (k) => next.call(oracle, k), depth);
        const g = getCallGraph(db, { symbol_id: root, direction, depth, max_nodes: 500, include_candidates: true });
        const name = new Map(g.nodes.map((n) => [n.symbol_id, `${n.qualified_name} (${n.path}:${n.line_start})`]));
        // Each node's label: the strongest over the paths reaching it of the weakest edge on the path.
        const via = new Map<
          string,
          { resolution: string; from: string; edge: { from: string; to: string; lines: number[] } }
        >();
        const rank = (r: string | undefined) => r === "exact" ? 2 : r === "import" ? 1 : r ? 0 : -1;
        const depthOf = (e: { from: string; to: string }): number =>
          g.nodes.find((n) => n.symbol_id === (direction === "callees" ? e.to : e.from))?.depth ?? 0;
        const byDepth = [...g.edges].sort((a, b) => depthOf(a) - depthOf(b));
        for (const e of byDepth) {
          const [near, far] = direction === "callees" ? [e.from, e.to] : [e.to, e.from];
          if (far === root) continue;
          const before = near === root ? "exact" : via.get(near)?.resolution;
          if (before === undefined) continue;
          const r = rank(e.resolution) < rank(before) ? e.resolution : before;
          if (rank(r) > rank(via.get(far)?.resolution)) via.set(far, { resolution: r, from: near, edge: e });
        }
        const canon = (id: string) => oracle.canon?.(id) ?? id;
        const plain = getCallGraph(db, { symbol_id: root, direction, depth, max_nodes: 500 });
        const answer = new Set(plain.nodes.map((n) => canon(n.symbol_id)).filter((id) => id && id !== canon(root)));
        // A node reached by an edge the oracle cannot judge (an unresolved call on its lines) is not judged.
        const judged = (id: string) => {
          if (truth.has(id)) return true;
          const v = via.get(id);
          return !oracle.known || !v || oracle.known(v.edge, direction);
        };
        all.truth += truth.size;
        for (const id of answer) {
          if (!judged(id)) {
            unjudged++;
            continue;
          }
          all.got++;
          if (truth.has(id)) all.tp++;
          else wrong.push(`extra ${name.get(root)}: ${name.get(id)}`);
        }
        const said = (id: string) => name.get(id) ?? oracle.describe?.(id) ?? id;
        for (const id of truth) if (!answer.has(id)) wrong.push(`missed ${said(root)}: ${said(id)}`);
        const labelled = new Map<string, string>();
        for (const [id, v] of via) {
          const c = canon(id);
          if (c && c !== canon(root) && rank(v.resolution) > rank(labelled.get(c))) labelled.set(c, v.resolution);
        }
        for (const [id, resolution] of labelled) {
          if (!judged(id)) continue;
          const t = labels.get(resolution) ?? labels.set(resolution, new Tally()).get(resolution)!;
          t.got++;
          if (truth.has(id)) t.tp++;
        }
      }
      console.log(
        "  " + all.line(`${direction}, depth ${depth} (${roots.length} functions)`) +
          (unjudged ? `, ${unjudged} not judged` : ""),
      );
      const per = [...labels].sort().map(([k, t]) => `${k} ${t.got ? (t.tp / t.got).toFixed(3) : "-"} (${t.got})`);
      console.log(`    label precision: ${per.join(", ")}`);
      for (const w of wrong.slice(0, show)) console.log("    " + w);
    }
  }
}
