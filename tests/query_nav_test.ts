/**
 * Navigation queries over small fixture repositories (Python, TypeScript,
 * Go): locate_symbol, get_file_outline, get_symbol_hierarchy,
 * find_related_symbols, get_code_context, and the bad inputs of each.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { commitAll, indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { polyglotRepo, throwsCode } from "./helpers/nav_repo.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { CruxeError } from "../src/core/errors.ts";
import { locateSymbol, warmSymbolIndex } from "../src/query/locate_symbol.ts";
import { editDistance } from "../src/query/symbol_name_index.ts";
import { getFileOutline, type OutlineNode } from "../src/query/file_outline.ts";
import { getSymbolHierarchy, type MemberNode, type TypeNode } from "../src/query/symbol_hierarchy.ts";
import { findRelatedSymbols } from "../src/query/related_symbols.ts";
import { getCodeContext } from "../src/query/code_context.ts";

const METACHARACTERS = [
  '"',
  "*",
  "(",
  ")",
  "NEAR",
  "NEAR(a b)",
  "^",
  "-",
  ":",
  "a OR b",
  "foo*",
  '"unterminated',
  "col:value",
  "[a-z]+",
  "\\",
  "a AND NOT b",
  "'; DROP TABLE symbols; --",
  "%_%",
];

Deno.test("navigation queries over fixture repositories", async (t) => {
  const h = tempHome();
  const readers = new IndexReaders(h.registry);
  try {
    const dir = polyglotRepo();
    const { project, status } = await indexDir(h, dir);
    assert.equal(status, "published");
    const db = requireIndex(readers.view(project));
    // Names per language, for readability: one index holds all three.
    const [py, ts, go] = [db, db, db];
    const repos = { nav_py: { dir }, nav_ts: { dir } };

    await t.step("locate_symbol: exact definition first, then references", () => {
      const r = locateSymbol(ts, { name: "validateToken", language: "typescript" });
      assert.equal(r.results[0].path, "src/cache.ts");
      assert.equal(r.results[0].line_start, 9);
      assert.equal(r.results[0].kind, "function");
      assert.equal(r.results[0].match, "definition");
      assert.equal(r.results[0].match_tier, "exact");
      assert.match(r.results[0].symbol_id, /^sym_[0-9a-f]{24}$/);
      assert.match(r.results[0].symbol_stable_id, /^b3:/);
      assert.equal(r.results[0].signature, "function validateToken(token: string, cache: MemoryStore): boolean");
      const ref = r.results.find((x) => x.match === "reference");
      assert.ok(ref, "the call in app.ts is listed as a reference");
      assert.equal(ref.path, "src/app.ts");
      assert.equal(ref.line_start, 6);
      assert.equal(ref.qualified_name, "app.main");
      assert.ok(r.results.indexOf(ref) > 0);
      assert.equal(r.total_candidates, r.results.length);
      assert.equal(r.truncated, false);
      const both = locateSymbol(db, { name: "validateToken" });
      assert.deepEqual(both.results.filter((x) => x.match === "definition").map((x) => x.language).sort(), [
        "go",
        "typescript",
      ]);
      const g = locateSymbol(go, { name: "validateToken", language: "go" });
      assert.equal(`${g.results[0].path}:${g.results[0].line_start}`, "auth/token.go:34");
    });

    await t.step("locate_symbol: exact > case-insensitive > prefix > fuzzy", () => {
      const ci = locateSymbol(ts, { name: "VALIDATETOKEN", language: "typescript" });
      assert.equal(ci.results[0].name, "validateToken");
      assert.equal(ci.results[0].match_tier, "case_insensitive");
      const prefix = locateSymbol(py, { name: "circum" });
      assert.equal(prefix.results[0].qualified_name, "shapes.circle.Circle.circumference");
      assert.equal(prefix.results[0].match_tier, "prefix");
      const mixed = locateSymbol(go, { name: "Validate", limit: 50 });
      const tiers = mixed.results.filter((x) => x.match === "definition").map((x) => x.match_tier);
      assert.deepEqual(tiers.slice(0, 1), ["exact"]);
      assert.ok(tiers.includes("prefix"), "Validator, validateToken are listed after");
      const order = { exact: 0, case_insensitive: 1, prefix: 2, fuzzy: 3 };
      for (let i = 1; i < mixed.results.length; i++) {
        const [a, b] = [mixed.results[i - 1], mixed.results[i]];
        assert.ok(a.score >= b.score, "scores descend");
        if (a.match === "definition" && b.match === "definition") assert.ok(order[a.match_tier] <= order[b.match_tier]);
      }
    });

    await t.step("locate_symbol: a typo finds the symbol through the fuzzy tier", () => {
      for (
        const [db, typo, want] of [
          [ts, "valdateToken", "cache.validateToken"],
          [ts, "validatetokne", "cache.validateToken"],
          [py, "Circel", "shapes.circle.Circle"],
          [py, "build_reprot", "shapes.report.build_report"],
          [go, "NewJWTValidatr", "auth.NewJWTValidator"],
          [go, "Bsae", "auth.Base"], // a swap in a short name shares no trigram
        ] as const
      ) {
        const r = locateSymbol(db, { name: typo, language: want.startsWith("cache.") ? "typescript" : undefined });
        assert.equal(r.results[0].qualified_name, want, typo);
        assert.equal(r.results[0].match_tier, "fuzzy");
        assert.ok(r.results[0].score < 0.5, "a guess scores below any exact match");
      }
      assert.equal(editDistance("validate", "valdiate", 3), 1, "a swap is one edit");
      assert.equal(editDistance("abc", "xyz", 1), 2, "stops past the bound");
    });

    await t.step("locate_symbol: qualified queries narrow by qualified name", () => {
      const area = locateSymbol(py, { name: "Circle.area" });
      assert.equal(area.results[0].qualified_name, "shapes.circle.Circle.area");
      assert.ok(!area.results.some((x) => x.qualified_name === "shapes.square.Square.area"));
      assert.equal(locateSymbol(py, { name: "shapes.base.Shape" }).results[0].qualified_name, "shapes.base.Shape");
      const v = locateSymbol(go, { name: "JWTValidator.Validate" });
      assert.equal(v.results[0].qualified_name, "auth.JWTValidator.Validate");
      assert.ok(!v.results.some((x) => x.qualified_name === "auth.Validator.Validate"));
      assert.equal(locateSymbol(go, { name: "auth::validateToken" }).results[0].path, "auth/token.go");
      assert.equal(locateSymbol(ts, { name: "memory_store.MemoryStore.get" }).results[0].line_start, 7);
      assert.equal(locateSymbol(ts, { name: "Store.get" }).results[0].qualified_name, "store.Store.get");
    });

    await t.step("locate_symbol: kind and language filters", () => {
      const methods = locateSymbol(ts, { name: "get", kind: "method", language: "ts" });
      const aliased = locateSymbol(db, { name: "Validate", language: "golang" });
      assert.ok(aliased.results.length >= 2 && aliased.results.every((x) => x.language === "go"));
      assert.ok(methods.results.length >= 3);
      assert.ok(methods.results.every((x) => x.kind === "method" && x.language === "typescript"));
      assert.equal(locateSymbol(ts, { name: "validateToken", kind: "fn" }).results[0].kind, "function");
      const e = throwsCode(() => locateSymbol(py, { name: "area", kind: "class" }), "symbol_not_found");
      assert.ok(Array.isArray(e.data.suggestions));
      throwsCode(() => locateSymbol(py, { name: "circumference", language: "go" }), "symbol_not_found");
      const lang = throwsCode(() => locateSymbol(py, { name: "area", language: "klingon" }), "invalid_input");
      assert.ok((lang.data.known_languages as string[]).includes("python"));
      const kind = throwsCode(() => locateSymbol(py, { name: "area", kind: "gizmo" }), "invalid_input");
      assert.ok((kind.data.known_kinds as string[]).includes("function"));
    });

    await t.step("locate_symbol: limits are validated or clamped", () => {
      const one = locateSymbol(py, { name: "area", limit: 1 });
      assert.equal(one.results.length, 1);
      assert.equal(one.truncated, true);
      assert.ok(one.total_candidates >= 3);
      for (const bad of [0, -5, 1.5, Number.NaN]) {
        throwsCode(() => locateSymbol(py, { name: "area", limit: bad }), "invalid_input");
      }
      throwsCode(() => locateSymbol(py, { name: "area", limit: "3" as unknown as number }), "invalid_input");
      const big = locateSymbol(py, { name: "a", limit: 10_000 });
      assert.ok(big.results.length <= 200 && big.results.length > 0);
    });

    await t.step("locate_symbol: empty, huge and metacharacter names never crash", () => {
      for (const bad of ["", "   ", "\n\t", undefined, null, 42]) {
        throwsCode(() => locateSymbol(py, { name: bad as unknown as string }), "invalid_input");
      }
      throwsCode(() => locateSymbol(py, { name: "x".repeat(100_000) }), "invalid_input");
      for (const q of METACHARACTERS) {
        try {
          const r = locateSymbol(ts, { name: q });
          assert.ok(Array.isArray(r.results));
        } catch (e) {
          assert.ok(e instanceof CruxeError && ["symbol_not_found", "invalid_input"].includes(e.code), `${q}: ${e}`);
        }
      }
    });

    await t.step("locate_symbol: nothing found is symbol_not_found with suggestions", () => {
      const e = throwsCode(() => locateSymbol(ts, { name: "tokenValidationService" }), "symbol_not_found");
      const s = e.data.suggestions as { name: string; path: string }[];
      assert.ok(s.some((x) => x.name === "validateToken"), JSON.stringify(s));
      const none = throwsCode(() => locateSymbol(ts, { name: "qqqzzzxxx" }), "symbol_not_found");
      assert.deepEqual(none.data.suggestions, []);
    });

    await t.step("get_file_outline: nested tree, top level, Go methods under their type", () => {
      const all = getFileOutline(py, { path: "shapes/circle.py" });
      assert.equal(all.language, "python");
      assert.equal(all.depth, "all");
      assert.deepEqual(all.symbols.map((s) => s.name), ["Circle", "UnitCircle"]);
      assert.deepEqual(all.symbols[0].children.map((s) => s.name), ["__init__", "area", "circumference"]);
      assert.deepEqual(all.symbols[1].children.map((s) => s.name), ["__init__"]);
      assert.equal(all.symbols[0].line_start, 7);
      assert.equal(all.symbols[0].line_end, 17);
      assert.equal(all.truncated, false);
      const top = getFileOutline(py, { path: "shapes/circle.py", depth: "top" });
      assert.deepEqual(top.symbols.map((s) => [s.name, s.children.length]), [["Circle", 0], ["UnitCircle", 0]]);
      const g = getFileOutline(go, { path: "auth/token.go" });
      const names = (n: OutlineNode[]) => n.map((s) => s.name);
      assert.deepEqual(names(g.symbols), ["Validator", "Base", "JWTValidator", "validateToken", "checkExpiry"]);
      assert.deepEqual(names(g.symbols[1].children), ["name", "Name"]);
      assert.deepEqual(names(g.symbols[2].children), ["Base", "key", "Validate"]);
      assert.equal(getFileOutline(go, { path: "auth/token.go", depth: "top" }).symbols.length, 7);
    });

    await t.step("get_file_outline: paths are normalized; unknown paths are file_not_found", () => {
      assert.equal(getFileOutline(py, { path: "./shapes/circle.py" }).path, "shapes/circle.py");
      assert.equal(getFileOutline(py, { path: "shapes\\circle.py" }).path, "shapes/circle.py");
      const abs = join(Deno.realPathSync(repos.nav_py.dir), "shapes", "circle.py");
      assert.equal(getFileOutline(py, { path: abs }).path, "shapes/circle.py");
      const e = throwsCode(() => getFileOutline(py, { path: "other/circle.py" }), "file_not_found");
      assert.ok((e.data.suggestions as string[]).includes("shapes/circle.py"));
      const e2 = throwsCode(() => getFileOutline(py, { path: "shapes/circel.py" }), "file_not_found");
      assert.ok((e2.data.suggestions as string[]).length > 0);
      for (const bad of ["", "  ", "../etc/passwd", "/etc/passwd", "a/../../b", "x\0y"]) {
        throwsCode(() => getFileOutline(py, { path: bad }), "invalid_input");
      }
      throwsCode(() => getFileOutline(py, { path: "a".repeat(100_000) }), "invalid_input");
      throwsCode(() => getFileOutline(py, { path: "shapes/circle.py", depth: "deep" as "all" }), "invalid_input");
      for (const q of METACHARACTERS) {
        try {
          getFileOutline(py, { path: q });
        } catch (e) {
          assert.ok(e instanceof CruxeError && ["file_not_found", "invalid_input"].includes(e.code), `${q}: ${e}`);
        }
      }
    });

    await t.step("get_symbol_hierarchy: containment chain and supertypes, transitively", () => {
      const u = getSymbolHierarchy(py, { symbol_name: "UnitCircle" });
      assert.equal(u.direction, "ancestors");
      assert.deepEqual(u.containment.map((c) => [c.kind, c.qualified_name]), [["module", "shapes.circle"]]);
      const [circle] = u.type_hierarchy;
      assert.equal(circle.relation, "extends");
      assert.equal(circle.symbol?.qualified_name, "shapes.circle.Circle");
      assert.equal(circle.resolution, "same_file");
      assert.equal(circle.children[0].symbol?.qualified_name, "shapes.base.Shape");
      assert.equal(circle.children[0].resolution, "imported");
      assert.equal(circle.children[0].depth, 2);
      const m = getSymbolHierarchy(py, { symbol_name: "Circle.area" });
      assert.deepEqual(m.containment.map((c) => c.qualified_name), ["shapes.circle.Circle", "shapes.circle"]);
      const sq = getSymbolHierarchy(py, { symbol_name: "Square" });
      assert.deepEqual(sq.type_hierarchy.map((n) => n.symbol?.qualified_name), [
        "shapes.base.Shape",
        "shapes.base.Named",
      ]);
      const chain = (nodes: TypeNode[]): string[] =>
        nodes.flatMap((n) => [`${n.relation} ${n.symbol?.qualified_name}`, ...chain(n.children)]);
      assert.deepEqual(chain(getSymbolHierarchy(ts, { symbol_name: "ExpiringStore" }).type_hierarchy), [
        "extends memory_store.MemoryStore",
        "extends store.BaseStore",
        "implements store.Store",
      ]);
      const gm = getSymbolHierarchy(go, { symbol_name: "JWTValidator.Validate" });
      assert.deepEqual(gm.containment.map((c) => c.qualified_name), ["auth.JWTValidator", "auth"]);
      assert.deepEqual(chain(getSymbolHierarchy(go, { symbol_name: "JWTValidator" }).type_hierarchy), [
        "extends auth.Base",
      ]);
    });

    await t.step("get_symbol_hierarchy: descendants are members and subtypes", () => {
      const chain = (nodes: TypeNode[]): string[] =>
        nodes.flatMap((n) => [`${n.relation} ${n.symbol?.qualified_name}`, ...chain(n.children)]);
      const shape = getSymbolHierarchy(py, { symbol_name: "Shape", direction: "descendants" });
      assert.deepEqual((shape.containment as MemberNode[]).map((c) => c.name), ["sides", "area", "describe"]);
      assert.deepEqual(chain(shape.type_hierarchy).sort(), [
        "extended_by shapes.circle.Circle",
        "extended_by shapes.circle.UnitCircle",
        "extended_by shapes.square.Square",
      ]);
      const store = getSymbolHierarchy(ts, { symbol_name: "Store", direction: "descendants" });
      assert.deepEqual(chain(store.type_hierarchy), [
        "implemented_by store.BaseStore",
        "extended_by memory_store.MemoryStore",
        "extended_by memory_store.ExpiringStore",
      ]);
      const jwt = getSymbolHierarchy(go, { symbol_name: "JWTValidator", direction: "descendants" });
      assert.deepEqual((jwt.containment as MemberNode[]).map((c) => c.name), ["Base", "key", "Validate"]);
    });

    await t.step("get_symbol_hierarchy: ambiguity, handles, not found, bad input", () => {
      const amb = throwsCode(() => getSymbolHierarchy(py, { symbol_name: "area" }), "ambiguous_symbol");
      assert.deepEqual(
        (amb.data.candidates as { qualified_name: string }[]).map((c) => c.qualified_name).sort(),
        ["shapes.base.Shape.area", "shapes.circle.Circle.area", "shapes.square.Square.area"],
      );
      const one = getSymbolHierarchy(py, { symbol_name: "area", path: "shapes/square.py" });
      assert.equal(one.symbol.qualified_name, "shapes.square.Square.area");
      throwsCode(
        () => getSymbolHierarchy(py, { symbol_name: "__init__", path: "shapes/circle.py" }),
        "ambiguous_symbol",
      );
      const byId = getSymbolHierarchy(py, { symbol_name: one.symbol.symbol_id });
      assert.equal(byId.symbol.qualified_name, "shapes.square.Square.area");
      throwsCode(() => getSymbolHierarchy(py, { symbol_name: "sym_" + "0".repeat(24) }), "symbol_not_found");
      const nf = throwsCode(() => getSymbolHierarchy(py, { symbol_name: "Cirle" }), "symbol_not_found");
      assert.ok((nf.data.suggestions as { name: string }[]).some((s) => s.name === "Circle"));
      throwsCode(() => getSymbolHierarchy(py, { symbol_name: "Circle", path: "shapes/nowhere.py" }), "file_not_found");
      throwsCode(() => getSymbolHierarchy(py, { symbol_name: "Circle", path: "shapes/square.py" }), "symbol_not_found");
      throwsCode(
        () => getSymbolHierarchy(py, { symbol_name: "Circle", direction: "sideways" as "ancestors" }),
        "invalid_input",
      );
      for (const bad of ["", " ", "y".repeat(100_000)]) {
        throwsCode(() => getSymbolHierarchy(py, { symbol_name: bad }), "invalid_input");
      }
      for (const q of METACHARACTERS) {
        try {
          getSymbolHierarchy(py, { symbol_name: q });
        } catch (e) {
          assert.ok(e instanceof CruxeError && ["symbol_not_found", "invalid_input"].includes(e.code), `${q}: ${e}`);
        }
      }
    });

    await t.step("find_related_symbols: calls, callers, imports, neighbours", () => {
      throwsCode(() => findRelatedSymbols(db, { symbol_name: "validateToken" }), "ambiguous_symbol");
      const r = findRelatedSymbols(ts, { symbol_name: "validateToken", path: "src/cache.ts" });
      const rel = r.related.map((x) => `${x.relation} ${x.qualified_name}`);
      assert.ok(rel.includes("called_by app.main"), rel.join("\n"));
      assert.ok(rel.includes("calls memory_store.MemoryStore.get"), "the import decides which get");
      assert.ok(!rel.includes("calls store.Store.get"));
      assert.ok(rel.includes("same_file cache.createCache"));
      const imp = r.related.find((x) => x.relation === "imports")!;
      assert.equal(imp.name, "./memory_store");
      assert.equal(imp.resolved_path, "src/memory_store.ts");
      assert.equal(imp.line, 1);
      assert.equal(r.edges_available, true);
      assert.equal(r.scope, "package");

      const c = findRelatedSymbols(py, { symbol_name: "Circle", limit: 100 });
      const crel = c.related.map((x) => `${x.relation} ${x.qualified_name}`);
      for (
        const want of [
          "child shapes.circle.Circle.area",
          "extends shapes.base.Shape",
          "extended_by shapes.circle.UnitCircle",
          "called_by shapes.report.build_report",
          "same_file shapes.circle.UnitCircle",
          "same_module shapes.base.Shape",
        ]
      ) assert.ok(crel.includes(want), `${want} in\n${crel.join("\n")}`);
      // Structural relations come before neighbours.
      assert.ok(crel.indexOf("extends shapes.base.Shape") < crel.indexOf("same_file shapes.circle.UnitCircle"));
      assert.ok(!crel.some((x) => x.startsWith("same_module tests.")), "another directory is not the same module");

      const g = findRelatedSymbols(go, { symbol_name: "auth.validateToken" });
      const grel = g.related.map((x) => `${x.relation} ${x.qualified_name}`);
      assert.ok(grel.includes("called_by auth.JWTValidator.Validate"));
      assert.ok(grel.includes("calls auth.checkExpiry"));
      const serve = findRelatedSymbols(go, { symbol_name: "Serve" });
      assert.ok(serve.related.some((x) => x.relation === "calls" && x.qualified_name === "auth.NewJWTValidator"));
      const imp2 = serve.related.find((x) => x.relation === "imports")!;
      assert.equal(imp2.resolved_path, "auth");
    });

    await t.step("find_related_symbols: scope and limit", () => {
      const file = findRelatedSymbols(py, { symbol_name: "Circle", scope: "file", limit: 100 });
      assert.ok(file.related.filter((x) => x.relation !== "imports").every((x) => x.path === "shapes/circle.py"));
      assert.ok(file.related.some((x) => x.qualified_name === "shapes.circle.UnitCircle"));
      const mod = findRelatedSymbols(go, { symbol_name: "Serve", scope: "module" });
      assert.ok(!mod.related.some((x) => x.relation === "calls"), "auth/ is outside server/");
      const two = findRelatedSymbols(py, { symbol_name: "Circle", limit: 2 });
      assert.equal(two.related.length, 2);
      assert.equal(two.truncated, true);
      assert.ok(two.total_candidates > 2);
      for (const bad of [0, -1, 2.5]) {
        throwsCode(() => findRelatedSymbols(py, { symbol_name: "Circle", limit: bad }), "invalid_input");
      }
      assert.ok(findRelatedSymbols(py, { symbol_name: "Circle", limit: 10_000 }).related.length <= 200);
      throwsCode(() => findRelatedSymbols(py, { symbol_name: "Circle", scope: "galaxy" as "file" }), "invalid_input");
      throwsCode(() => findRelatedSymbols(py, { symbol_name: "area" }), "ambiguous_symbol");
      throwsCode(() => findRelatedSymbols(py, { symbol_name: "Nothing_Like_It" }), "symbol_not_found");
      throwsCode(() => findRelatedSymbols(py, { symbol_name: "" }), "invalid_input");
    });

    await t.step("get_code_context: depth gives bodies, imports and callees within budget", () => {
      const r = getCodeContext(ts, { query: "cache.validateToken" });
      assert.equal(r.strategy, "depth");
      assert.equal(r.max_tokens, 2000, "the default budget keeps a default answer under 8 KB");
      const first = r.items[0];
      assert.equal(first.role, "definition");
      assert.equal(first.qualified_name, "cache.validateToken");
      const src = Deno.readTextFileSync(join(repos.nav_ts.dir, "src", "cache.ts")).split("\n");
      assert.equal(first.content, src.slice(first.line_start - 1, first.line_end).join("\n"));
      const imports = r.items.find((i) => i.role === "imports" && i.path === "src/cache.ts");
      assert.equal(imports?.content, 'import { MemoryStore } from "./memory_store";');
      assert.ok(r.items.some((i) => i.role === "callee" && i.qualified_name === "memory_store.MemoryStore.get"));
      // The estimate counts at least every item as sent (chars/4 of its JSON, measured here), and the whole
      // answer with a metadata block stays within the budget.
      const itemTokens = r.items.reduce((a, i) => a + Math.ceil(JSON.stringify(i).length / 4), 0);
      assert.ok(itemTokens > 0 && r.estimated_tokens >= itemTokens, `${r.estimated_tokens} < ${itemTokens}`);
      const metadata = { cruxe_protocol_version: "1.0", freshness_status: "fresh", indexing_status: "ready" };
      const whole = Math.ceil(JSON.stringify({ ...r, metadata }).length / 4);
      assert.ok(whole <= r.max_tokens, `${whole} > ${r.max_tokens}`);
      assert.equal(r.truncated, false);
      assert.match(r.token_estimator, /chars\/4/);

      const m = getCodeContext(py, { query: "Circle.area" });
      assert.ok(m.items.some((i) => i.role === "container" && i.qualified_name === "shapes.circle.Circle"));
      // A Go method's receiver type is its container, with the type's own lines.
      const gm = getCodeContext(go, { query: "JWTValidator.Validate" });
      const recv = gm.items.find((i) => i.role === "container");
      assert.equal(recv?.qualified_name, "auth.JWTValidator");
      assert.match(recv!.content, /key \[\]byte/);
    });

    await t.step("get_code_context: small budgets cut and say so", () => {
      const r = getCodeContext(py, { query: "build_report", max_tokens: 250 });
      assert.ok(r.estimated_tokens <= 250, String(r.estimated_tokens));
      // The whole answer (with room for the metadata block) stays within the budget.
      assert.ok(Math.ceil(JSON.stringify(r).length / 4) + 48 <= 250, `answer of ${JSON.stringify(r).length} chars`);
      assert.equal(r.truncated, true);
      assert.equal(r.items[0].qualified_name, "shapes.report.build_report");
      for (const budget of [100, 150, 300, 1000]) {
        const b = getCodeContext(ts, { query: "store get set", max_tokens: budget, strategy: "breadth" });
        assert.ok(b.estimated_tokens <= budget, `${b.estimated_tokens} > ${budget}`);
        // Below about 120 tokens the answer's own fields and metadata alone exceed the budget (no items then).
        if (budget >= 150) assert.ok(Math.ceil(JSON.stringify(b).length / 4) + 48 <= budget, `over ${budget}`);
        else assert.deepEqual(b.items, []);
      }
    });

    await t.step("get_code_context: breadth gives signatures and neighbours; free text works", () => {
      const b = getCodeContext(ts, { query: "MemoryStore", strategy: "breadth" });
      assert.equal(b.items[0].role, "signature");
      assert.equal(b.items[0].qualified_name, "memory_store.MemoryStore");
      assert.ok(b.items.some((i) => i.role === "member" && i.qualified_name === "memory_store.MemoryStore.get"));
      const nl = getCodeContext(py, { query: "area of a circle" });
      assert.ok(nl.items.length > 0);
      assert.ok(nl.items.slice(0, 3).some((i) => i.path === "shapes/circle.py"), JSON.stringify(nl.items.slice(0, 3)));
      const none = getCodeContext(py, { query: "qqqzzz wwwvvv" });
      assert.deepEqual(none.items, []);
      assert.equal(none.estimated_tokens, 0);
    });

    await t.step("get_code_context: bad input", () => {
      throwsCode(() => getCodeContext(py, { query: "Circle", strategy: "wide" as "depth" }), "invalid_strategy");
      for (const bad of [0, 50, 99, 100_001, 1e9, 1.5, -1]) {
        throwsCode(() => getCodeContext(py, { query: "Circle", max_tokens: bad }), "invalid_max_tokens");
      }
      throwsCode(
        () => getCodeContext(py, { query: "Circle", max_tokens: "lots" as unknown as number }),
        "invalid_max_tokens",
      );
      assert.equal(getCodeContext(py, { query: "Circle", max_tokens: 100 }).max_tokens, 100);
      for (const bad of ["", "   ", undefined]) {
        throwsCode(() => getCodeContext(py, { query: bad as unknown as string }), "invalid_input");
      }
      const huge = getCodeContext(py, { query: "area ".repeat(20_000) });
      assert.equal(huge.query_truncated, true);
      assert.ok(huge.estimated_tokens <= 4000);
      for (const q of METACHARACTERS) {
        const r = getCodeContext(ts, { query: q });
        assert.ok(Array.isArray(r.items), q);
      }
    });

    // Last: it changes the index the steps above read.
    await t.step("symbol name index: warm, and rebuilt after the index changes", async () => {
      const w = warmSymbolIndex(ts);
      const distinct = (ts.prepare("SELECT count(DISTINCT name_lower) AS n FROM symbols").get() as { n: number }).n;
      assert.equal(w.names, distinct);
      throwsCode(() => locateSymbol(ts, { name: "computeChekcsum" }), "symbol_not_found");
      Deno.writeTextFileSync(
        join(dir, "src", "checksum.ts"),
        "export function computeChecksum(s: string): number {\n  return s.length;\n}\n",
      );
      commitAll(dir, "checksum");
      const job = await h.runner.start(project, { mode: "incremental", force: false }).active.done;
      assert.equal(job.status, "published");
      const r = locateSymbol(ts, { name: "computeChekcsum" });
      assert.equal(r.results[0].qualified_name, "checksum.computeChecksum");
      assert.equal(warmSymbolIndex(ts).names, distinct + 1);
    });
  } finally {
    readers.closeAll();
    h.close();
  }
});
