/**
 * diff_context and compare_symbol_between_commits over two real indexes:
 * two versions of a small repository (tests/helpers/two_versions.ts) indexed
 * into two stores by the indexer, compared through the query functions.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { V1, V2, writeFiles } from "./helpers/two_versions.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import type { RefView } from "../src/state/read/ref_view.ts";
import { diffContext } from "../src/query/diff_context.ts";
import { compareSymbol } from "../src/query/compare_symbol.ts";
import { compareRefs, diffRefs } from "../src/service/ref_compare.ts";
import type { RefSource } from "../src/service/ref_views.ts";
import { diffLinesForPeople } from "../src/cli/tool_views.ts";
import { CruxeError } from "../src/core/errors.ts";
import { jsonTokens, METADATA_TOKENS } from "../src/query/_token_estimate.ts";

async function rejectsCode(p: Promise<unknown>, code: string): Promise<CruxeError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof CruxeError, `expected CruxeError ${code}, got ${e}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}, nothing was thrown`);
}

Deno.test("diff_context and compare_symbol between two indexed versions", async (t) => {
  const h = tempHome();
  const readers = new IndexReaders(h.registry);
  try {
    const v1 = writeFiles(Deno.makeTempDirSync({ prefix: "cruxe-v1-" }), V1);
    const v2 = writeFiles(Deno.makeTempDirSync({ prefix: "cruxe-v2-" }), V2);
    const a = await indexDir(h, v1), b = await indexDir(h, v2);
    assert.equal(a.status, "published");
    assert.equal(b.status, "published");
    const base: RefView = { db: requireIndex(readers.view(a.project)), label: "v1", commitId: null };
    const head: RefView = { db: requireIndex(readers.view(b.project)), label: "v2", commitId: null };

    await t.step("every kind of change is found and classified", async () => {
      const r = await diffContext(base, head, { max_tokens: 20000 });
      assert.equal(r.truncated, false);
      const by = new Map(r.changes.map((c) => [c.qualified_name, c]));
      const renamed = by.get("math.sumPrices");
      assert.equal(renamed?.status, "renamed");
      assert.equal(renamed?.name_before, "computeTotal");
      assert.equal(renamed?.body_changed, false);
      const scale = by.get("math.scale");
      assert.equal(scale?.status, "modified");
      assert.equal(scale?.signature_changed, true);
      assert.match(scale!.signature_before!, /scale\(x: number\)/);
      assert.match(scale!.signature_after!, /factor: number/);
      const clamp = by.get("math.clamp");
      assert.equal(clamp?.status, "modified");
      assert.equal(clamp?.signature_changed, false);
      assert.equal(clamp?.body_changed, true);
      assert.match(clamp!.diff!, /^@@ -14,5 \+14,3 @@/);
      assert.match(clamp!.diff!, /^- {2}if \(x < lo\) return lo;$/m);
      assert.match(clamp!.diff!, /^\+ {2}return Math\.min\(hi, Math\.max\(lo, x\)\);$/m);
      assert.equal(clamp!.lines_added, 1);
      assert.equal(clamp!.lines_removed, 3);
      // A changed method, not its class.
      assert.equal(by.get("geo.Point.norm")?.status, "modified");
      assert.equal(by.has("geo.Point"), false, "the class changed only inside a member");
      // Deleted module and added module.
      assert.equal(by.get("legacy.oldWay")?.status, "removed");
      assert.equal(by.get("legacy.oldWay")?.path_before, "src/legacy.ts");
      assert.equal(by.get("fresh.freshStart")?.status, "added");
      assert.match(by.get("fresh.freshStart")!.diff!, /^\+export function freshStart/m);
      // The moved-and-edited file: its changed function is listed as moved with its body change.
      const load = by.get("config.loadConfig");
      assert.equal(load?.status, "moved");
      assert.equal(load?.path_before, "src/config.ts");
      assert.equal(load?.path, "src/settings/config.ts");
      assert.equal(load?.body_changed, true);
      // Unchanged symbols of moved files are covered by the file move.
      const names = r.changes.map((c) => c.name);
      for (const quiet of ["shout", "whisper", "describeConfig", "flip", "Point", "price", "quantity", "Circle"]) {
        assert.equal(names.includes(quiet), false, `${quiet} should not be listed`);
      }
      const files = new Map(r.files.map((f) => [f.path, f]));
      assert.deepEqual(files.get("src/text/strings.ts"), {
        path: "src/text/strings.ts",
        status: "moved",
        path_before: "src/util/strings.ts",
        language: files.get("src/text/strings.ts")?.language,
      });
      assert.equal(files.get("src/settings/config.ts")?.status, "moved");
      assert.equal(files.get("db/schema.sql")?.status, "modified", "a changed file with no symbols is listed");
      assert.equal(files.has("src/math.ts"), false, "a file with listed symbol changes is not repeated");
      assert.deepEqual(r.summary, {
        files_added: 1,
        files_removed: 1,
        files_modified: 3,
        files_moved: 2,
        symbols_added: 1,
        symbols_removed: 1,
        symbols_modified: 3,
        symbols_moved: 1,
        symbols_renamed: 1,
      });
      // Ranking: signature changes and removals first.
      assert.ok(["scale", "oldWay"].includes(r.changes[0].name), r.changes[0].name);
    });

    await t.step("the CLI's human listing of a diff", async () => {
      const lines = diffLinesForPeople(await diffContext(base, head, { max_tokens: 20000 }));
      assert.equal(lines[0], "base v1 (working tree) → head v2 (working tree)");
      assert.match(lines[1], /^files: 3 modified, 1 added, 1 removed, 2 moved; symbols: 3 modified/);
      const at = lines.findIndex((l) => l.startsWith("M math.scale  src/math.ts:10"));
      assert.ok(at > 0, lines.join("\n"));
      assert.deepEqual(lines.slice(at + 1, at + 3), [
        "    signature: function scale(x: number): number",
        "           →   function scale(x: number, factor: number): number",
      ]);
      assert.ok(lines.includes("R math.sumPrices  src/math.ts:1  (was computeTotal)  +1 -1"));
      assert.ok(lines.includes("D legacy.oldWay  src/legacy.ts:1  +0 -3"));
      assert.ok(lines.includes("V src/text/strings.ts  (from src/util/strings.ts)  [file]"));
      assert.ok(lines.some((l) => l.startsWith("    @@ -14,5 +14,3 @@")));
    });

    await t.step("path_prefix narrows the comparison", async () => {
      const r = await diffContext(base, head, { path_prefix: "src/math.ts" });
      assert.deepEqual(r.changes.map((c) => c.name).sort(), ["clamp", "scale", "sumPrices"]);
      assert.equal(r.files.length, 0);
      await rejectsCode(diffContext(base, head, { path_prefix: "../etc" }), "invalid_input");
    });

    await t.step("the budget bounds the whole answer and says what was cut", async () => {
      const full = await diffContext(base, head, { max_tokens: 20000 });
      for (const max of [400, 600, 900]) {
        const r = await diffContext(base, head, { max_tokens: max });
        const sent = jsonTokens(r, METADATA_TOKENS);
        assert.ok(sent <= max, `max ${max}: answer is ${sent} tokens`);
        assert.equal(r.truncated, true);
        assert.ok(r.truncation_note);
        assert.ok(r.omitted.changes + r.omitted.files + r.omitted.diffs_cut > 0);
        assert.equal(r.changes.length + r.omitted.changes, full.changes.length);
      }
      await rejectsCode(diffContext(base, head, { max_tokens: -5 }), "invalid_max_tokens");
      // Too small for even the summary: refused with the size needed, never an answer over budget.
      const tiny = await rejectsCode(diffContext(base, head, { max_tokens: 100 }), "invalid_max_tokens");
      assert.ok((tiny.data.needed as number) > 100);
      await rejectsCode(diffContext(base, head, { max_tokens: 1.5 }), "invalid_max_tokens");
    });

    await t.step("past the compared-files bound, files are listed only and the answer is partial", async () => {
      const full = await diffContext(base, head, { max_tokens: 20000 });
      const capped = await diffContext(base, head, { max_tokens: 20000, max_compared_files: 2 });
      assert.equal(capped.summary.files_modified, full.summary.files_modified);
      // A moved-and-edited file is only recognised by comparing symbols: uncompared, it is a removal and an addition.
      assert.equal(capped.summary.files_moved, 1);
      assert.ok((capped.files_not_compared ?? 0) > 0);
      assert.deepEqual(capped.meta, { result_completeness: "partial" });
      assert.ok(capped.changes.length < full.changes.length);
      // Every file left uncompared is listed.
      const listed = new Set(capped.files.map((f) => f.path));
      const touched = new Set(capped.changes.flatMap((c) => [c.path, c.path_before]));
      for (const f of full.files) assert.ok(listed.has(f.path) || touched.has(f.path), f.path);
      assert.equal(full.files_not_compared, undefined);
    });

    await t.step("the same index on both sides has no changes", async () => {
      const r = await diffContext(head, head, {});
      assert.deepEqual([r.changes, r.files, r.truncated], [[], [], false]);
    });

    await t.step(
      "by ref name: an indexed ref's view comes from the source's indexedRef, else ref_not_indexed",
      async () => {
        const src: RefSource = {
          project: b.project,
          working: () => readers.view(b.project),
          indexedRef: (ref) => Promise.resolve(ref === "v1" ? base : null),
        };
        const direct = await diffContext(base, head, {});
        const byName = await diffRefs(src, { base_ref: "v1" });
        assert.deepEqual(byName.changes.map((c) => c.name), direct.changes.map((c) => c.name));
        assert.equal(byName.base.ref, "v1");
        assert.equal(byName.head.commit_id, null, "no head_ref: the working tree");
        const cmp = await compareRefs(src, { symbol_name: "scale", base_ref: "v1" });
        assert.equal(cmp.status, "modified");
        const missing = await rejectsCode(diffRefs(src, { base_ref: "v0" }), "ref_not_indexed");
        assert.equal((missing.data.fix as { tool: string }).tool, "index_repo");
        await rejectsCode(diffRefs(src, { base_ref: "--output=x" }), "invalid_input");
        await rejectsCode(diffRefs(src, { base_ref: undefined }), "invalid_input");
      },
    );

    await t.step("compare_symbol: renamed, modified, moved, added, removed, unchanged", async () => {
      const ren = await compareSymbol(base, head, { symbol_name: "sumPrices" });
      assert.equal(ren.status, "renamed");
      assert.equal(ren.name_before, "computeTotal");
      const renFromOld = await compareSymbol(base, head, { symbol_name: "computeTotal" });
      assert.equal(renFromOld.status, "renamed");
      assert.equal(renFromOld.name, "sumPrices");
      const sc = await compareSymbol(base, head, { symbol_name: "scale" });
      assert.equal(sc.status, "modified");
      assert.equal(sc.signature_changed, true);
      assert.match(sc.diff!, /^\+ {2}return x \* factor;$/m);
      const mv = await compareSymbol(base, head, { symbol_name: "shout" });
      assert.equal(mv.status, "moved");
      assert.equal(mv.path_before, "src/util/strings.ts");
      assert.equal(mv.path, "src/text/strings.ts");
      assert.equal(mv.body_changed, false);
      assert.equal((await compareSymbol(base, head, { symbol_name: "freshStart" })).status, "added");
      const gone = await compareSymbol(base, head, { symbol_name: "oldWay" });
      assert.equal(gone.status, "removed");
      assert.equal(gone.diff, undefined);
      const same = await compareSymbol(base, head, { symbol_name: "Point.flip" });
      assert.equal(same.status, "unchanged");
      assert.equal(same.diff, undefined);
      const byId = await compareSymbol(base, head, { symbol_id: sc.symbol_id });
      assert.equal(byId.name, "scale");
    });

    await t.step("compare_symbol: unknown and ambiguous names, bad input", async () => {
      const nf = await rejectsCode(compareSymbol(base, head, { symbol_name: "noSuchThing" }), "symbol_not_found");
      assert.ok(Array.isArray(nf.data.suggestions));
      await rejectsCode(compareSymbol(base, head, {}), "invalid_input");
      await rejectsCode(compareSymbol(base, head, { symbol_name: "x", symbol_id: "y" }), "invalid_input");
      await rejectsCode(compareSymbol(base, head, { symbol_name: "   " }), "invalid_input");
      await rejectsCode(
        compareSymbol(base, head, { symbol_name: "loadConfig", path: "src/nope.ts" }),
        "file_not_found",
      );
      // `norm` is a method of Point and of Circle: ambiguous without a path or a qualified name.
      const amb = await rejectsCode(compareSymbol(base, head, { symbol_name: "norm" }), "ambiguous_symbol");
      assert.equal((amb.data.candidates as unknown[]).length, 2);
      assert.equal((await compareSymbol(base, head, { symbol_name: "Point.norm" })).status, "modified");
      assert.equal(
        (await compareSymbol(base, head, { symbol_name: "norm", path: "src/shapes.ts" })).status,
        "unchanged",
      );
    });
  } finally {
    readers.closeAll();
    h.close();
  }
});

Deno.test("diff_context: without stored text, bodies come from readFiles (batched); without either, partial", async () => {
  // Every file is over the full-text limit: the stores hold symbols but no chunks.
  const h = tempHome({ maxFullTextBytes: 10 });
  const readers = new IndexReaders(h.registry);
  try {
    const v1 = writeFiles(Deno.makeTempDirSync({ prefix: "cruxe-v1-" }), V1);
    const v2 = writeFiles(Deno.makeTempDirSync({ prefix: "cruxe-v2-" }), V2);
    const a = await indexDir(h, v1), b = await indexDir(h, v2);
    const reads: string[][] = [];
    const reader = (root: string) => async (paths: readonly string[]) => {
      reads.push([...paths]);
      const out = new Map<string, Uint8Array>();
      for (const p of paths) out.set(p, await Deno.readFile(join(root, p)));
      return out;
    };
    const bare = (p: typeof a.project, label: string): RefView => ({
      db: requireIndex(readers.view(p)),
      label,
      commitId: null,
    });
    const withFiles = await diffContext(
      { ...bare(a.project, "v1"), readFiles: reader(v1) },
      { ...bare(b.project, "v2"), readFiles: reader(v2) },
      { max_tokens: 20000 },
    );
    assert.ok(reads.flat().includes("src/math.ts"), "the file was read because the store lacks its text");
    // A side reads at most twice: files of equal line counts (to compare their text), then the rest compared.
    assert.ok(reads.length <= 4, `batched reads: ${JSON.stringify(reads)}`);
    assert.equal(withFiles.text_unavailable, undefined);
    assert.equal(withFiles.meta, undefined);
    const clamp = withFiles.changes.find((c) => c.name === "clamp");
    assert.equal(clamp?.status, "modified");
    assert.match(clamp!.diff!, /^\+ {2}return Math\.min/m);

    const without = await diffContext(bare(a.project, "v1"), bare(b.project, "v2"), { max_tokens: 20000 });
    assert.ok(without.text_unavailable?.includes("src/math.ts"));
    assert.deepEqual(without.meta, { result_completeness: "partial" });
    // Signatures are still compared.
    assert.equal(without.changes.find((c) => c.name === "scale")?.signature_changed, true);
  } finally {
    readers.closeAll();
    h.close();
  }
});
