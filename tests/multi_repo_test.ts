import assert from "node:assert/strict";
import { join } from "node:path";
import { CruxeError } from "../src/core/errors.ts";
import { resolveConfig } from "../src/core/config.ts";
import { IndexReaders } from "../src/query/index_reader.ts";
import {
  checkPathPrefix,
  mergeRanked,
  repoDirectory,
  resolveScope,
  type SearchHit,
  searchScope,
} from "../src/query/multi_repo.ts";
import { registerProject } from "../src/index/project_setup.ts";
import type { ProjectRow } from "../src/state/registry.ts";
import { copyFixture, tempHome } from "./helpers/fixture_repo.ts";
import { scopeHome, termSearch } from "./helpers/scope_fixtures.ts";
import { bodyOf, inProcess } from "./mcp_helpers.ts";
import { searchOneRepo } from "../src/query/search_code.ts";
import { requireIndex } from "../src/query/index_reader.ts";
import { searchCode } from "../src/query/search_code.ts";
import { setLogLevel } from "../src/core/log.ts";

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof CruxeError) return e.code;
    throw e;
  }
  return "no error";
}

function fakeProject(id: string, name: string, root: string): ProjectRow {
  return { project_id: id, name, repo_root: root, vcs_mode: "plain", default_ref: "live", created_at: "" };
}

const P = [
  fakeProject("p1", "alpha", "/r/alpha"),
  fakeProject("p2", "beta", "/r/beta"),
  fakeProject("p3", "gamma", "/r/gamma"),
];

Deno.test("scope: neither scope nor repo means no scope (workspace routing applies)", () => {
  assert.equal(resolveScope({}, { projects: P, allowGlobalScope: false }), null);
});

Deno.test("scope: repo alone equals {type: repo}", () => {
  const a = resolveScope({ repo: "beta" }, { projects: P, allowGlobalScope: false })!;
  const b = resolveScope({ scope: { type: "repo", repo: "beta" } }, { projects: P, allowGlobalScope: false })!;
  assert.deepEqual(a, b);
  assert.deepEqual(a.scope, { type: "repo", repos: ["beta"] });
  assert.equal(a.targets[0].project.project_id, "p2");
});

Deno.test("scope: scope wins over repo", () => {
  const r = resolveScope({ repo: "alpha", scope: { type: "repos", repos: ["gamma", "beta"] } }, {
    projects: P,
    allowGlobalScope: false,
  })!;
  assert.deepEqual(r.scope, { type: "repos", repos: ["gamma", "beta"] });
});

Deno.test("scope: repos dedupes, rejects empty, more than 10, unknown names", () => {
  const r = resolveScope({ scope: { type: "repos", repos: ["alpha", "alpha", "beta"] } }, {
    projects: P,
    allowGlobalScope: false,
  })!;
  assert.deepEqual(r.scope.repos, ["alpha", "beta"]);
  const opts = { projects: P, allowGlobalScope: true };
  assert.equal(code(() => resolveScope({ scope: { type: "repos", repos: [] } }, opts)), "invalid_input");
  assert.equal(
    code(() => resolveScope({ scope: { type: "repos", repos: Array(11).fill("alpha") } }, opts)),
    "invalid_input",
  );
  assert.equal(
    code(() => resolveScope({ scope: { type: "repos", repos: ["alpha", "nope"] } }, opts)),
    "project_not_found",
  );
  assert.equal(code(() => resolveScope({ repo: "" }, opts)), "invalid_input");
  assert.equal(code(() => resolveScope({ scope: { type: "every" } }, opts)), "invalid_input");
  assert.equal(code(() => resolveScope({ scope: "alpha" }, opts)), "invalid_input");
});

Deno.test("scope: all is forbidden without the flag and lists every repo with it", () => {
  assert.equal(
    code(() => resolveScope({ scope: { type: "all" } }, { projects: P, allowGlobalScope: false })),
    "forbidden",
  );
  const r = resolveScope({ scope: { type: "all" } }, { projects: P, allowGlobalScope: true })!;
  assert.deepEqual(r.scope, { type: "all", repos: ["alpha", "beta", "gamma"] });
});

Deno.test("scope: ALLOW_GLOBAL_SCOPE must be exactly true", () => {
  assert.equal(resolveConfig({ ALLOW_GLOBAL_SCOPE: "true", CRUXE_HOME: "/tmp/h" }, "linux").allowGlobalScope, true);
  assert.equal(resolveConfig({ ALLOW_GLOBAL_SCOPE: "1", CRUXE_HOME: "/tmp/h" }, "linux").allowGlobalScope, false);
  assert.equal(resolveConfig({ CRUXE_HOME: "/tmp/h" }, "linux").allowGlobalScope, false);
});

Deno.test("scope: repoNames config renames; the displaced project stays reachable by id", () => {
  const dir = repoDirectory(P, { "/r/gamma": "alpha" });
  assert.equal(dir.get("alpha")!.project_id, "p3");
  assert.equal(dir.has("gamma"), false);
  const r = resolveScope({ scope: { type: "repos", repos: ["alpha", "p1"] } }, {
    projects: P,
    allowGlobalScope: false,
    repoNames: { "/r/gamma": "alpha" },
  })!;
  assert.deepEqual(r.targets.map((t) => t.project.project_id), ["p3", "p1"]);
  assert.deepEqual(r.scope.repos, ["alpha", "p1"]);
});

Deno.test("scope: registerProject suffixes clashing directory names (-2, -3)", () => {
  const h = tempHome();
  const parents = [Deno.makeTempDirSync(), Deno.makeTempDirSync(), Deno.makeTempDirSync()];
  try {
    const names = parents.map((p) => {
      Deno.mkdirSync(`${p}/alpha`);
      return registerProject(h.registry, `${p}/alpha`).name;
    });
    assert.deepEqual(names, ["alpha", "alpha-2", "alpha-3"]);
    const dir = repoDirectory(h.registry.listProjects());
    assert.equal(dir.size, 3);
  } finally {
    h.close();
    for (const p of parents) Deno.removeSync(p, { recursive: true });
    Deno.removeSync(h.home, { recursive: true });
  }
});

Deno.test("merge: ranks on score across repos, ties by scope order, every hit carries repo", () => {
  const hit = (path: string, score: number): SearchHit => ({ path, line_start: 1, line_end: 2, score });
  const out = mergeRanked([
    { repo: "a", hits: [hit("x", 0.5), hit("y", 0.2)] },
    { repo: "b", hits: [hit("z", 0.9), hit("w", 0.5)] },
  ], 3);
  assert.deepEqual(out.map((h) => `${h.repo}:${h.path}`), ["b:z", "a:x", "b:w"]);
  assert.deepEqual([out[0].startLine, out[0].endLine], [1, 2]);
});

Deno.test("merge: per-repo cap keeps a big repo from drowning the rest, and backfills empty slots", () => {
  const many = Array.from({ length: 10 }, (_, i) => ({ path: `big${i}`, line_start: 1, line_end: 1, score: 0.9 }));
  const capped = mergeRanked(
    [
      { repo: "big", hits: many },
      { repo: "b", hits: [{ path: "b0", line_start: 1, line_end: 1, score: 0.3 }] },
      { repo: "c", hits: [{ path: "c0", line_start: 1, line_end: 1, score: 0.2 }] },
    ],
    4,
    2,
  );
  assert.deepEqual(capped.map((h) => h.repo), ["big", "big", "b", "c"]);
  const alone = mergeRanked([{ repo: "big", hits: many }], 4, 2);
  assert.equal(alone.length, 4);
});

Deno.test("pathPrefix: relative prefixes pass, escapes are refused", () => {
  assert.equal(checkPathPrefix("./src/"), "src/");
  assert.equal(checkPathPrefix(undefined), undefined);
  assert.equal(code(() => checkPathPrefix("../other")), "invalid_input");
  assert.equal(code(() => checkPathPrefix("/etc")), "invalid_input");
});

Deno.test("search over real indexes: repos, all (capped), repo, pathPrefix, partial while indexing", async () => {
  const h = await scopeHome();
  const readers = new IndexReaders(h.registry);
  try {
    const projects = h.registry.listProjects();
    const deps = { view: (p: ProjectRow) => readers.view(p) };
    const opts = { projects, allowGlobalScope: true };

    const two = resolveScope({ scope: { type: "repos", repos: ["alpha", "gamma"] } }, opts)!;
    const r2 = await searchScope(deps, two, { query: "rate limiter", topK: 10 }, termSearch);
    assert.ok(r2.results.length >= 4);
    assert.deepEqual([...new Set(r2.results.map((r) => r.repo))].sort(), ["alpha", "gamma"]);
    for (let i = 1; i < r2.results.length; i++) assert.ok(r2.results[i - 1].score >= r2.results[i].score);
    assert.equal(r2.result_completeness, "complete");
    assert.equal(r2.total_candidates, r2.repos.reduce((n, s) => n + s.total_candidates, 0));

    const all = resolveScope({ scope: { type: "all" } }, opts)!;
    const ra = await searchScope(deps, all, { query: "vector qdrant limiter", topK: 4 }, termSearch);
    const per = new Map<string, number>();
    for (const r of ra.results) per.set(r.repo, (per.get(r.repo) ?? 0) + 1);
    assert.ok([...per.values()].every((n) => n <= 2), JSON.stringify(ra.results.map((r) => r.repo)));
    assert.ok(per.has("beta"));

    const one = resolveScope({ repo: "beta" }, opts)!;
    const rb = await searchScope(deps, one, { query: "qdrant collection", topK: 5 }, termSearch);
    assert.ok(rb.results.length > 0 && rb.results.every((r) => r.repo === "beta"));
    assert.ok(rb.results.every((r) => r.path.startsWith("pkg/store/")));

    const pre = await searchScope(deps, two, { query: "limiter", topK: 10, pathPrefix: "lib/" }, termSearch);
    assert.ok(pre.results.length > 0 && pre.results.every((r) => r.repo === "gamma" && r.path.startsWith("lib/")));

    // A fourth repository registered but not indexed yet, "indexing": contributes nothing, answer partial.
    const fresh = copyFixture("multi_beta");
    const delta = h.registry.upsertProject({ ...registerProject(h.registry, fresh), name: "delta" });
    const withDelta = resolveScope({ scope: { type: "repos", repos: ["alpha", "delta"] } }, {
      projects: h.registry.listProjects(),
      allowGlobalScope: false,
    })!;
    const rd = await searchScope(
      { ...deps, isIndexing: (id) => id === delta.project_id },
      withDelta,
      { query: "rate limiter", topK: 5 },
      termSearch,
    );
    assert.equal(rd.result_completeness, "partial");
    assert.ok(rd.results.length > 0 && rd.results.every((r) => r.repo === "alpha"));
    assert.equal(rd.repos.find((s) => s.repo === "delta")!.indexing_status, "indexing");

    // Not indexing and not indexed: a repos scope is partial, a single repo scope is index_not_ready.
    const rn = await searchScope(deps, withDelta, { query: "rate", topK: 5 }, termSearch);
    assert.equal(rn.result_completeness, "partial");
    assert.equal(rn.repos.find((s) => s.repo === "delta")!.indexing_status, "not_indexed");
    const onlyDelta = resolveScope({ repo: "delta" }, {
      projects: h.registry.listProjects(),
      allowGlobalScope: false,
    })!;
    await assert.rejects(
      () => searchScope(deps, onlyDelta, { query: "rate", topK: 5 }, termSearch),
      (e: CruxeError) => e.code === "index_not_ready",
    );
    Deno.removeSync(fresh, { recursive: true });
  } finally {
    readers.closeAll();
    h.close();
  }
});

Deno.test("MCP search_code: scope/repo over three named repositories, meta.scope echoed, all gated", async () => {
  const s = inProcess();
  const dirs: string[] = [];
  try {
    for (const [name, fixture] of [["alpha", "multi_alpha"], ["beta", "multi_beta"], ["gamma", "multi_gamma"]]) {
      const dir = copyFixture(fixture);
      dirs.push(dir);
      const p = s.registry.upsertProject({ ...registerProject(s.registry, dir), name });
      await s.rt.runner.start(p, { mode: "full", force: false }).active.done;
      s.rt.readers.invalidate(p.project_id);
    }
    const two = bodyOf(
      await s.call("search_code", { query: "rate limiter", scope: { type: "repos", repos: ["alpha", "gamma"] } }),
    );
    const results = two.results as { repo: string; score: number; path: string }[];
    assert.ok(results.length > 0);
    assert.deepEqual([...new Set(results.map((r) => r.repo))].sort(), ["alpha", "gamma"]);
    assert.deepEqual((two.meta as Record<string, unknown>).scope, { type: "repos", repos: ["alpha", "gamma"] });
    assert.equal((two.meta as Record<string, unknown>).topK, 10);

    // `repo` alone = {type: "repo"}; `scope` wins over `repo`.
    const viaRepo = bodyOf(await s.call("search_code", { query: "qdrant collection", repo: "beta" }));
    assert.ok((viaRepo.results as unknown[]).length > 0);
    assert.ok((viaRepo.results as { repo: string }[]).every((r) => r.repo === "beta"));
    assert.deepEqual((viaRepo.meta as Record<string, unknown>).scope, { type: "repo", repos: ["beta"] });
    const wins = bodyOf(
      await s.call("search_code", { query: "limiter", repo: "beta", scope: { type: "repo", repo: "gamma" } }),
    );
    assert.deepEqual((wins.meta as Record<string, unknown>).scope, { type: "repo", repos: ["gamma"] });

    const denied = await s.call("search_code", { query: "limiter", scope: { type: "all" } });
    assert.equal(denied.isError, true);
    assert.equal((bodyOf(denied).error as { code: string }).code, "forbidden");
    (s.rt.config as { allowGlobalScope: boolean }).allowGlobalScope = true;
    const all = bodyOf(await s.call("search_code", { query: "limiter vector", scope: { type: "all" }, topK: 4 }));
    assert.deepEqual(((all.meta as Record<string, unknown>).scope as { repos: string[] }).repos, [
      "alpha",
      "beta",
      "gamma",
    ]);
    assert.ok((all.results as unknown[]).length > 0 && (all.results as unknown[]).length <= 4);

    const unknown = await s.call("search_code", { query: "x", repo: "nope" });
    assert.equal((bodyOf(unknown).error as { code: string }).code, "project_not_found");
    const tooMany = await s.call("search_code", { query: "x", scope: { type: "repos", repos: Array(11).fill("a") } });
    assert.equal((bodyOf(tooMany).error as { code: string }).code, "invalid_input");
    // A registered repository without an index yet: the others answer, and the envelope says partial.
    const fresh = copyFixture("multi_gamma");
    dirs.push(fresh);
    s.registry.upsertProject({ ...registerProject(s.registry, fresh), name: "delta" });
    const part = bodyOf(
      await s.call("search_code", { query: "rate limiter", scope: { type: "repos", repos: ["alpha", "delta"] } }),
    );
    assert.ok((part.results as unknown[]).length > 0);
    assert.ok((part.results as { repo: string }[]).every((r) => r.repo === "alpha"));
    assert.equal((part.meta as { result_completeness: string }).result_completeness, "partial");
    assert.equal((part.metadata as { result_completeness: string }).result_completeness, "partial");
    // Without scope or repo, search_code is unchanged (no `meta`, no `repo`).
    const plain = bodyOf(await s.call("search_code", { query: "RateLimiter", workspace: dirs[0] }));
    assert.equal(plain.meta, undefined);
    // Scoped and unscoped answers carry the same fields (the scoped one adds `meta`).
    const scopedOne = bodyOf(await s.call("search_code", { query: "RateLimiter", repo: "alpha" }));
    const fields = (b: Record<string, unknown>) =>
      Object.keys(b).filter((k) => k !== "meta" && k !== "metadata").sort();
    assert.deepEqual(fields(scopedOne), fields(plain));
    assert.equal(scopedOne.query_intent, plain.query_intent);
    assert.ok(!("query_truncated" in scopedOne), "a compact answer leaves false flags out");
    const scopedFull = bodyOf(await s.call("search_code", { query: "RateLimiter", repo: "alpha", verbose: true }));
    assert.equal(scopedFull.query_truncated, false);
    const follow = scopedOne.suggested_next_actions as { workspace?: string }[];
    assert.ok(follow.length > 0 && follow.every((x) => x.workspace === dirs[0]), JSON.stringify(follow));
    // `limit` wins over its alias `topK` on both paths.
    const both = { query: "limiter", limit: 1, topK: 3 };
    const scopedLimit = bodyOf(await s.call("search_code", { ...both, repo: "alpha" }));
    assert.equal((scopedLimit.meta as { topK: number }).topK, 1);
    assert.equal((scopedLimit.results as unknown[]).length, 1);
    const plainLimit = bodyOf(await s.call("search_code", { ...both, workspace: dirs[0] }));
    assert.equal((plainLimit.results as unknown[]).length, 1);
    // `debug: true` through the tool, scoped or not: each result's join_status, and the counts.
    for (const where of [{ workspace: dirs[0] }, { repo: "alpha" }]) {
      const d = bodyOf(await s.call("search_code", { query: "rate limiter", debug: true, ...where }));
      const rs = d.results as { join_status?: string; symbol_id?: string }[];
      assert.ok(rs.length > 0 && rs.every((r) => r.join_status === (r.symbol_id ? "hit" : "miss")), JSON.stringify(rs));
      const hits = rs.filter((r) => r.symbol_id).length;
      assert.deepEqual(d.debug, { join_status: { hits, misses: rs.length - hits } }, JSON.stringify(where));
    }
    // A server in debug mode (`-v -v`) answers every search with its debug block, unless the call says debug: false.
    setLogLevel(2);
    try {
      const d = bodyOf(await s.call("search_code", { query: "rate limiter", workspace: dirs[0] }));
      assert.ok((d.debug as { join_status?: unknown } | undefined)?.join_status, JSON.stringify(d).slice(0, 300));
      const off = bodyOf(await s.call("search_code", { query: "rate limiter", workspace: dirs[0], debug: false }));
      assert.equal(off.debug, undefined);
    } finally {
      setLogLevel(0);
    }
    assert.equal(bodyOf(await s.call("search_code", { query: "rate limiter", workspace: dirs[0] })).debug, undefined);
    // The scoped answer names the collection it read: none here (no embeddings endpoint).
    assert.ok(
      "collection" in (bodyOf(await s.call("search_code", { ...both, repo: "alpha", verbose: true })).meta as object),
    );
  } finally {
    s.close();
    for (const d of dirs) Deno.removeSync(d, { recursive: true });
  }
});

Deno.test("merge, per-repo cap and order on search_code's own 0..1 scores (the function the tools use)", async () => {
  const h = await scopeHome();
  const readers = new IndexReaders(h.registry);
  try {
    const deps = { view: (p: ProjectRow) => readers.view(p) };
    const opts = { projects: h.registry.listProjects(), allowGlobalScope: true };
    const key = (r: { repo: string; path: string; line_start: number }) => `${r.repo}:${r.path}:${r.line_start}`;
    /** Every repository's own searchCode hits, scored as searchCode scores them. */
    const own = (repos: string[], query: string, limit: number) =>
      repos.flatMap((repo, order) =>
        searchCode(requireIndex(readers.view(h.projects[repo as "alpha"])), { query, limit }).results.map((r) => ({
          repo,
          order,
          path: r.path,
          line_start: r.line_start,
          score: r.score,
        }))
      );

    const two = resolveScope({ scope: { type: "repos", repos: ["alpha", "gamma"] } }, opts)!;
    const merged = await searchScope(deps, two, { query: "rate limiter", topK: 5 }, searchOneRepo);
    const union = own(["alpha", "gamma"], "rate limiter", 5);
    assert.ok(union.filter((u) => u.repo === "alpha").length > 0 && union.some((u) => u.repo === "gamma"));
    // The merge is the best 5 of the union by score (ties: scope order, path, line).
    const best = [...union].sort((a, b) =>
      b.score - a.score || a.order - b.order || a.path.localeCompare(b.path) || a.line_start - b.line_start
    ).slice(0, 5);
    assert.deepEqual(merged.results.map(key), best.map(key));
    assert.deepEqual(merged.results.map((r) => r.score), best.map((r) => r.score));
    for (const r of merged.results) assert.ok(r.score >= 0 && r.score <= 1, `score ${r.score}`);

    // An `all` scope caps each repository at half of topK while the others have hits. alpha gets more
    // rate limiters so that, uncapped, it would take most of the slots.
    for (const n of ["a", "b", "c", "d"]) {
      Deno.writeTextFileSync(
        join(h.dirs.alpha, `src/rate_limiter_${n}.ts`),
        `/** Rate limiter ${n}: a token bucket rate limiter. */\nexport function rateLimiter${n.toUpperCase()}(n: number) {\n  return n;\n}\n`,
      );
    }
    const synced = await h.runner.start(h.projects.alpha, { mode: "incremental", force: false }).active.done;
    assert.equal(synced.status, "published");
    readers.invalidate(h.projects.alpha.project_id);
    const all = resolveScope({ scope: { type: "all" } }, opts)!;
    const query = "rate limiter";
    const uncapped = mergeRanked(
      ["alpha", "beta", "gamma"].map((repo) => ({
        repo,
        hits: own([repo], query, 4).map((r) => ({ ...r, line_end: r.line_start })),
      })),
      4,
    );
    const perUncapped = new Map<string, number>();
    for (const r of uncapped) perUncapped.set(r.repo, (perUncapped.get(r.repo) ?? 0) + 1);
    assert.ok([...perUncapped.values()].some((n) => n > 2), "this query needs the cap: " + JSON.stringify(uncapped));
    const capped = await searchScope(deps, all, { query, topK: 4 }, searchOneRepo);
    const per = new Map<string, number>();
    for (const r of capped.results) per.set(r.repo, (per.get(r.repo) ?? 0) + 1);
    assert.equal(capped.results.length, 4);
    assert.ok([...per.values()].every((n) => n <= 2), JSON.stringify(capped.results.map((r) => r.repo)));
    for (let i = 1; i < capped.results.length; i++) assert.ok(capped.results[i - 1].score >= capped.results[i].score);
  } finally {
    readers.closeAll();
    h.close();
  }
});
