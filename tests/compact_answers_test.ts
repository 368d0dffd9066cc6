/**
 * Compact answers by default, every field with `verbose: true`; a body cut
 * to the budget keeps the lines that answer the query and says what it left
 * out.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bodyOf, inProcess } from "./mcp_helpers.ts";
import { copyFixture } from "./helpers/fixture_repo.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { cutAroundMatches, queryStems } from "../src/query/_cut_around_matches.ts";
import { COMPACT_SNIPPET_LINE_CHARS, shortSnippet } from "../src/service/compact.ts";

type Json = Record<string, unknown>;

const VALIDATE_SIG = "func ValidateToken(token string) (*Claims, error)";

function walk(nodes: Json[], f: (n: Json) => void): void {
  for (const n of nodes) {
    f(n);
    walk((n.children as Json[] | undefined) ?? [], f);
  }
}

Deno.test("query tools answer compactly by default and in full with verbose: true", async () => {
  const repo = copyFixture("go_basic");
  const h = inProcess();
  try {
    registerProject(h.registry, repo);
    await h.call("index_repo", { workspace: repo, wait: true });
    const size = (r: { content: { text: string }[] }) => new TextEncoder().encode(r.content[0].text).length;

    const full = await h.call("get_file_outline", { workspace: repo, path: "auth/jwt.go", verbose: true });
    const compact = await h.call("get_file_outline", { workspace: repo, path: "auth/jwt.go" });
    assert.ok(size(compact) <= 0.5 * size(full), `${size(compact)} vs ${size(full)}`);
    const c = bodyOf(compact);
    assert.equal(c.path, "auth/jwt.go");
    assert.equal(c.language, "go");
    assert.ok(!("depth" in c) && !("truncated" in c), "inputs at their default and false flags are left out");
    let nodes = 0;
    walk(c.symbols as Json[], (n) => {
      nodes++;
      for (const k of ["path", "language", "symbol_id", "symbol_stable_id"]) {
        assert.ok(!(k in n), `${k} in ${JSON.stringify(n)}`);
      }
      assert.ok(typeof n.name === "string" && typeof n.kind === "string" && typeof n.line_start === "number");
      assert.ok(
        !("line_end" in n) || (n.line_end as number) > (n.line_start as number),
        "line_end only when it says more",
      );
      if ("children" in n) assert.ok((n.children as Json[]).length > 0, "no empty children lists");
    });
    walk(bodyOf(full).symbols as Json[], (n) => {
      nodes--;
      for (const k of ["path", "language", "symbol_id", "symbol_stable_id", "qualified_name", "children", "line_end"]) {
        assert.ok(k in n, k);
      }
    });
    assert.equal(nodes, 0, "the same symbols either way");
    const claims = (c.symbols as Json[]).find((n) => n.name === "Claims")!;
    // "auth.Claims" is the package (directory) name plus the name: said by the path already; a member's
    // qualified name is its parent's plus its name; a signature that only repeats kind and name goes.
    assert.ok(!("qualified_name" in claims) && !("signature" in claims), JSON.stringify(claims));
    assert.ok(!("qualified_name" in (claims.children as Json[])[0]));
    assert.equal((c.symbols as Json[]).find((n) => n.name === "ValidateToken")!.signature, VALIDATE_SIG);
    // The follow-up an outline node feeds: its name (qualified by its parent) with the outline's path.
    const expired = (claims.children as Json[]).find((n) => n.name === "Expired")!;
    const viaOutline = bodyOf(
      await h.call("get_symbol_hierarchy", { workspace: repo, symbol_name: "Claims.Expired", path: c.path }),
    );
    assert.equal((viaOutline.symbol as Json).line_start, expired.line_start);

    // Retrieval results keep the protocol's handles: a symbol its symbol_id and symbol_stable_id
    // (its result_id is its symbol_id), anything else its result_id (whose prefix says its type).
    const search = bodyOf(await h.call("search_code", { workspace: repo, query: "rate limit" }));
    const verboseSearch = bodyOf(await h.call("search_code", { workspace: repo, query: "rate limit", verbose: true }));
    assert.equal(search.language, "go", "the shared language is said once");
    const hits = search.results as Json[];
    assert.equal(hits.length, (verboseSearch.results as Json[]).length);
    hits.forEach((hit, i) => {
      const v = (verboseSearch.results as Json[])[i];
      for (const k of ["path", "line_start", "line_end", "score", "snippet"]) assert.ok(k in hit, k);
      assert.ok(!("language" in hit) && !("result_type" in hit), JSON.stringify(hit));
      if (v.result_type === "symbol") {
        assert.equal(hit.symbol_id, v.result_id);
        assert.match(hit.symbol_stable_id as string, /^b3:/);
      } else assert.equal(hit.result_id, v.result_id);
      for (const k of ["result_id", "result_type", "language", "qualified_name"]) assert.ok(k in v, k);
      assert.ok((hit.snippet as string).split("\n").length <= 3, "a short snippet");
      // The best matched line only, its number kept and its text the file's line without indentation.
      const best = (v.match_lines as { line: number; text: string }[])[0];
      assert.deepEqual(hit.match_lines, [{ line: best.line, text: best.text.trimStart() }]);
    });
    // The follow-ups a hit feeds: explain_ranking by its handle, open_file by its path and lines.
    const top = hits[0];
    const why = bodyOf(
      await h.call("explain_ranking", {
        workspace: repo,
        query: "rate limit",
        result_id: (top.result_id ?? top.symbol_id) as string,
      }),
    );
    assert.equal(why.rank, 1);
    const opened = await h.call("open_file", {
      workspace: repo,
      path: top.path,
      startLine: top.line_start,
      endLine: top.line_end,
    });
    assert.ok(!opened.isError, JSON.stringify(bodyOf(opened)));

    const loc = bodyOf(await h.call("locate_symbol", { workspace: repo, name: "ValidateToken" }));
    const def = (loc.results as Json[])[0];
    assert.match(def.symbol_id as string, /^sym_/);
    assert.match(def.symbol_stable_id as string, /^b3:/);
    assert.equal(def.signature, VALIDATE_SIG);
    assert.equal(def.match_tier, "exact");

    // Related symbols: no handles, no repeated path; name (or qualified name) with path resolves each one.
    const rel = bodyOf(await h.call("find_related_symbols", { workspace: repo, symbol_name: "ValidateToken" }));
    const sym = rel.symbol as Json;
    assert.match(sym.symbol_id as string, /^sym_/, "the symbol asked about keeps its handle");
    const related = rel.related as Json[];
    assert.ok(related.length > 3);
    const listed = new Set<string>();
    for (const r of related) {
      assert.ok(!("symbol_id" in r) && !("symbol_stable_id" in r) && !("resolved_path" in r), JSON.stringify(r));
      assert.ok(typeof r.name === "string" && typeof r.line_start === "number", JSON.stringify(r));
      if (r.relation === "imports") continue;
      const key = `${r.path ?? sym.path}:${r.line_start}`;
      assert.ok(!listed.has(key), `${key} listed twice`);
      listed.add(key);
      const got = bodyOf(
        await h.call("get_symbol_hierarchy", {
          workspace: repo,
          symbol_name: r.qualified_name ?? r.name,
          path: r.path ?? sym.path,
        }),
      );
      assert.equal((got.symbol as Json).line_start, r.line_start, JSON.stringify(r));
    }
    assert.ok(related.some((r) => r.path === "auth/rate_limiter.go"), "another file's symbol says its path");

    // Hierarchy: ancestors by name and lines; the symbol's qualified name is spelled by them.
    const hier = bodyOf(await h.call("get_symbol_hierarchy", { workspace: repo, symbol_name: "CheckRateLimit" }));
    assert.deepEqual((hier.containment as Json[]).map((n) => n.name), ["RateLimiter", "auth"]);
    assert.equal((hier.containment as Json[])[0].line_start, 4);
    assert.ok(!("qualified_name" in (hier.symbol as Json)) && !("direction" in hier) && !("type_hierarchy" in hier));
    const hierFull = bodyOf(
      await h.call("get_symbol_hierarchy", { workspace: repo, symbol_name: "CheckRateLimit", verbose: true }),
    );
    assert.equal((hierFull.symbol as Json).qualified_name, "auth.RateLimiter.CheckRateLimit");
    assert.deepEqual(hierFull.type_hierarchy, []);

    // Context items keep the handle of the symbol they show.
    const ctx = bodyOf(await h.call("get_code_context", { workspace: repo, query: "ValidateToken", max_tokens: 400 }));
    const ctxDef = (ctx.items as Json[]).find((i) => i.name === "ValidateToken")!;
    assert.match(ctxDef.symbol_id as string, /^sym_/);
    assert.ok(!("query" in ctx) && !("token_estimator" in ctx));

    const bad = await h.call("get_file_outline", { workspace: repo, path: "auth/jwt.go", verbose: "yes" });
    assert.equal(bad.isError, true);
  } finally {
    h.close();
    Deno.removeSync(repo, { recursive: true });
  }
});

Deno.test("shortSnippet keeps the first lines without their common indentation and cuts long lines", () => {
  const long = "x".repeat(COMPACT_SNIPPET_LINE_CHARS + 10);
  assert.equal(shortSnippet("\t\tif ok {\n\t\t\treturn\n\t\t}\n"), "if ok {\n\treturn\n…");
  assert.equal(shortSnippet(`  ${long}`), `${"x".repeat(COMPACT_SNIPPET_LINE_CHARS)}…`);
  assert.equal(shortSnippet("one line"), "one line");
});

Deno.test("get_code_context cuts a long body around the lines that match, listing the elided lines", async () => {
  const repo = copyFixture("go_basic");
  const filler = Array.from({ length: 70 }, (_, i) => `\tsteps = append(steps, "step ${i}")`).join("\n");
  Deno.writeTextFileSync(
    join(repo, "auth", "session.go"),
    `package auth\n\n// RotateSessionKeys rotates keys.\nfunc RotateSessionKeys(steps []string) []string {\n${filler}\n` +
      `\tsteps = purgeExpiredSessionKeys(steps) // the expired session keys are purged here\n\treturn steps\n}\n\n` +
      `func purgeExpiredSessionKeys(s []string) []string { return s }\n`,
  );
  const h = inProcess();
  try {
    registerProject(h.registry, repo);
    await h.call("index_repo", { workspace: repo, wait: true });
    const r = bodyOf(
      await h.call("get_code_context", {
        workspace: repo,
        query: "where are expired session keys purged in RotateSessionKeys",
        max_tokens: 300,
      }),
    );
    const items = r.items as Json[];
    const def = items.find((i) => i.name === "RotateSessionKeys")!;
    assert.ok(def, JSON.stringify(items.map((i) => i.name)));
    assert.equal(def.content_truncated, true);
    const content = def.content as string;
    assert.match(content, /^func RotateSessionKeys/, "the signature stays");
    assert.match(content, /purgeExpiredSessionKeys\(steps\)/, "the matching line is kept");
    // The compact answer says what was left out in the content; the verbose one lists it too.
    assert.ok(!("elided_lines" in def));
    const full = bodyOf(
      await h.call("get_code_context", {
        workspace: repo,
        query: "where are expired session keys purged in RotateSessionKeys",
        max_tokens: 300,
        verbose: true,
      }),
    );
    const fullDef = (full.items as Json[]).find((i) => i.name === "RotateSessionKeys")!;
    assert.equal(fullDef.content, content);
    const elided = fullDef.elided_lines as [number, number][];
    assert.ok(elided.length > 0);
    for (const [a, b] of elided) assert.ok(content.includes(`⋯ lines ${a}-${b} elided`), `${a}-${b}`);
    assert.ok((r.estimated_tokens as number) <= 300);
    // The budget bounds the whole answer the agent reads, metadata included (and the verbose form too).
    assert.ok(Math.ceil(JSON.stringify(r).length / 4) <= 300, `answer of ${JSON.stringify(r).length} chars`);
    // The counts are true: every definition item is a candidate included, never more than were found.
    const defs = items.filter((i) => i.role === "definition" || i.role === "snippet").length;
    assert.ok(
      (r.included_candidates as number) >= defs && (r.included_candidates as number) <= (r.total_candidates as number),
    );
  } finally {
    h.close();
    Deno.removeSync(repo, { recursive: true });
  }
});

Deno.test("cutAroundMatches keeps the first line and matches within the budget; queryStems drops filler words", () => {
  assert.deepEqual(queryStems("how are expired sessionKeys purged"), ["expir", "session", "keys", "purg"]);
  const lines = ["fn f() {", ...Array.from({ length: 40 }, (_, i) => `  x${i}();`), "  purgeAll();", "}"];
  const cut = cutAroundMatches(lines, 10, ["purg"], 40);
  const out = cut.content.split("\n");
  assert.equal(out[0], "fn f() {");
  assert.ok(out.includes("  purgeAll();"));
  assert.ok(Math.ceil(cut.content.length / 4) <= 40 + 4);
  assert.ok(cut.elided.length >= 1 && cut.elided[0][0] > 10);
  const untouched = cutAroundMatches(["a", "b"], 1, ["zzz"], 100);
  assert.deepEqual(untouched, { content: "a\nb", elided: [] });
});
