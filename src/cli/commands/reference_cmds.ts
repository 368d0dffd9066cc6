/**
 * The reference commands of the CLI (`refs`, `callgraph`, `impls`):
 * find_references, get_call_graph and find_implementations from the
 * terminal, printed as tables for people or JSON with `--json`.
 */
import type { CliContext } from "../context.ts";
import { counted, EXIT_FOUND, EXIT_NOTHING, printJson, printTable, say } from "../output.ts";
import { findReferences, type Reference } from "../../query/find_references.ts";
import { getCallGraph } from "../../query/call_graph.ts";
import { findImplementations } from "../../query/implementations.ts";
import { num, type QueryArgs, withIndex } from "./query_cmds.ts";

/** Runs `refs`, `callgraph` or `impls`; returns the exit code. */
export function runReferenceCommand(ctx: CliContext, cmd: string, a: QueryArgs): Promise<number> {
  if (cmd === "impls") return runImpls(ctx, a);
  if (cmd === "refs") return runRefs(ctx, a);
  return runCallGraph(ctx, a);
}

/** `impls NAME`: the types implementing an interface, trait or base. */
async function runImpls(ctx: CliContext, a: QueryArgs): Promise<number> {
  const f = a.flags;
  const r = await withIndex(ctx, a, (db) =>
    findImplementations(db, {
      symbol_name: a.text,
      path: f.path,
      kind: f.kind,
      limit: num(f.limit),
      include_candidates: f.candidates ? true : undefined,
    }));
  if (a.json) return printJson(r), 0;
  say(`${r.symbol.qualified_name} (${r.symbol.path}:${r.symbol.line_start}): ${counted(r.returned, "implementation")}`);
  printTable(
    ["type", "location", "resolution", "via"],
    r.implementations.map((x) => [
      x.symbol.qualified_name,
      `${x.symbol.path}:${x.symbol.line_start}`,
      x.resolution,
      x.via === "heritage" && x.depth > 1 ? `heritage (${x.depth} levels)` : x.via,
    ]),
  );
  if (r.unresolved_candidates && !f.candidates) {
    say(`${r.unresolved_candidates} candidates (only the names match): --candidates lists them`);
  }
  return r.implementations.length ? EXIT_FOUND : EXIT_NOTHING;
}

/** `refs NAME`: one page of a symbol's references. */
async function runRefs(ctx: CliContext, a: QueryArgs): Promise<number> {
  const f = a.flags;
  const r = await withIndex(ctx, a, (db) =>
    findReferences(db, {
      symbol_name: a.text,
      path: f.path,
      kind: f.kind,
      reference_kind: f["reference-kind"],
      limit: num(f.limit),
      cursor: f.cursor,
      include_candidates: f.candidates ? true : undefined,
    }));
  if (a.json) return printJson(r), 0;
  const refs: Reference[] = r.references ??
    r.files!.flatMap((g) => g.references.map((x) => ({ ...x, path: g.path }) as Reference));
  // The count is of what this page shows; a next page means there are more.
  const more = r.next_cursor ? " on this page (more below)" : "";
  say(
    `${r.symbol.qualified_name} (${r.symbol.path}:${r.symbol.line_start}): ${counted(r.returned, "reference")}${more}`,
  );
  printTable(
    ["location", "kind", "resolution", "in", "line"],
    refs.map((x) => [
      `${x.path}:${x.line}:${x.column}`,
      x.reference_kind,
      x.resolution,
      x.enclosing?.qualified_name ?? "",
      x.line_text.trim(),
    ]),
  );
  if (r.next_cursor) say(`more: --cursor ${r.next_cursor}`);
  if (r.unresolved_candidates && !f.candidates) {
    say(`${r.unresolved_candidates} candidates (only the name matches): --candidates lists them`);
  }
  return refs.length ? EXIT_FOUND : EXIT_NOTHING;
}

/** `callgraph NAME`: callers and callees to a depth. */
async function runCallGraph(ctx: CliContext, a: QueryArgs): Promise<number> {
  const f = a.flags;
  const g = await withIndex(ctx, a, (db) =>
    getCallGraph(db, {
      symbol_name: a.text,
      path: f.path,
      kind: f.kind,
      direction: f.direction,
      depth: num(f.depth),
      max_nodes: num(f["max-nodes"]),
      include_candidates: f.candidates ? true : undefined,
    }));
  if (a.json) return printJson(g), 0;
  const names = new Map(g.nodes.map((n) => [n.symbol_id, n.qualified_name]));
  printTable(
    ["caller", "callee", "lines", "resolution", "cycle"],
    g.edges.map((e) => [names.get(e.from), names.get(e.to), e.lines.join(","), e.resolution, e.cycle ? "yes" : ""]),
  );
  if (g.truncated) say(`truncated by ${g.truncated_by.join(", ")}`);
  if (g.unresolved_candidates && !f.candidates) {
    say(`${g.unresolved_candidates} candidate edges (only the name matches): --candidates follows them`);
  }
  return g.edges.length ? EXIT_FOUND : EXIT_NOTHING;
}
