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

type Json = Record<string, unknown>;

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
    assert.ok(size(compact) < 0.6 * size(full), `${size(compact)} vs ${size(full)}`);
    const c = bodyOf(compact);
    assert.equal(c.path, "auth/jwt.go");
    assert.equal(c.language, "go");
    let nodes = 0;
    walk(c.symbols as Json[], (n) => {
      nodes++;
      for (const k of ["path", "language", "symbol_id", "symbol_stable_id"]) {
        assert.ok(!(k in n), `${k} in ${JSON.stringify(n)}`);
      }
      assert.ok(typeof n.name === "string" && typeof n.line_start === "number" && typeof n.line_end === "number");
      if ("children" in n) assert.ok((n.children as Json[]).length > 0, "no empty children lists");
    });
    walk(bodyOf(full).symbols as Json[], (n) => {
      nodes--;
      for (const k of ["path", "language", "symbol_id", "symbol_stable_id", "qualified_name", "children"]) {
        assert.ok(k in n, k);
      }
    });
    assert.equal(nodes, 0, "the same symbols either way");
    // A top-level symbol keeps its qualified name; a member's is its parent's plus its name.
    const claims = (c.symbols as Json[]).find((n) => n.name === "Claims")!;
    assert.equal(claims.qualified_name, "auth.Claims");
    assert.ok(!("qualified_name" in (claims.children as Json[])[0]));

    // Retrieval results keep every handle the protocol promises.
    const search = bodyOf(await h.call("search_code", { workspace: repo, query: "rate limit" }));
    const hit = (search.results as Json[])[0];
    for (const k of ["result_id", "result_type", "symbol_id", "symbol_stable_id", "path", "line_start", "score"]) {
      assert.ok(k in hit, k);
    }
    const loc = bodyOf(await h.call("locate_symbol", { workspace: repo, name: "ValidateToken" }));
    assert.match((loc.results as Json[])[0].symbol_stable_id as string, /^b3:/);

    // Related symbols: no empty handles, no stable ids, yet every row says where it is.
    const rel = bodyOf(await h.call("find_related_symbols", { workspace: repo, symbol_name: "ValidateToken" }));
    for (const r of rel.related as Json[]) {
      assert.ok(!("symbol_stable_id" in r) && r.symbol_id !== "" && r.resolved_path !== null, JSON.stringify(r));
      assert.ok(typeof r.path === "string" && typeof r.line_start === "number");
    }
    const bad = await h.call("get_file_outline", { workspace: repo, path: "auth/jwt.go", verbose: "yes" });
    assert.equal(bad.isError, true);
  } finally {
    h.close();
    Deno.removeSync(repo, { recursive: true });
  }
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
    const elided = def.elided_lines as [number, number][];
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
