import assert from "node:assert/strict";
import { join } from "node:path";
import { copyFixture, indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { MAX_LIMIT, searchCode } from "../src/query/search_code.ts";
import { MAX_QUERY_CHARS } from "../src/query/_input_rules.ts";
import { CruxeError } from "../src/core/errors.ts";
import { ndcgAt, recallAt, reciprocalRank } from "../scripts/eval/metrics.ts";

function assertInvalid(fn: () => unknown, field?: string) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof CruxeError, `expected CruxeError, got ${e}`);
    assert.equal(e.code, "invalid_input");
    if (field) assert.equal(e.data.field, field);
    return true;
  });
}

Deno.test("eval metrics follow the benchmark rules", () => {
  const t = ["a/x.py", { path: "b.py", start_line: 10, end_line: 20 }];
  // Two results of the same file: the second gains nothing.
  const dup = [{ path: "src/a/x.py" }, { path: "a/x.py" }, { path: "b.py", line_start: 15, line_end: 30 }];
  const ideal = 1 + 1 / Math.log2(3);
  assert.equal(ndcgAt(dup, t), (1 + 1 / Math.log2(4)) / ideal);
  // A line target needs overlapping lines; a result without lines matches on path.
  assert.equal(recallAt([{ path: "b.py", line_start: 1, line_end: 5 }], t, 5), 0);
  assert.equal(recallAt([{ path: "b.py" }], t, 5), 0.5);
  assert.equal(reciprocalRank([{ path: "c.py" }, { path: "y.py" }], t), 0);
  assert.equal(reciprocalRank([{ path: "c.py" }, { path: "q/a/x.py" }], t), 0.5);
});

Deno.test("search_code over a fixture repository", async (t) => {
  const h = tempHome();
  const readers = new IndexReaders(h.registry);
  try {
    const { project, status } = await indexDir(h, copyFixture("search_basic"));
    assert.equal(status, "published");
    const db = requireIndex(readers.view(project));

    await t.step("`rate limit` finds checkRateLimit and rate_limiter.go first", () => {
      const r = searchCode(db, { query: "rate limit" });
      assert.equal(r.query_intent, "natural_language");
      const top2 = r.results.slice(0, 2).map((x) => x.path).sort();
      assert.deepEqual(top2, ["middleware/rate_limiter.go", "src/limits/rateLimit.ts"]);
      const ts = r.results.find((x) => x.path === "src/limits/rateLimit.ts")!;
      assert.equal(ts.name, "checkRateLimit");
      assert.ok(ts.symbol_id && ts.symbol_stable_id);
      assert.ok(ts.snippet.includes("checkRateLimit"));
    });

    await t.step("a symbol query leads with the definition", () => {
      const r = searchCode(db, { query: "SessionStore" });
      assert.equal(r.query_intent, "symbol");
      const top = r.results[0];
      assert.equal(top.name, "SessionStore");
      assert.equal(top.kind, "class");
      assert.equal(top.result_type, "symbol");
      assert.equal(top.path, "server/sessions.py");
      assert.equal(top.line_start, 6);
      assert.ok(top.symbol_id?.startsWith("sym_") && top.result_id === top.symbol_id);
    });

    await t.step("a qualified name narrows to the right definition", () => {
      const r = searchCode(db, { query: "RateLimiter.Allow" });
      assert.equal(r.query_intent, "symbol");
      assert.equal(r.results[0].path, "middleware/rate_limiter.go");
      assert.equal(r.results[0].name, "Allow");
      assert.equal(r.results[0].line_start, 26);
    });

    await t.step("a path query leads with the file", () => {
      const r = searchCode(db, { query: "middleware/rate_limiter.go" });
      assert.equal(r.query_intent, "path");
      assert.equal(r.results[0].path, "middleware/rate_limiter.go");
      assert.equal(r.results[0].result_type, "file");
      assert.ok(r.results[0].result_id.startsWith("file_"));
      const bare = searchCode(db, { query: "loader.go" });
      assert.equal(bare.results[0].path, "config/loader.go");
    });

    await t.step("an error string finds the line that raises it", () => {
      for (const q of ['"invalid session token"', "ValueError: invalid session token: expired"]) {
        const r = searchCode(db, { query: q });
        assert.equal(r.query_intent, "error", q);
        const top = r.results[0];
        assert.equal(top.path, "server/sessions.py", q);
        assert.equal(top.line_start, 24, q);
        assert.equal(top.line_end, 24, q);
        assert.equal(top.name, "lookup", q);
        assert.ok(top.snippet.includes('raise ValueError("invalid session token: expired")'), q);
      }
      const go = searchCode(db, { query: '"config file not found"' });
      assert.equal(go.results[0].path, "config/loader.go");
      assert.equal(go.results[0].line_start, 18);
    });

    await t.step("tests rank below the code they test unless asked for", () => {
      const r = searchCode(db, { query: "session store lookup" });
      assert.equal(r.results[0].path, "server/sessions.py");
      const withTests = searchCode(db, { query: "session store lookup test", limit: 5 });
      assert.ok(withTests.results.some((x) => x.path === "server/sessions_test.py"));
    });

    await t.step("results are merged, scored 0..1 in order, and explained only on request", () => {
      for (const q of ["rate limit", "SessionStore", "session", "parse cookie header", "Allow"]) {
        const r = searchCode(db, { query: q, limit: 20 });
        for (let i = 0; i < r.results.length; i++) {
          const a = r.results[i];
          assert.ok(a.score >= 0 && a.score <= 1, `${q}: score ${a.score}`);
          assert.equal(a.ranking_reasons, undefined);
          if (i) assert.ok(r.results[i - 1].score >= a.score, `${q}: order`);
          for (const b of r.results.slice(i + 1)) {
            const nested = a.path === b.path &&
              ((a.line_start <= b.line_start && a.line_end >= b.line_end) ||
                (b.line_start <= a.line_start && b.line_end >= a.line_end));
            assert.ok(!nested, `${q}: ${a.path}:${a.line_start}-${a.line_end} and ${b.line_start}-${b.line_end}`);
          }
          assert.equal(new Set(r.results.map((x) => x.result_id)).size, r.results.length);
        }
      }
      const ex = searchCode(db, { query: "rate limit", ranking_explain_level: "full" });
      assert.ok(ex.results[0].ranking_reasons && "fused" in ex.results[0].ranking_reasons);
    });

    await t.step("filters: language and path prefix", () => {
      const go = searchCode(db, { query: "rate limit", language: "go", limit: 20 });
      assert.ok(go.results.length > 0 && go.results.every((x) => x.language === "go"));
      const alias = searchCode(db, { query: "rate limit", language: "golang", limit: 20 });
      assert.deepEqual(alias.results.map((x) => x.result_id), go.results.map((x) => x.result_id));
      const pre = searchCode(db, { query: "limit", pathPrefix: "src/", limit: 20 });
      assert.ok(pre.results.length > 0 && pre.results.every((x) => x.path.startsWith("src/")));
      const none = searchCode(db, { query: "limit", pathPrefix: "nope%_/" });
      assert.equal(none.results.length, 0);
    });

    await t.step("limit: a request for 3 of many is truncated and says how many there were", () => {
      const many = searchCode(db, { query: "limit OR session OR config OR parse", limit: 3 });
      assert.equal(many.results.length, 3);
      assert.equal(many.truncated, true);
      assert.ok(many.total_candidates > 3);
    });

    await t.step("suggested next actions are callable as-is", () => {
      const r = searchCode(db, { query: "SessionStore", ref: "main" });
      const locate = r.suggested_next_actions.find((a) => a.tool === "locate_symbol");
      assert.deepEqual(locate, { tool: "locate_symbol", name: "SessionStore", limit: 5, ref: "main" });
    });

    await t.step("bad input is invalid_input, never a crash", () => {
      assertInvalid(() => searchCode(db, { query: "" }), "query");
      assertInvalid(() => searchCode(db, { query: "   \n\t " }), "query");
      assertInvalid(() => searchCode(db, { query: undefined as unknown as string }), "query");
      assertInvalid(() => searchCode(db, { query: "x", limit: 0 }), "limit");
      assertInvalid(() => searchCode(db, { query: "x", limit: -5 }), "limit");
      assertInvalid(() => searchCode(db, { query: "x", limit: 2.5 }), "limit");
      assertInvalid(() => searchCode(db, { query: "x", limit: NaN }), "limit");
      assertInvalid(() => searchCode(db, { query: "x", language: "klingon" }), "language");
      assertInvalid(
        () => searchCode(db, { query: "x", ranking_explain_level: "loud" as unknown as "off" }),
        "ranking_explain_level",
      );
    });

    await t.step("FTS5 syntax and regex metacharacters are searched, not parsed", () => {
      const nasty = [
        '"',
        '""',
        "*",
        "rate*",
        "(",
        ")",
        "NEAR(rate limit)",
        "rate NEAR limit",
        "^rate",
        "-limit",
        "rate:limit",
        "{body}: rate",
        "a AND OR NOT b",
        "[a-z]+.*$",
        "\\",
        "'",
        "`",
        "limit -- ; DROP TABLE chunks",
        '"unterminated',
        "ValueError: 'quoted ( * ^ : -' \"",
        "\u0000 \uffff 🚀",
        "%_",
      ];
      const chunks = () => (db.prepare("SELECT count(*) AS n FROM chunks").get() as { n: number }).n;
      const before = chunks();
      assert.ok(before > 0);
      const paths = (q: string) => {
        const r = searchCode(db, { query: q });
        for (const x of r.results) assert.ok(x.score >= 0 && x.score <= 1, `${q}: score ${x.score}`);
        return r.results.map((x) => x.path);
      };
      // Operators and metacharacters are ignored; the words around them are searched as words.
      for (const q of ["rate*", "NEAR(rate limit)", "rate NEAR limit", "^rate", "rate:limit", "{body}: rate"]) {
        assert.deepEqual(paths(q).slice(0, 2).sort(), ["middleware/rate_limiter.go", "src/limits/rateLimit.ts"], q);
      }
      // `-` does not exclude and `--` comments nothing out: `limit` is still searched.
      for (const q of ["-limit", "limit -- ; DROP TABLE chunks"]) {
        assert.ok(paths(q).includes("src/limits/rateLimit.ts"), q);
      }
      // AND/OR/NOT are words, not a (malformed) boolean expression.
      assert.ok(paths("a AND OR NOT b").length > 0);
      // Nothing but punctuation, quotes, wildcards or LIKE patterns: no words, no results, no error.
      for (const q of nasty.filter((q) => !/[A-Za-z]{3}/.test(q))) assert.deepEqual(paths(q), [], JSON.stringify(q));
      assert.equal(chunks(), before, "the index is intact");
      const huge = "rate limit ".repeat(10_000) + '"' + "(".repeat(1000);
      assert.ok(huge.length > 100_000);
      const r = searchCode(db, { query: huge });
      assert.ok(r.results.length > 0);
    });
    await t.step("debug: true says each result's join status, and counts them", () => {
      const plain = searchCode(db, { query: "rate limit" });
      assert.equal(plain.debug, undefined);
      assert.ok(plain.results.every((x) => x.join_status === undefined));
      const seen = new Set<string>();
      for (const query of ["rate limit", "config/loader.go", "RateLimiter"]) {
        const r = searchCode(db, { query, debug: true });
        assert.ok(r.results.length > 0, query);
        // A result that joined its symbol's row carries the symbol's handles; one that did not has none.
        for (const x of r.results) {
          assert.equal(x.join_status, x.symbol_id ? "hit" : "miss", `${query}: ${x.path}:${x.line_start}`);
          seen.add(x.join_status!);
        }
        const hits = r.results.filter((x) => x.symbol_id).length;
        assert.deepEqual(r.debug, { join_status: { hits, misses: r.results.length - hits } });
      }
      assert.deepEqual([...seen].sort(), ["hit", "miss"]);
    });
  } finally {
    readers.closeAll();
    h.close();
  }
});

/** Runs `scripts/eval.ts` on the mini set with `home`; returns the JSON report. */
async function runEval(home: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-run=git",
      "--allow-sys",
      "scripts/eval.ts",
      "fixtures/eval/mini",
      "--home",
      home,
      "--json",
    ],
    cwd: new URL("..", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

Deno.test("the eval command scores a labelled set; its home is reused only under the same build fingerprint", async () => {
  const home = Deno.makeTempDirSync({ prefix: "cruxe-eval-test-" });
  try {
    const report = await runEval(home);
    assert.equal(report.overall.repos, 1);
    assert.equal(report.overall.queries, 4);
    assert.equal(report.per_repo[0].index_mode, "full");
    // The mini set is a smoke check of the pipeline (dataset → index → search → metrics → report), not a
    // quality claim: each score must equal the metric recomputed from the reported query outcomes.
    const qs = report.queries as { query: string; category: string; cruxe: { ndcg: number }; top: string[] }[];
    assert.equal(qs.length, 4);
    for (const q of qs) {
      assert.ok(q.cruxe.ndcg >= 0 && q.cruxe.ndcg <= 1, q.query);
      assert.ok(q.top.length > 0, `${q.query}: no results`);
    }
    const meanNdcg = qs.reduce((a, q) => a + q.cruxe.ndcg, 0) / qs.length;
    assert.ok(Math.abs(report.overall.cruxe.ndcg - meanNdcg) < 1e-9, "overall = mean over the one repository");
    assert.ok(report.overall.cruxe.ndcg > 0, "something relevant was found");
    for (const cat of ["semantic", "symbol", "error"]) assert.ok(report.per_category[cat], cat);
    const lat = report.latency_ms;
    assert.ok(lat.p50 > 0 && lat.p95 > 0 && lat.max >= lat.p95, JSON.stringify(lat));
    assert.equal(report.build_fingerprint?.length, 64, "the home is keyed on a build fingerprint");

    const again = await runEval(home);
    assert.equal(again.per_repo[0].index_mode, "incremental", "same build: the index is reused");
    assert.equal(again.build_fingerprint, report.build_fingerprint);
    // An index recorded under another build (an extractor or chunker change) is rebuilt, not reused.
    const stamps = [...Deno.readDirSync(join(home, "projects"))].map((e) => join(home, "projects", e.name));
    assert.equal(stamps.length, 1);
    Deno.writeTextFileSync(join(stamps[0], "eval_build_fingerprint"), "0".repeat(64) + "\n");
    const rebuilt = await runEval(home);
    assert.equal(rebuilt.per_repo[0].index_mode, "full", "another build: the index is rebuilt");
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("search_code limits on more than 100 matches: default 10, topK alias, clamp to 100", async () => {
  const h = tempHome();
  const readers = new IndexReaders(h.registry);
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-many-" });
  try {
    for (let i = 0; i < 130; i++) {
      Deno.writeTextFileSync(join(dir, `w${i}.py`), `def gadget_widget_${i}(x):\n    return "widget" + str(x)\n`);
    }
    const { project, status } = await indexDir(h, dir);
    assert.equal(status, "published");
    const db = requireIndex(readers.view(project));
    const dflt = searchCode(db, { query: "widget" });
    assert.ok(dflt.total_candidates > 100, `fixture must exceed the cap: ${dflt.total_candidates}`);
    assert.equal(dflt.results.length, 10, "default limit");
    assert.equal(dflt.truncated, true);
    assert.equal(searchCode(db, { query: "widget", topK: 2 }).results.length, 2, "topK alias");
    assert.equal(searchCode(db, { query: "widget", topK: 2, limit: 5 }).results.length, 5, "limit wins over topK");
    assert.equal(searchCode(db, { query: "widget", limit: 57 }).results.length, 57);
    const big = searchCode(db, { query: "widget", limit: 10_000 });
    assert.equal(big.results.length, 100, "clamped to 100");
    assert.equal(MAX_LIMIT, 100);
    // A query over MAX_QUERY_CHARS is cut and the answer says so.
    const long = searchCode(db, { query: "widget " + "gadget ".repeat(MAX_QUERY_CHARS) });
    assert.equal(long.query_truncated, true);
    assert.equal(dflt.query_truncated, false);
  } finally {
    readers.closeAll();
    h.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
