/**
 * find_related_symbols' calls are get_call_graph's: a call whose callee only
 * shares the name (`set()`, `names.add()`) is not listed as a call of another
 * class's method, it is counted; and the CLI prints each related symbol at its
 * own definition, the call site beside it.
 */
import assert from "node:assert/strict";
import { withIndexedTree, writeTree } from "./helpers/fixture_repo.ts";
import { tempDir } from "./helpers/temp_dir.ts";
import { runCruxe } from "./helpers/cli_run.ts";
import { findRelatedSymbols } from "../src/query/related_symbols.ts";
import { getCallGraph } from "../src/query/call_graph.ts";

const STORE = `class Cache:
    def set(self, key, value):
        return key

    def add(self, item):
        return item
`;

const MODEL = `class Model:
    def save(self):
        names = set()
        names.add("x")
        self.helper()

    def helper(self):
        return 1


def run(m):
    m.save()
    Model().save()
`;

const PY_TREE = { "store.py": STORE, "model.py": MODEL };

Deno.test("related calls: resolved calls only, as the call graph judges them; name-only matches counted", async () => {
  await withIndexedTree(PY_TREE, (db) => {
    const r = findRelatedSymbols(db, { symbol_name: "Model.save" });
    const calls = r.related.filter((x) => x.relation === "calls").map((x) => `${x.qualified_name}@${x.line}`);
    assert.deepEqual(calls, ["model.Model.helper@5"], "set() is the builtin; names.add is no known method");
    assert.ok(r.name_only_calls >= 1, `the name-only call is counted: ${r.name_only_calls}`);
    const graph = getCallGraph(db, { symbol_name: "Model.save", direction: "callees" });
    const graphCallees = graph.edges.map((e) => graph.nodes.find((n) => n.symbol_id === e.to)!.qualified_name);
    assert.deepEqual(graphCallees, ["model.Model.helper"], "the same callees as get_call_graph");
    const callers = r.related.filter((x) => x.relation === "called_by").map((x) => `${x.qualified_name}@${x.line}`);
    assert.deepEqual(callers, ["model.run@13"], "Model().save() resolves; m.save() only by name");
  });
});

Deno.test("related calls in Go: a method through a field of a type from outside the tree is no local type's", async () => {
  const files = {
    "store/lock.go": "package store\n\ntype noCopy struct{}\n\nfunc (*noCopy) Lock() {}\n",
    "app/model.go":
      'package app\n\nimport "sync"\n\ntype Model struct{ mu sync.Mutex }\n\nfunc (m *Model) helper() {}\n\n' +
      "func (m *Model) Save() {\n\tm.mu.Lock()\n\tm.helper()\n}\n",
  };
  await withIndexedTree(files, (db) => {
    const r = findRelatedSymbols(db, { symbol_name: "Model.Save" });
    const calls = r.related.filter((x) => x.relation === "calls").map((x) => `${x.qualified_name}@${x.line}`);
    assert.deepEqual(calls, ["app.Model.helper@11"], "m.mu.Lock is sync.Mutex's, not store.noCopy.Lock");
  });
});

Deno.test("cruxe related: each symbol at its definition's line, the call site beside it", async () => {
  const dir = writeTree(PY_TREE);
  const home = tempDir("cruxe-home-");
  assert.equal((await runCruxe(home, dir, ["index"])).code, 0);
  const out = await runCruxe(home, dir, ["related", "Model.save"]);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /^model\.py:7: calls method model\.Model\.helper \(at model\.py:5\)$/m);
  assert.match(out.stdout, /^model\.py:11: called_by function model\.run \(at model\.py:13\)$/m);
  assert.match(out.stdout, /calls left out \(only the name matches\)/);
  const cut = await runCruxe(home, dir, ["related", "Model.save", "--limit", "1"]);
  assert.match(cut.stdout, /^1 of \d+ shown: a higher --limit shows more$/m, "a cut list says so");
});
