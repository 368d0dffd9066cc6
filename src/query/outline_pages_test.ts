/**
 * outlinePage over generated trees: the pages from the first to the last
 * hold every node exactly once, each under its own parent whenever both are
 * on one page, and a tree nested deeper than any stack still pages.
 */
import assert from "node:assert/strict";
import { type OutlinePage, outlinePage } from "./outline_pages.ts";
import type { OutlineNode, OutlineResult } from "./file_outline.ts";

/** A node named `name` with a signature long enough that a page holds a few dozen. */
function node(name: string, children: OutlineNode[] = []): OutlineNode {
  return {
    symbol_id: `sym_${name}`,
    symbol_stable_id: `b3:${name}`,
    path: "gen.py",
    line_start: 1,
    line_end: 2,
    kind: "function",
    name,
    qualified_name: `gen.${name}`,
    signature: `def ${name}(${"argument, ".repeat(6)}last)`,
    language: "python",
    visibility: "public",
    children,
  };
}

function outline(symbols: OutlineNode[]): OutlineResult {
  return {
    path: "gen.py",
    language: "python",
    line_count: 1,
    symbol_count: 0,
    parse_error: null,
    depth: "all",
    symbols,
    truncated: false,
  };
}

/** Every page, first to last, following next_cursor. */
function pages(r: OutlineResult): OutlinePage[] {
  const out = [outlinePage(r)];
  while (out[out.length - 1].next_cursor) out.push(outlinePage(r, out[out.length - 1].next_cursor!));
  return out;
}

/** Each node of a page as [name, name of the node it is listed under or ""], iteratively. */
function listed(p: OutlinePage): [string, string][] {
  const out: [string, string][] = [];
  const stack: [OutlineNode, string][] = p.symbols.map((n) => [n, ""]);
  while (stack.length) {
    const [n, under] = stack.pop()!;
    out.push([n.name, under]);
    for (const c of n.children) stack.push([c, n.name]);
  }
  return out;
}

Deno.test("outline pages hold every node once, each under its parent when both are on the page", () => {
  // 40 types of 0..39 members, members of some with members of their own: 40 + 780 + nested.
  const parentOf = new Map<string, string>();
  const types = Array.from({ length: 40 }, (_, t) => {
    const members = Array.from({ length: t }, (_, m) => {
      const inner = m % 5 === 0 ? [node(`T${t}_M${m}_inner`)] : [];
      for (const i of inner) parentOf.set(i.name, `T${t}_M${m}`);
      return node(`T${t}_M${m}`, inner);
    });
    for (const m of members) parentOf.set(m.name, `T${t}`);
    return node(`T${t}`, members);
  });
  const all = pages(outline(types));
  assert.ok(all.length > 5, `${all.length} pages`);
  const seen = all.flatMap(listed);
  assert.equal(seen.length, 40 + parentOf.size, "every node");
  assert.equal(new Set(seen.map(([n]) => n)).size, seen.length, "each once");
  assert.equal(all.reduce((a, p) => a + p.page!.count, 0), all[0].page!.node_count);
  for (const [name, under] of seen) {
    if (under) assert.equal(under, parentOf.get(name), `${name} listed under its own parent`);
  }
  // On a page, a member whose parent is there too is nested, never beside it.
  for (const p of all) {
    const names = new Set(listed(p).map(([n]) => n));
    for (const [name, under] of listed(p)) {
      if (parentOf.has(name) && names.has(parentOf.get(name)!)) assert.equal(under, parentOf.get(name));
    }
  }
  assert.equal(all[0].truncated, true);
  assert.equal(all[all.length - 1].truncated, false);
  assert.equal(all[all.length - 1].next_cursor, null);
});

Deno.test("an outline nested 20,000 deep pages without exhausting the stack", () => {
  let deepest = node("n19999");
  for (let i = 19998; i >= 0; i--) deepest = node(`n${i}`, [deepest]);
  const all = pages(outline([deepest]));
  assert.equal(all.reduce((a, p) => a + p.page!.count, 0), 20_000);
  assert.equal(all[1].symbols[0].name, `n${all[0].page!.count}`, "the second page starts where the first ended");
});

Deno.test("a cursor this outline did not give is invalid_input", () => {
  const r = outline(Array.from({ length: 200 }, (_, i) => node(`f${i}`)));
  for (const bad of ["outline:200", "outline:-1", "x", "outline:1e3"]) {
    assert.throws(() => outlinePage(r, bad), (e: Error & { code?: string }) => e.code === "invalid_input", bad);
  }
});
