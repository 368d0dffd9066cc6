import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { downgradeThenSync, indexDir, SCHEMA26_EDGES_SQL, tempHome, withIndex } from "./helpers/fixture_repo.ts";
import type { Db } from "../src/state/db.ts";
import { CALL_EDGE_KIND, foldCallEdges } from "../src/state/call_edges.ts";
import { calleesOf, callersOf, languageHasEdges, referenceCount, referencesOf } from "../src/state/read/edges.ts";
import { registerStoreFunctions } from "../src/state/store_functions.ts";
import type { ReferenceKind } from "../src/core/types.ts";

const occ = (name: string, line: number, column: number, from: number | null, kind: ReferenceKind = "call") => ({
  name,
  kind,
  line,
  column,
  from,
});
const call = (target: string, line: number, from: number | null) => ({ kind: "calls", target, line, from });

Deno.test("a call edge is folded into the leftmost call reference on its line with its name and enclosing symbol", () => {
  const occurrences = [
    occ("f", 3, 9, 0), // the second call of f on line 3
    occ("f", 3, 2, 0), // the leftmost: it stands for the edge
    occ("g", 4, 2, 1, "attribute"), // not a call
    occ("h", 5, 2, 0), // another enclosing symbol than the edge's
    occ("k", 6, 2, 7), // symbol 7 is out of range: no enclosing symbol, as the edge's
  ];
  const place = (i: number | null) => i === null || i < 0 || i > 2 ? null : i;
  const edges = [
    call("f", 3, 0),
    call("g", 4, 1),
    call("h", 5, 1),
    call("k", 6, null),
    { kind: "imports", target: "f", line: 3, from: 0 },
    call("m", 9, 0), // no reference states it
  ];
  const { kept, standing } = foldCallEdges(edges, occurrences, place);
  assert.deepEqual([...standing].sort(), [1, 4]);
  assert.deepEqual(kept.map((e) => `${e.kind} ${e.target}`), ["calls g", "calls h", "imports f", "calls m"]);
});

/** A tree whose calls come in several languages, case variants, a call outside any symbol and nested bodies. */
function callTree(): string {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-calls-" });
  const files: Record<string, string> = {
    "a.go": 'package p\n\nimport "strings"\n\nfunc Limit() int { return 1 }\n\nfunc limit() int { return 2 }\n\n' +
      "func A() int { return Limit() + limit() + Limit() }\n\nfunc B() int {\n\treturn Limit() +\n\t\tA()\n}\n",
    "b.py": "import os\n\ndef helper():\n    return os.getcwd()\n\nclass Runner:\n    def run(self):\n" +
      "        helper()\n        return helper()\n\nhelper()\n",
    "c.c": "static int twice(int x) { return x * 2; }\nint quad(int x) { return twice(twice(x)); }\n" +
      "int main(void) { return quad(1) + twice(2); }\n",
    "d.ts": "export function go(n: number): number { return n; }\n" +
      "export class K extends Array<number> { m() { return go(1) + go(2); } }\n",
  };
  for (const [p, text] of Object.entries(files)) Deno.writeTextFileSync(join(dir, p), text);
  return dir;
}

/** What the readers of call edges answer for every called name and every symbol. */
function callAnswers(db: Db): string {
  const names = (db.prepare("SELECT DISTINCT target FROM edges UNION SELECT name FROM ref_names ORDER BY 1").all() as {
    target: string;
  }[]).map((r) => r.target);
  const ids = (db.prepare("SELECT id FROM symbol_rows ORDER BY id").all() as { id: number }[]).map((r) => r.id);
  return JSON.stringify({
    callers: names.map((n) => [n, callersOf(db, n, "b.py", 50)]),
    uses: names.map((n) => [n, referencesOf(db, n, undefined, 50), referencesOf(db, n, "go", 50)]),
    counts: names.map((n) => [n, referenceCount(db, n.toLowerCase(), undefined), referenceCount(db, n, "c")]),
    callees: ids.map((id) => [id, calleesOf(db, [id], 50)]),
    together: calleesOf(db, ids, 50),
    languages: ["go", "python", "c", "typescript"].map((l) => languageHasEdges(db, l)),
  });
}

/** The stored references (with their kinds) and how many edge rows there are. */
function storedCalls(db: Db): { refs: unknown[]; edgeRows: number } {
  return {
    refs: db.prepare("SELECT * FROM refs ORDER BY name_id, file_id, line, col").all().map((r) => ({ ...r })),
    edgeRows: Number(db.prepare("SELECT count(*) AS n FROM edge_rows").get()?.n),
  };
}

Deno.test("call edges kept as references answer as edge rows do, and a store of schema 26 upgrades to what a cold load keeps", async () => {
  const h = tempHome();
  try {
    const dir = callTree();
    const { project, status } = await indexDir(h, dir);
    assert.equal(status, "published");
    const before = withIndex(h, project.project_id, (db) => {
      const stored = storedCalls(db);
      const standing = stored.refs.filter((r) => (r as { kind: number }).kind === CALL_EDGE_KIND).length;
      assert.ok(standing >= 8, `call edges kept as references: ${standing}`);
      assert.ok(stored.edgeRows >= 2, "imports and heritage stay edge rows");
      return { answers: callAnswers(db), stored };
    });
    const b = JSON.parse(before.answers);
    assert.deepEqual(b.callers.find(([n]: [string]) => n === "Limit")[1].map((c: { line: number }) => c.line), [9, 12]);
    assert.deepEqual(b.callers.find(([n]: [string]) => n === "helper")[1].map((c: { line: number }) => c.line), [8]);
    assert.deepEqual(b.languages, [true, true, true, true]);

    // The same store with every call edge an edge row (schema 26's form) gives the same answers.
    const store = join(h.registry.projectDir(project.project_id), "index.db");
    const raw = new DatabaseSync(store);
    registerStoreFunctions(raw);
    raw.exec(SCHEMA26_EDGES_SQL);
    raw.close();
    withIndex(h, project.project_id, (db) => {
      const unfolded = storedCalls(db);
      assert.ok(unfolded.edgeRows > before.stored.edgeRows + 8, "the call edges are edge rows again");
      assert.ok(unfolded.refs.every((r) => (r as { kind: number }).kind !== CALL_EDGE_KIND));
      assert.equal(callAnswers(db), before.answers);
    });

    // Its upgrade folds them back: the rows a cold load keeps, the same answers.
    await downgradeThenSync(h, project, "", 26);
    withIndex(h, project.project_id, (db) => {
      assert.deepEqual(storedCalls(db), before.stored);
      assert.equal(callAnswers(db), before.answers);
    });

    // A sync that rewrites every file finds each name already kept: the names have no unique index.
    for (const e of Deno.readDirSync(dir)) {
      Deno.writeTextFileSync(join(dir, e.name), Deno.readTextFileSync(join(dir, e.name)) + "\n");
    }
    assert.equal((await indexDir(h, dir, { mode: "incremental" })).status, "published");
    withIndex(h, project.project_id, (db) => {
      const names = db.prepare("SELECT count(*) AS n, count(DISTINCT name) AS d FROM ref_names").get();
      assert.equal(names?.n, names?.d, "each name once");
      // The rewritten files' symbols have new row ids: the answers that name no row id are the same.
      const { uses, counts, languages } = JSON.parse(callAnswers(db));
      assert.deepEqual({ uses, counts, languages }, { uses: b.uses, counts: b.counts, languages: b.languages });
    });
  } finally {
    h.close();
  }
});
