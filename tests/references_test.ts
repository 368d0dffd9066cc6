/**
 * The reference index and the navigation tools built on it: find_references
 * (resolution, paging, grouping, bad input), get_call_graph, explain_ranking
 * and suggest_followup_queries, over the small Python/TypeScript/Go fixtures
 * plus a few generated files, and incremental sync keeping references exact.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { copyFixture, indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { main } from "../src/cli/main.ts";
import { polyglotRepo, throwsCode } from "./helpers/nav_repo.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { findReferences, type FindReferencesResult, type Reference } from "../src/query/find_references.ts";
import { getCallGraph } from "../src/query/call_graph.ts";
import { explainRanking } from "../src/query/explain_ranking.ts";
import { suggestFollowupQueries } from "../src/query/followups.ts";
import { searchCode } from "../src/query/search_code.ts";
import { openDb } from "../src/state/db.ts";
import { migrate, PROJECT_MIGRATIONS, projectSchemaStatus } from "../src/state/schema.ts";
import { parseAndExtract } from "../src/index/parser.ts";
import { languageForPath, LANGUAGES } from "../src/index/languages/registry.ts";

/** Python helpers that call each other (a cycle) and many uses of one function over two files. */
const GENERATED: Record<string, string> = {
  "shapes/pingpong.py": [
    "from .report import total_area",
    "",
    "",
    "def ping(n):",
    "    return pong(n - 1) if n else total_area([])",
    "",
    "",
    "def pong(n):",
    "    return ping(n)",
    "",
  ].join("\n"),
  "shapes/many.py": [
    "from .report import total_area",
    "",
    "",
    "def many():",
    ...Array.from({ length: 24 }, (_, i) => `    total_area([${i}])`),
    "",
  ].join("\n"),
  // A module-qualified call: `report.total_area` through `from . import report`.
  "shapes/modcall.py": "from . import report\n\n\ndef via_module():\n    return report.total_area([])\n",
  // A bare name in another Go package is not a use of auth's checkExpiry.
  "server/expiry.go": ["package server", "", "func local() error {", '\treturn checkExpiry("x")', "}", ""].join("\n"),
};

/** Every reference of an answer, grouped or not. */
function flat(r: FindReferencesResult): Reference[] {
  return r.references ?? r.files!.flatMap((f) => f.references.map((x) => ({ ...x, path: f.path }) as Reference));
}

const where = (r: Reference) => `${r.path}:${r.line}:${r.reference_kind}`;

/** Occurrences of `re` in the `.py` files under `dir`, read from disk. */
function callSitesIn(dir: string, re: RegExp): number {
  let n = 0;
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory && !e.name.startsWith(".")) n += callSitesIn(p, re);
    else if (e.isFile && e.name.endsWith(".py")) n += Deno.readTextFileSync(p).match(re)?.length ?? 0;
  }
  return n;
}

Deno.test("reference index: find_references, call graph, explain_ranking, follow-ups, incremental sync", async (t) => {
  const h = tempHome();
  const readers = new IndexReaders(h.registry);
  try {
    const dir = polyglotRepo(GENERATED);
    const { project, status } = await indexDir(h, dir);
    assert.equal(status, "published");
    let db = requireIndex(readers.view(project));

    await t.step("find_references: a Go call through the package name resolves exactly by the import", () => {
      const r = findReferences(db, { symbol_name: "NewJWTValidator" });
      const refs = flat(r);
      assert.deepEqual(refs.map(where), ["server/server.go:7:call"]);
      assert.equal(refs[0].resolution, "exact");
      assert.equal(refs[0].qualifier, "auth");
      assert.equal(refs[0].column, 12);
      assert.match(refs[0].line_text, /auth\.NewJWTValidator\(/);
      assert.equal(refs[0].enclosing?.qualified_name, "server.Serve");
      assert.match(refs[0].enclosing!.symbol_id, /^sym_/);
      assert.equal(r.next_cursor, null);
    });

    await t.step("find_references: imports, calls and base types, each with its resolution", () => {
      const refs = flat(findReferences(db, { symbol_name: "Circle", path: "shapes/circle.py" }));
      const got = new Map(refs.map((r) => [where(r), r.resolution]));
      assert.equal(got.get("shapes/report.py:2:import"), "import");
      assert.equal(got.get("shapes/report.py:13:call"), "import");
      assert.equal(got.get("shapes/circle.py:20:inherit"), "exact");
      const ts = flat(findReferences(db, { symbol_name: "BaseStore" }));
      assert.deepEqual(ts.map(where).sort(), ["src/memory_store.ts:1:import", "src/memory_store.ts:4:inherit"]);
    });

    await t.step("find_references: a bare Go name in another package is not a use", () => {
      const refs = flat(findReferences(db, { symbol_name: "checkExpiry" }));
      assert.ok(refs.length >= 1);
      assert.ok(refs.every((r) => r.path === "auth/token.go"), refs.map(where).join(" "));
      assert.ok(refs.every((r) => r.resolution === "exact"));
    });

    await t.step("find_references: a name in another language's file is not a use", () => {
      const ts = flat(findReferences(db, { symbol_name: "validateToken", path: "src/cache.ts" })).map(where);
      assert.deepEqual(ts.sort(), ["src/app.ts:1:import", "src/app.ts:6:call"]);
      const go = flat(findReferences(db, { symbol_name: "validateToken", path: "auth/token.go" })).map(where);
      assert.deepEqual(go, ["auth/token.go:31:call"]);
    });

    await t.step("find_references: ambiguous names list candidates unless path, kind or symbol_id pins them", () => {
      const e = throwsCode(() => findReferences(db, { symbol_name: "area" }), "ambiguous_symbol");
      const cands = (e.data as { candidates: { path: string; symbol_id: string }[] }).candidates;
      assert.ok(cands.length >= 2);
      const pinned = findReferences(db, { symbol_id: cands[0].symbol_id });
      assert.equal(pinned.symbol.symbol_id, cands[0].symbol_id);
      assert.equal(
        findReferences(db, { symbol_name: "area", path: "shapes/circle.py" }).symbol.path,
        "shapes/circle.py",
      );
    });

    await t.step("find_references: many uses are grouped by file and paged by cursor without loss", () => {
      const all = findReferences(db, { symbol_name: "total_area", limit: 500 });
      assert.equal(all.grouping, "file");
      const files = all.files!.map((f) => f.path);
      assert.ok(files.includes("shapes/many.py") && files.includes("shapes/report.py"), files.join(" "));
      assert.equal(all.files!.find((f) => f.path === "shapes/many.py")!.count, 25); // 24 calls and the import
      const whole = flat(all).map(where);
      const paged: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = findReferences(db, { symbol_name: "total_area", limit: 7, cursor });
        assert.ok(page.returned <= 7);
        paged.push(...flat(page).map(where));
        cursor = page.next_cursor ?? undefined;
        assert.equal(page.truncated, cursor !== undefined);
        pages++;
      } while (cursor && pages < 20);
      assert.deepEqual(paged, whole);
      const viaModule = flat(all).find((r) => r.path === "shapes/modcall.py")!;
      assert.equal(viaModule.qualifier, "report");
      assert.equal(viaModule.resolution, "import");
      assert.ok(pages >= 4);
      const calls = flat(findReferences(db, { symbol_name: "total_area", reference_kind: "call", limit: 500 }));
      assert.ok(calls.length && calls.every((r) => r.reference_kind === "call"));
      // As many calls as the Python sources hold `total_area(` outside its definition (counted here, not by Cruxe).
      assert.equal(calls.length, callSitesIn(dir, /(?<!def )\btotal_area\(/g));
      const withDef = flat(findReferences(db, { symbol_name: "total_area", include_definition: true, limit: 3 }));
      assert.equal(withDef[0].reference_kind, "definition");
      assert.equal(withDef[0].path, "shapes/report.py");
    });

    await t.step("find_references: bad input is a registry error", () => {
      throwsCode(() => findReferences(db, { symbol_name: "NoSuchThing" }), "symbol_not_found");
      throwsCode(() => findReferences(db, { symbol_name: "total_area", limit: -1 }), "invalid_input");
      throwsCode(() => findReferences(db, { symbol_name: "total_area", reference_kind: "read" }), "invalid_input");
      throwsCode(() => findReferences(db, {}), "invalid_input");
      throwsCode(() => findReferences(db, { symbol_id: "not-a-handle" }), "invalid_input");
      const other = findReferences(db, { symbol_name: "total_area", limit: 1 }).next_cursor!;
      const e = throwsCode(() => findReferences(db, { symbol_name: "Circle", cursor: other }), "invalid_input");
      assert.match(e.message, /another query/);
      throwsCode(() => findReferences(db, { symbol_name: "Circle", cursor: "ref1.garbage" }), "invalid_input");
    });

    await t.step("get_call_graph: callers and callees, cycles marked, bounds enforced", () => {
      const g = getCallGraph(db, { symbol_name: "build_report", direction: "both", depth: 2 });
      const names = new Map(g.nodes.map((n) => [n.symbol_id, n.qualified_name]));
      const edges = g.edges.map((e) => `${names.get(e.from)} -> ${names.get(e.to)}`);
      assert.ok(edges.includes("tests.test_report.test_build_report -> shapes.report.build_report"), edges.join("\n"));
      assert.ok(edges.includes("shapes.report.build_report -> shapes.report.total_area"));
      assert.ok(edges.includes("shapes.report.build_report -> shapes.circle.Circle"));
      assert.equal(g.has_cycles, false);

      const c = getCallGraph(db, { symbol_name: "ping", direction: "callees", depth: 3 });
      const cn = new Map(c.nodes.map((n) => [n.symbol_id, n.name]));
      const cyc = c.edges.filter((e) => e.cycle).map((e) => `${cn.get(e.from)}->${cn.get(e.to)}`).sort();
      assert.deepEqual(cyc, ["ping->pong", "pong->ping"]);
      assert.ok(c.edges.some((e) => !e.cycle && cn.get(e.to) === "total_area"));
      assert.equal(c.has_cycles, true);

      const callers = getCallGraph(db, { symbol_name: "total_area", direction: "callers", depth: 1 });
      const callerNames = callers.nodes.map((n) => n.name).sort();
      assert.deepEqual(callerNames, ["build_report", "many", "ping", "test_total_area", "total_area", "via_module"]);

      const cut = getCallGraph(db, { symbol_name: "build_report", depth: 2, max_nodes: 2 });
      assert.equal(cut.nodes.length, 2);
      assert.equal(cut.truncated, true);
      assert.deepEqual(cut.truncated_by, ["max_nodes"]);
      throwsCode(() => getCallGraph(db, { symbol_name: "build_report", depth: 10 }), "invalid_input");
      throwsCode(() => getCallGraph(db, { symbol_name: "build_report", depth: 0 }), "invalid_input");
      throwsCode(() => getCallGraph(db, { symbol_name: "build_report", max_nodes: -5 }), "invalid_input");
      throwsCode(() => getCallGraph(db, { symbol_name: "build_report", direction: "up" }), "invalid_input");
      throwsCode(() => getCallGraph(db, { symbol_name: "nope_nothing" }), "symbol_not_found");
    });

    await t.step("explain_ranking: the pipeline's own sources and signals for one result", () => {
      const s = searchCode(db, { query: "total_area", limit: 5 });
      const top = s.results[0];
      const x = explainRanking(db, { query: "total_area", result_id: top.result_id });
      assert.equal(x.rank, 1);
      assert.equal(x.above, null);
      assert.equal(x.score, top.score);
      assert.ok(x.contributions.some((c) => c.stage === "source" && c.rank !== undefined && c.effect > 0));
      assert.ok(x.contributions.some((c) => c.stage === "signal" && c.name === "exact_name" && c.value === 2));
      // Sources times signals (plus additions) give the final score.
      const sum = x.contributions.reduce((acc, c) => acc + c.effect, 0);
      assert.ok(Math.abs(sum - x.final) < 0.01, `${sum} vs ${x.final}`);
      const second = s.results[1];
      const y = explainRanking(db, { query: "total_area", result_id: second.result_id });
      assert.equal(y.rank, 2);
      assert.equal(y.above?.result_id, top.result_id);
      throwsCode(
        () => explainRanking(db, { query: "total_area", result_id: "sym_000000000000000000000000" }),
        "result_not_found",
      );
      throwsCode(() => explainRanking(db, { query: "", result_id: top.result_id }), "invalid_input");
    });

    await t.step("suggest_followup_queries: calls with exact arguments, from indexed facts", () => {
      const f = suggestFollowupQueriesOk(db, "total_area");
      const tools = f.suggestions.map((s) => s.tool);
      assert.ok(tools.includes("find_references"), tools.join(" "));
      assert.ok(tools.includes("get_call_graph"));
      assert.ok(tools.includes("get_file_outline"));
      const refs = f.suggestions.find((s) => s.tool === "find_references")!;
      // The suggested call works as-is and finds the uses the reason counts (over its pages).
      let r = findReferences(db, refs.arguments as { symbol_id: string });
      let found = flat(r).length;
      while (r.next_cursor) {
        r = findReferences(db, { ...refs.arguments as { symbol_id: string }, cursor: r.next_cursor });
        found += flat(r).length;
      }
      assert.ok(found >= 26, `${found} uses`);
      assert.match(refs.reason, /\d+ stored uses/);
      const area = findReferences(db, { symbol_name: "area", path: "shapes/circle.py" }).symbol;
      const fromPrev = suggestFollowupQueries(db, { query: "area", previous_results: [{ symbol_id: area.symbol_id }] });
      assert.equal(fromPrev.based_on, "previous_results");
      assert.ok(fromPrev.suggestions.some((s) => s.tool === "locate_symbol" && /defined in \d+ places/.test(s.reason)));
      throwsCode(() => suggestFollowupQueries(db, { query: "x", limit: 0 }), "invalid_input");
    });

    await t.step(
      "incremental sync: changed files' rows are replaced; a renamed definition leaves nothing stale",
      async () => {
        const cursor = findReferences(db, { symbol_name: "total_area", limit: 1 }).next_cursor!;
        const report = join(dir, "shapes/report.py");
        Deno.writeTextFileSync(report, Deno.readTextFileSync(report).replace("def total_area(", "def sum_area("));
        Deno.writeTextFileSync(
          join(dir, "shapes/extra.py"),
          "from .report import sum_area\n\n\ndef x():\n    return sum_area([])\n",
        );
        const { status } = await indexDir(h, dir, { mode: "incremental" });
        assert.equal(status, "published");
        readers.invalidate(project.project_id);
        db = requireIndex(readers.view(project));
        throwsCode(() => findReferences(db, { symbol_name: "total_area" }), "symbol_not_found");
        const now = flat(findReferences(db, { symbol_name: "sum_area" })).map(where).sort();
        assert.deepEqual(now, ["shapes/extra.py:1:import", "shapes/extra.py:5:call"]);
        const e = throwsCode(() => findReferences(db, { symbol_name: "sum_area", cursor }), "invalid_input");
        assert.match(e.message, /index changed/);
        // The file's old occurrences are gone (the caller's own line still uses the old name, once).
        const row = db.prepare(
          "SELECT count(*) AS n FROM refs r JOIN files f ON f.rowid = r.file_id WHERE f.path = 'shapes/report.py'",
        ).get() as { n: number };
        const distinct = db.prepare(
          "SELECT count(*) AS n FROM (SELECT DISTINCT file_id, line, col FROM refs)",
        ).get() as { n: number };
        const total = db.prepare("SELECT count(*) AS n FROM refs").get() as { n: number };
        assert.ok(row.n > 0);
        assert.equal(distinct.n, total.n);
        const orphans = db.prepare("SELECT count(*) AS n FROM refs WHERE file_id NOT IN (SELECT rowid FROM files)")
          .get() as { n: number };
        assert.equal(orphans.n, 0);
      },
    );
  } finally {
    readers.closeAll();
    h.close();
  }
});

function suggestFollowupQueriesOk(db: ReturnType<typeof requireIndex>, query: string) {
  const f = suggestFollowupQueries(db, { query });
  assert.equal(f.based_on, "search");
  assert.ok(f.suggestions.length > 0);
  return f;
}

Deno.test("schema 2: an index of schema 1 is reindex_required; migrating it empties it for a full rebuild", () => {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-schema-" });
  const db = openDb(join(dir, "index.db"));
  try {
    migrate(db, PROJECT_MIGRATIONS.slice(0, 1));
    db.exec(`INSERT INTO files(path, hash, size, mtime_ms, language, line_count, symbol_count)
             VALUES ('a.py', 'h', 1, 1, 'python', 1, 0)`);
    db.exec("INSERT INTO meta(key, value) VALUES ('last_indexed_at', 'x')");
    assert.equal(projectSchemaStatus(db).status, "reindex_required");
    migrate(db, PROJECT_MIGRATIONS);
    assert.equal(projectSchemaStatus(db).status, "compatible");
    assert.equal((db.prepare("SELECT count(*) AS n FROM files").get() as { n: number }).n, 0);
    assert.equal(db.prepare("SELECT value FROM meta WHERE key = 'last_indexed_at'").get(), undefined);
    assert.equal((db.prepare("SELECT count(*) AS n FROM refs").get() as { n: number }).n, 0);
  } finally {
    db.close();
  }
});

Deno.test("occurrences: every language with full symbols records its calls (each call edge has its occurrence)", async () => {
  const root = new URL("../fixtures/repos/", import.meta.url).pathname;
  const walk = (dir: string): string[] =>
    [...Deno.readDirSync(dir)].flatMap((e) => e.isDirectory ? walk(join(dir, e.name)) : [join(dir, e.name)]);
  const withCalls = new Set<string>();
  const seen = new Set<string>();
  const kinds = new Map<string, Set<string>>();
  for (const path of walk(root)) {
    const lang = languageForPath(path);
    if (!lang) continue;
    const ex = await parseAndExtract(lang.id, path, Deno.readTextFileSync(path));
    const occ = ex.occurrences ?? [];
    const calls = new Set(occ.filter((o) => o.kind === "call").map((o) => `${o.line}:${o.name}`));
    for (const e of ex.refs.filter((r) => r.kind === "calls")) {
      assert.ok(calls.has(`${e.line}:${e.target}`), `${path}: call of ${e.target} at line ${e.line} not recorded`);
    }
    seen.add(lang.id);
    if (calls.size) withCalls.add(lang.id);
    for (const o of occ) {
      (kinds.get(lang.id) ?? kinds.set(lang.id, new Set()).get(lang.id)!).add(o.kind);
      assert.ok(o.line >= 1 && o.column >= 1, `${path}: bad position`);
      assert.ok(o.from === null || (o.from >= 0 && o.from < ex.symbols.length), `${path}: bad enclosing symbol`);
    }
  }
  // Every language with a fixture (all but TSX and JavaScript, which share TypeScript's rules).
  assert.ok(seen.size >= LANGUAGES.length - 2, [...seen].join(" "));
  // Kconfig has symbols only: an entry's uses in expressions are not references (docs/GUIDE.md, Languages).
  const symbolsOnly = new Set(["kconfig"]);
  assert.ok(seen.has("kconfig"));
  for (const l of seen) assert.equal(withCalls.has(l), !symbolsOnly.has(l), `call occurrences for ${l}`);
  for (const l of ["go", "typescript", "java", "rust", "c", "cpp", "scala"]) assert.ok(kinds.get(l)?.has("type"), l);
  for (const l of ["python", "typescript", "java", "csharp", "ruby", "cpp"]) assert.ok(kinds.get(l)?.has("inherit"), l);
});

Deno.test("CLI: refs and callgraph print find_references and get_call_graph; bad depth exits 2", async () => {
  const dir = copyFixture("go_basic");
  const home = Deno.makeTempDirSync({ prefix: "cruxe-home-" });
  const before = Deno.env.get("CRUXE_HOME");
  Deno.env.set("CRUXE_HOME", home);
  const printed: string[] = [];
  const log = console.log;
  const error = console.error;
  console.log = (...a: unknown[]) => printed.push(a.join(" "));
  console.error = (...a: unknown[]) => printed.push(a.join(" "));
  try {
    assert.equal(await main(["index", "--path", dir, "--json"]), 0);
    printed.length = 0;
    assert.equal(await main(["refs", "Claims", "--workspace", dir, "--json"]), 0);
    const refs = JSON.parse(printed.join("\n")) as FindReferencesResult;
    assert.equal(refs.symbol.qualified_name, "auth.Claims");
    assert.equal(flat(refs).length, 5);
    printed.length = 0;
    assert.equal(await main(["callgraph", "ValidateToken", "--workspace", dir, "--direction", "callees"]), 0);
    assert.match(printed.join("\n"), /auth\.ValidateToken\s+auth\.parseClaims\s+27\s+exact/);
    printed.length = 0;
    assert.equal(await main(["callgraph", "ValidateToken", "--workspace", dir, "--depth", "10"]), 2);
    assert.match(printed.join("\n"), /invalid_input.*depth/);
    printed.length = 0;
    // No type of the fixture has Validate: nothing found is exit 1, said in words.
    assert.equal(await main(["impls", "Validator", "--workspace", dir]), 1);
    assert.match(printed.join("\n"), /auth\.Validator \(auth\/jwt\.go:\d+\): 0 implementations/);
  } finally {
    console.log = log;
    console.error = error;
    if (before === undefined) Deno.env.delete("CRUXE_HOME");
    else Deno.env.set("CRUXE_HOME", before);
  }
});

Deno.test("find_references: uses are listed by path and line, whatever order the files were indexed in", async () => {
  const h = tempHome();
  const dir = copyFixture("nav_py");
  try {
    const { project } = await indexDir(h, dir);
    const order = () => {
      const readers = new IndexReaders(h.registry);
      try {
        const db = requireIndex(readers.view(h.registry.getProject(project.project_id)!));
        const r = findReferences(db, { symbol_name: "Shape", include_definition: true });
        const ids = db.prepare("SELECT path, id FROM files").all() as { path: string; id: number }[];
        return { refs: (r.references ?? []).map((x) => `${x.path}:${x.line}`), ids };
      } finally {
        readers.closeAll();
      }
    };
    // circle.py changes and is indexed again: its rows come after square.py's.
    Deno.writeTextFileSync(
      join(dir, "shapes/circle.py"),
      Deno.readTextFileSync(join(dir, "shapes/circle.py")) + "\n# x\n",
    );
    await indexDir(h, dir, { mode: "incremental" });
    const { refs, ids } = order();
    const id = (p: string) => ids.find((f) => f.path === p)!.id;
    assert.ok(id("shapes/circle.py") > id("shapes/square.py"), "the premise: circle.py was re-added after square.py");
    const sorted = [...refs].sort((a, b) => {
      const [pa, la] = a.split(":");
      const [pb, lb] = b.split(":");
      return pa < pb ? -1 : pa > pb ? 1 : Number(la) - Number(lb);
    });
    assert.ok(refs.length >= 4, refs.join());
    assert.deepEqual(refs, sorted);
  } finally {
    h.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
