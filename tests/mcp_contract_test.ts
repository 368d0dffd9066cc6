/**
 * Contract tests of the dispatch pipeline: every
 * tool publishes `workspace`, every tool response carries Protocol v1
 * metadata, every error code is in the registry, bad arguments are
 * `invalid_input`.
 */
import assert from "node:assert/strict";
import { copyFixture } from "./helpers/fixture_repo.ts";
import { bodyOf, inProcess } from "./mcp_helpers.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { isErrorCode } from "../src/core/errors.ts";
import { TOOLS } from "../src/service/tools/registry.ts";
import { UnknownToolError } from "../src/service/tool_catalog.ts";

const ALL_TOOLS = [
  "index_repo",
  "sync_repo",
  "search_code",
  "locate_symbol",
  "index_status",
  "get_file_outline",
  "health_check",
  "get_symbol_hierarchy",
  "find_related_symbols",
  "get_code_context",
  "open_file",
  "ask_code",
  "find_references",
  "get_call_graph",
  "explain_ranking",
  "suggest_followup_queries",
];

const METADATA_KEYS = [
  "cruxe_protocol_version",
  "freshness_status",
  "indexing_status",
  "result_completeness",
  "ref",
  "schema_status",
];

function assertMetadata(body: Record<string, unknown>, where: string) {
  const m = body.metadata as Record<string, unknown> | undefined;
  assert.ok(m, `${where}: response lacks metadata`);
  for (const k of METADATA_KEYS) assert.ok(k in m, `${where}: metadata lacks ${k}`);
  assert.equal(m.cruxe_protocol_version, "1.0");
  assert.ok(["fresh", "stale", "syncing"].includes(m.freshness_status as string));
  assert.ok(["not_indexed", "indexing", "ready", "failed"].includes(m.indexing_status as string));
  assert.ok(["complete", "partial", "truncated"].includes(m.result_completeness as string));
  assert.ok(["compatible", "not_indexed", "reindex_required", "corrupt_manifest"].includes(m.schema_status as string));
}

function assertRegistryError(r: { isError?: boolean; content: unknown }, code: string, where: string) {
  assert.equal(r.isError, true, `${where}: expected an error result`);
  const b = bodyOf(r);
  const err = b.error as { code: string; message: string; data: unknown };
  assert.ok(isErrorCode(err.code), `${where}: ${err.code} is not in the registry`);
  assert.equal(err.code, code, `${where}: ${err.message}`);
  assert.equal(typeof err.message, "string");
  assert.equal(typeof err.data, "object");
  assertMetadata(b, where);
}

Deno.test("tools/list: the ten spec tools (and any other), each with an optional `workspace` and a strict schema", () => {
  const s = inProcess();
  try {
    const listed = s.dispatcher.listTools();
    const names = listed.map((t) => t.name);
    for (const t of ALL_TOOLS) assert.ok(names.includes(t), `tools/list lacks ${t}`);
    assert.equal(listed.length, TOOLS.length + 1, "every tool and tool_help");
    for (const t of listed) {
      const props = t.inputSchema.properties as Record<string, { type?: string }>;
      assert.equal(t.inputSchema.type, "object", t.name);
      assert.equal(props.workspace?.type, "string", `${t.name} lacks workspace`);
      assert.ok(!(t.inputSchema.required ?? []).includes("workspace"), `${t.name}: workspace must be optional`);
      assert.equal(t.inputSchema.additionalProperties, false, `${t.name} must refuse unknown arguments`);
      assert.ok((t.description ?? "").length > 0, `${t.name} has a description`);
    }
  } finally {
    s.close();
  }
});

Deno.test("every tool answers with metadata on an indexed workspace; errors use registry codes", async () => {
  const dir = copyFixture("go_basic");
  const s = inProcess({ cwd: dir });
  try {
    const p = registerProject(s.registry, dir);
    const job = await s.rt.runner.start(p, { mode: "full", force: false }).active.done;
    assert.equal(job.status, "published");
    const calls: [string, Record<string, unknown>][] = [
      ["search_code", { query: "validate token" }],
      ["locate_symbol", { name: "ValidateToken" }],
      ["index_status", {}],
      ["get_file_outline", { path: "auth/jwt.go" }],
      ["health_check", {}],
      ["get_symbol_hierarchy", { symbol_name: "CheckRateLimit" }],
      ["find_related_symbols", { symbol_name: "ValidateToken" }],
      ["get_code_context", { query: "ValidateToken" }],
      ["find_references", { symbol_name: "ValidateToken" }],
      ["get_call_graph", { symbol_name: "ValidateToken", direction: "both", depth: 2 }],
      ["suggest_followup_queries", { query: "validate token" }],
      ["sync_repo", { wait: true }],
      ["index_repo", { wait: true, force: true }],
    ];
    for (const [name, args] of calls) {
      const r = await s.call(name, { ...args, workspace: dir });
      const b = bodyOf(r);
      assert.ok(!r.isError, `${name} failed: ${JSON.stringify(b.error)}`);
      assertMetadata(b, name);
      assert.deepEqual(r.structuredContent, b, `${name}: structuredContent must equal the text content`);
    }
    const loc = bodyOf(await s.call("locate_symbol", { name: "ValidateToken" }));
    const first = (loc.results as Record<string, unknown>[])[0];
    assert.equal(first.path, "auth/jwt.go");
    assert.match(first.symbol_id as string, /^sym_/);
    assert.match(first.symbol_stable_id as string, /^b3:/);
    const idx = bodyOf(await s.call("index_repo", { wait: true }));
    assert.equal(idx.status, "published");
    assert.equal(idx.file_count, 2);
    assert.match(idx.progress_token as string, /^index-job-/);

    // Errors: wrong type, missing, extra argument, unknown file, unknown symbol, bad enum, bad ref.
    assertRegistryError(await s.call("locate_symbol", { name: 3 }), "invalid_input", "wrong type");
    assertRegistryError(await s.call("locate_symbol", {}), "invalid_input", "missing name");
    assertRegistryError(await s.call("locate_symbol", { name: "x", bogus: 1 }), "invalid_input", "extra arg");
    assertRegistryError(await s.call("get_file_outline", { path: "nope.go" }), "file_not_found", "unknown file");
    assertRegistryError(
      await s.call("get_file_outline", { path: "auth/jwt.go", depth: "deep" }),
      "invalid_input",
      "bad enum",
    );
    assertRegistryError(await s.call("get_code_context", { query: "x", strategy: "wide" }), "invalid_strategy", "s");
    assertRegistryError(await s.call("locate_symbol", { name: "x", ref: "other" }), "ref_not_indexed", "ref");
    assertRegistryError(await s.call("search_code", { query: "x", workspace: 7 }), "invalid_input", "ws type");
    assertRegistryError(
      await s.call("search_code", { query: "x", workspace: "/definitely/not/registered" }),
      "workspace_not_registered",
      "unregistered",
    );
    // The navigation tools over the reference index: unknown symbol, depth 10, negative limit, a foreign cursor.
    assertRegistryError(await s.call("find_references", { symbol_name: "NoSuch" }), "symbol_not_found", "refs");
    assertRegistryError(
      await s.call("get_call_graph", { symbol_name: "ValidateToken", depth: 10 }),
      "invalid_input",
      "depth 10",
    );
    assertRegistryError(
      await s.call("find_references", { symbol_name: "ValidateToken", limit: -1 }),
      "invalid_input",
      "negative limit",
    );
    assertRegistryError(
      await s.call("find_references", { symbol_name: "ValidateToken", cursor: "ref1.eyJrIjoieCJ9" }),
      "invalid_input",
      "foreign cursor",
    );
    assertRegistryError(await s.call("get_call_graph", { symbol_name: "NoSuch" }), "symbol_not_found", "graph");
    const search = bodyOf(await s.call("search_code", { query: "ValidateToken" }));
    // A compact symbol hit is named by its symbol_id (its result_id); explain_ranking takes either.
    const top = (search.results as { result_id?: string; symbol_id?: string }[])[0];
    const handle = top.result_id ?? top.symbol_id;
    const why = bodyOf(await s.call("explain_ranking", { query: "ValidateToken", result_id: handle }));
    assert.equal(why.rank, 1);
    assertMetadata(why, "explain_ranking");
    assertRegistryError(
      await s.call("explain_ranking", { query: "ValidateToken", result_id: "snip_nope" }),
      "result_not_found",
      "unknown result",
    );
    assertRegistryError(
      await s.call("suggest_followup_queries", { query: "x", previous_results: [{ bogus: 1 }] }),
      "invalid_input",
      "bad previous result",
    );
    await assert.rejects(
      s.call("no_such_tool", {}),
      (e: unknown) => e instanceof UnknownToolError && e.tools.includes("search_code"),
    );
  } finally {
    s.close();
  }
});

Deno.test("schema mismatch answers index_incompatible with the fix", async () => {
  const dir = copyFixture("go_basic");
  const s = inProcess({ cwd: dir });
  try {
    const p = registerProject(s.registry, dir);
    await s.rt.runner.start(p, { mode: "full", force: false }).active.done;
    // Make the store claim a future schema version, as a newer build would leave it.
    const db = s.rt.readers.view(p).db!;
    db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    s.rt.readers.invalidate(p.project_id);
    const r = await s.call("locate_symbol", { name: "ValidateToken" });
    assertRegistryError(r, "index_incompatible", "schema mismatch");
    const b = bodyOf(r);
    assert.match((b.error as { message: string }).message, /cruxe index --force/);
    assert.equal((b.metadata as Record<string, unknown>).schema_status, "reindex_required");
  } finally {
    s.close();
  }
});

Deno.test("freshness: a file changed after the index makes metadata stale until a sync", async () => {
  const dir = copyFixture("go_basic");
  const s = inProcess({ cwd: dir });
  try {
    const p = registerProject(s.registry, dir);
    await s.rt.runner.start(p, { mode: "full", force: false }).active.done;
    assert.equal(await s.rt.freshness.refresh(p, s.rt.readers.view(p)), "fresh");
    const future = new Date(Date.now() + 5000);
    Deno.utimeSync(`${dir}/auth/jwt.go`, future, future);
    assert.equal(await s.rt.freshness.refresh(p, s.rt.readers.view(p)), "stale");
    const b = bodyOf(await s.call("locate_symbol", { name: "ValidateToken" }));
    assert.equal((b.metadata as Record<string, unknown>).freshness_status, "stale");
    // Deleting a file (no mtime moves) is caught by the fingerprint.
    const past = new Date(Date.now() - 60_000);
    Deno.utimeSync(`${dir}/auth/jwt.go`, past, past);
    await s.call("sync_repo", { wait: true });
    assert.equal(await s.rt.freshness.refresh(p, s.rt.readers.view(p)), "fresh");
    Deno.removeSync(`${dir}/auth/rate_limiter.go`);
    assert.equal(await s.rt.freshness.refresh(p, s.rt.readers.view(p)), "stale");
  } finally {
    s.close();
  }
});

Deno.test("health_check answers on a server with no workspace at all; other tools say project_not_found", async () => {
  const s = inProcess({ cwd: Deno.makeTempDirSync() });
  try {
    const r = await s.call("health_check", {});
    assert.ok(!r.isError, JSON.stringify(bodyOf(r)));
    const b = bodyOf(r);
    assert.equal(b.status, "ready");
    assert.deepEqual(b.projects, []);
    assert.equal(b.active_job, null);
    assertMetadata(b, "health_check without projects");
    assertRegistryError(await s.call("index_status", {}), "project_not_found", "index_status without projects");
  } finally {
    s.close();
  }
});
