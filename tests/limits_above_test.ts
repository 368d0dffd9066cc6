/**
 * Limits tested above the limit, on repositories generated larger than it:
 * a file outline over OUTLINE_MAX_NODES, find_references asked for more than
 * REFERENCES_MAX_LIMIT, a name with more stored occurrences than one call
 * scans (find_references' scan bound), and a call graph asked for more than
 * CALL_GRAPH_MAX_NODES nodes. Each answer is cut at its limit and says so;
 * following the cursor loses nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { indexDir, tempHome, type TestHome, withIndex } from "./helpers/fixture_repo.ts";
import { getFileOutline, OUTLINE_MAX_NODES } from "../src/query/file_outline.ts";
import {
  findReferences,
  type FindReferencesResult,
  type Reference,
  REFERENCES_MAX_LIMIT,
} from "../src/query/find_references.ts";
import { CALL_GRAPH_MAX_NODES, getCallGraph } from "../src/query/call_graph.ts";
import type { Db } from "../src/state/db.ts";

/** Writes `files` (path → text) into a new temporary directory. */
function repoOf(files: Record<string, string>): string {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-limits-" });
  for (const [path, text] of Object.entries(files)) {
    Deno.mkdirSync(join(dir, path, ".."), { recursive: true });
    Deno.writeTextFileSync(join(dir, path), text);
  }
  return dir;
}

/** Indexes `files` and runs `f` on the published index. */
async function withRepo(files: Record<string, string>, f: (db: Db, h: TestHome) => void): Promise<void> {
  const h = tempHome({ workers: 1 });
  const dir = repoOf(files);
  try {
    const { project, status } = await indexDir(h, dir);
    assert.equal(status, "published");
    withIndex(h, project.project_id, (db) => f(db, h));
  } finally {
    h.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

/** Every reference of an answer, grouped or not, as `path:line`. */
function refsOf(r: FindReferencesResult): string[] {
  const list: Reference[] = r.references ?? r.files!.flatMap((f) => f.references.map((x) => ({ ...x, path: f.path })));
  return list.map((x) => `${x.path}:${x.line}`);
}

/** `n` Python functions that each call `target` once, one per line pair. */
function callers(n: number): string {
  const out = ["def target():", "    return 1", ""];
  for (let i = 0; i < n; i++) out.push(`def caller_${i}():`, "    return target()", "");
  return out.join("\n");
}

Deno.test("get_file_outline over a file with more than OUTLINE_MAX_NODES symbols: cut at the limit, and says so", async () => {
  const n = OUTLINE_MAX_NODES + 150;
  const src = Array.from({ length: n }, (_, i) => `def f_${i}():\n    return ${i}\n`).join("\n");
  await withRepo({ "big.py": src }, (db) => {
    const o = getFileOutline(db, { path: "big.py" });
    assert.equal(o.symbols.length, OUTLINE_MAX_NODES);
    assert.equal(o.truncated, true);
    assert.equal(o.symbols[0].name, "f_0");
  });
});

Deno.test("find_references past REFERENCES_MAX_LIMIT and get_call_graph past CALL_GRAPH_MAX_NODES: clamped, cut, complete by cursor", async () => {
  const n = Math.max(REFERENCES_MAX_LIMIT, CALL_GRAPH_MAX_NODES) + 100;
  await withRepo({ "calls.py": callers(n) }, (db) => {
    const first = findReferences(db, { symbol_name: "target", limit: REFERENCES_MAX_LIMIT * 3 });
    assert.equal(first.returned, REFERENCES_MAX_LIMIT, "a larger limit is clamped to the maximum");
    assert.equal(first.truncated, true);
    assert.ok(first.next_cursor);
    const all = [...refsOf(first)];
    let cursor: string | null = first.next_cursor;
    for (let pages = 0; cursor && pages < 10; pages++) {
      const page = findReferences(db, { symbol_name: "target", limit: REFERENCES_MAX_LIMIT, cursor });
      all.push(...refsOf(page));
      cursor = page.next_cursor;
    }
    assert.equal(cursor, null);
    // Every call, each once: the lines `return target()` of the generated file.
    const want = Array.from({ length: n }, (_, i) => `calls.py:${5 + 3 * i}`);
    assert.deepEqual([...all].sort(), [...want].sort());

    const g = getCallGraph(db, { symbol_name: "target", direction: "callers", depth: 1, max_nodes: 10_000 });
    assert.equal(g.nodes.length, CALL_GRAPH_MAX_NODES, "a larger max_nodes is clamped to the maximum");
    assert.equal(g.truncated, true);
    assert.ok(g.truncated_by.includes("max_nodes"), JSON.stringify(g.truncated_by));
  });
});

Deno.test("find_references on a name stored more often than one call scans: the page stops early with a cursor", async () => {
  // Go: `checkExpiry` is used once in its own package; every other package's bare `checkExpiry` is not a use of it.
  const perFile = 9000;
  const files: Record<string, string> = {
    "go.mod": "module example.com/m\n\ngo 1.21\n",
    "auth/token.go":
      'package auth\n\nfunc checkExpiry(t string) error { return nil }\n\nfunc Use() error {\n\treturn checkExpiry("a")\n}\n',
  };
  // Over 50,000 stored occurrences after the real use, in files sorted after it.
  for (let f = 0; f < 6; f++) {
    const body = Array.from({ length: perFile }, () => '\tcheckExpiry("x")').join("\n");
    files[`zother/bulk${f}.go`] = `package zother\n\nfunc bulk${f}() {\n${body}\n}\n`;
  }
  await withRepo(files, (db) => {
    const first = findReferences(db, { symbol_name: "checkExpiry", path: "auth/token.go" });
    assert.deepEqual(refsOf(first), ["auth/token.go:6"]);
    assert.ok(first.name_occurrences > 50_000, String(first.name_occurrences));
    // The scan bound was reached before the name's occurrences ran out: the answer says more may follow.
    assert.equal(first.truncated, true);
    assert.ok(first.next_cursor);
    let cursor: string | null = first.next_cursor;
    const rest: string[] = [];
    for (let pages = 0; cursor && pages < 10; pages++) {
      const page = findReferences(db, { symbol_name: "checkExpiry", path: "auth/token.go", cursor });
      rest.push(...refsOf(page));
      cursor = page.next_cursor;
    }
    assert.equal(cursor, null, "the cursor reaches the end");
    assert.deepEqual(rest, [], "no other use was lost or invented");
  });
});
