/**
 * A small ranking regression test: queries whose right answer depends on one
 * ranking rule, on a repository generated for it and on the shared fixtures,
 * so that switching a rule off fails a test and not only the evaluation.
 * Each case also shows that its rule is what decides it: with the rule off
 * (`withRanking`), the expected file is no longer first.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { copyFixture, indexDir, tempHome, withIndex } from "./helpers/fixture_repo.ts";
import { searchCode } from "../src/query/search_code.ts";
import { DEFAULT_RANKING, type RankingParams, withRanking } from "../src/query/search/ranking_params.ts";
import type { Db } from "../src/state/db.ts";

/** A repository where one file is named after the query and others say its words more often. */
function fileNameRepo(): string {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-ranking-" });
  const files: Record<string, string> = {
    "src/invoice_renderer.ts": [
      "export function render(lines: string[]): string {",
      "  return lines.map((l) => `<li>${l}</li>`).join('');",
      "}",
    ].join("\n"),
    "src/templates.ts": [
      "// Templates the invoice renderer fills: each invoice renderer template names its slots.",
      "export const invoiceRendererTemplates = ['invoice', 'renderer', 'invoice renderer header'];",
      "export function invoiceTemplate(name: string): string {",
      "  return `invoice ${name} for the renderer`;",
      "}",
    ].join("\n"),
    "src/mailer.ts": [
      "// Sends what the invoice renderer produced.",
      "export function send(body: string): void {",
      "  console.log('invoice', body);",
      "}",
    ].join("\n"),
  };
  for (const [path, text] of Object.entries(files)) {
    Deno.mkdirSync(join(dir, path, ".."), { recursive: true });
    Deno.writeTextFileSync(join(dir, path), text + "\n");
  }
  return dir;
}

/** The first result's path of `query` under `ranking`. */
function top(db: Db, query: string, ranking: Readonly<RankingParams> = DEFAULT_RANKING): string | undefined {
  return searchCode(db, { query }, ranking).results[0]?.path;
}

Deno.test("ranking: a file the query names comes first (file-name weight), and without that weight it does not", async () => {
  const h = tempHome();
  const dirs = [fileNameRepo(), copyFixture("search_basic")];
  try {
    const generated = await indexDir(h, dirs[0]);
    const fixture = await indexDir(h, dirs[1]);
    const noFileName = withRanking(DEFAULT_RANKING, { pathAffinity: 0 });
    withIndex(h, generated.project.project_id, (db) => {
      assert.equal(top(db, "invoice renderer"), "src/invoice_renderer.ts");
      assert.notEqual(top(db, "invoice renderer", noFileName), "src/invoice_renderer.ts", "the case is decided by it");
    });
    withIndex(h, fixture.project.project_id, (db) => {
      assert.equal(top(db, "rate limit logic"), "src/limits/rateLimit.ts");
      assert.notEqual(top(db, "rate limit logic", noFileName), "src/limits/rateLimit.ts", "the case is decided by it");
    });
  } finally {
    h.close();
    for (const d of dirs) Deno.removeSync(d, { recursive: true });
  }
});
