/**
 * Each tool is defined once. Its name is spelt only in the name list
 * (`src/core/tool_names.ts`); its summary, profile, compact form, where it
 * runs and its CLI command live in its definition; and where it runs is held
 * by the compiler: a reader tool's handler that reaches for the server does
 * not type-check (`deno check` runs over this file in CI).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { REPO_ROOT } from "./mcp_helpers.ts";
import { TOOL } from "../src/core/tool_names.ts";
import { TOOLS } from "../src/service/tools/registry.ts";
import { defineReaderTool, defineTool, type ReaderContext, type ToolContext } from "../src/service/tools/tool.ts";

/** Every `.ts` module under `src/`, relative to the repository root (tests beside modules left out). */
function sources(dir = "src"): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(join(REPO_ROOT, dir))) {
    const p = join(dir, e.name);
    if (e.isDirectory) out.push(...sources(p));
    else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) out.push(p);
  }
  return out;
}

Deno.test("no tool name is spelt outside the name list: definitions and suggestions use TOOL", () => {
  const names = Object.values(TOOL);
  // A name as a string of the code ("…" or '…'); prose in comments and messages may name a tool.
  const quoted = new RegExp(`(["'])(${names.join("|")})\\1`, "g");
  const found: string[] = [];
  for (const file of sources()) {
    if (file === "src/core/tool_names.ts") continue;
    const text = Deno.readTextFileSync(join(REPO_ROOT, file));
    for (const m of text.matchAll(quoted)) found.push(`${file}: ${m[0]}`);
  }
  assert.deepEqual(found, []);
  // The check sees a spelt name.
  assert.equal([...'x = "search_code";'.matchAll(quoted)].length, 1);
});

Deno.test("every tool is in the name list, has a summary, and its reader handler runs only on the index", () => {
  assert.deepEqual(TOOLS.map((t) => t.name).sort(), Object.values(TOOL).filter((n) => n !== TOOL.tool_help).sort());
  for (const t of TOOLS) {
    assert.ok(t.summary.length >= 40, `${t.name}: summary`);
    assert.ok(t.runs === "main" || t.runs === "worker", t.name);
    // A tool with a compact form is one whose answer an agent reads at length.
    if (t.compact) assert.equal(t.indexGate, true, `${t.name}: compact form on an index-reading tool`);
  }
  const readers = TOOLS.filter((t) => t.runs === "worker").map((t) => t.name);
  for (const n of [TOOL.search_code, TOOL.locate_symbol, TOOL.find_references, TOOL.get_call_graph]) {
    assert.ok(readers.includes(n), `${n} runs in a reader worker`);
  }
  for (const n of [TOOL.index_repo, TOOL.index_status, TOOL.open_file, TOOL.switch_ref]) {
    assert.ok(!readers.includes(n), `${n} runs on the main thread`);
  }
});

Deno.test("a reader tool's handler gets the index and nothing of the server (compile-time check)", () => {
  const probe = defineReaderTool({
    name: "probe",
    summary: "A tool that exists only to show what a reader handler may touch.",
    indexGate: true,
    description: () => "probe",
    input: z.strictObject({}),
    handler(_args, ctx: ReaderContext) {
      // @ts-expect-error a reader handler has no runtime: it may run in a worker
      void ctx.runtime;
      // @ts-expect-error nor the routed workspace
      void ctx.route;
      // @ts-expect-error nor jobs
      void ctx.activeJob;
      return { has_db: typeof ctx.db === "function" };
    },
  });
  const main = defineTool({
    name: "probe_main",
    summary: "A tool that exists only to show that a main handler gets the whole context.",
    indexGate: false,
    description: () => "probe",
    input: z.strictObject({}),
    handler: (_args, ctx: ToolContext) => ({ routed: ctx.routed, has_runtime: ctx.runtime !== undefined }),
  });
  assert.equal(probe.runs, "worker");
  assert.equal(main.runs, "main");
});
