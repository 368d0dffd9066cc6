/**
 * The agent surface: the default `tools/list` is small (short descriptions,
 * shared arguments explained once in the instructions), tool sets chosen with
 * profiles or names list and answer only those tools, and `tool_help` gives
 * the full description of any tool on demand.
 */
import assert from "node:assert/strict";
import { Dispatcher } from "../src/service/dispatch.ts";
import { UnknownToolError } from "../src/service/tool_catalog.ts";
import { DEFAULT_TOOL_SPEC, profileMembers, resolveToolSet } from "../src/service/tool_set.ts";
import { TOOLS } from "../src/service/tools/registry.ts";
import { resolveConfig } from "../src/core/config.ts";
import { CruxeError } from "../src/core/errors.ts";
import { bodyOf, inProcess, stdioClient, tempHomeDir } from "./mcp_helpers.ts";

const NAMES = TOOLS.map((t) => t.name);
const TOOL_PROFILES = profileMembers(TOOLS);
const bytes = (x: unknown) => new TextEncoder().encode(JSON.stringify(x)).length;

/** A dispatcher over an in-process runtime offering the tools `spec` selects. */
function withTools(spec: string[] | undefined) {
  const s = inProcess();
  const dispatcher = new Dispatcher(s.rt, TOOLS, resolveToolSet(spec, TOOLS));
  const call = (name: string, args: Record<string, unknown> = {}) =>
    dispatcher.call(name, args, {
      sendNotification: () => Promise.resolve(),
      signal: new AbortController().signal,
    });
  return { dispatcher, call, close: () => s.close() };
}

Deno.test("default tools/list is at most 12 KB, and every description still says when to pick the tool", () => {
  const s = withTools(undefined);
  try {
    const listed = s.dispatcher.listTools();
    const size = bytes({ tools: listed });
    assert.ok(size <= 12 * 1024, `default tools/list is ${size} bytes`);
    const names = listed.map((t) => t.name).sort();
    const expected = [...new Set(DEFAULT_TOOL_SPEC.flatMap((p) => TOOL_PROFILES[p])), "tool_help"].sort();
    assert.deepEqual(names, expected);
    for (const t of listed) {
      const d = t.description ?? "";
      assert.ok(d.length >= 40 && d.length <= 300, `${t.name}: description of ${d.length} chars`);
      assert.equal(t.inputSchema.additionalProperties, false, t.name);
    }
    // The everyday tools say when to use them.
    for (const n of ["search_code", "locate_symbol", "find_references", "get_file_outline"]) {
      assert.match(listed.find((t) => t.name === n)!.description!, /Use (when|before|to|after)/, n);
    }
  } finally {
    s.close();
  }
});

Deno.test("every tool's listing, even with all tools, is lean: no shared-argument descriptions", () => {
  const s = withTools(["all"]);
  try {
    const listed = s.dispatcher.listTools();
    assert.equal(listed.length, TOOLS.length + 1);
    for (const t of listed) {
      const props = t.inputSchema.properties as Record<string, { description?: string }>;
      assert.equal(props.workspace?.description, undefined, `${t.name}: workspace described in the listing`);
      assert.equal(props.ref?.description, undefined, `${t.name}: ref described in the listing`);
      assert.ok(bytes(t) <= 2600, `${t.name}: ${bytes(t)} bytes`);
    }
  } finally {
    s.close();
  }
});

Deno.test("--tools core lists and answers only the core tools and tool_help", async () => {
  const s = withTools(["core"]);
  try {
    const names = s.dispatcher.listTools().map((t) => t.name).sort();
    assert.deepEqual(names, [...TOOL_PROFILES.core, "tool_help"].sort());
    await assert.rejects(
      () => s.call("diff_context", { base_ref: "HEAD" }),
      (e: unknown) => e instanceof UnknownToolError && /not enabled/.test(e.message),
    );
    await assert.rejects(
      () => s.call("no_such_tool"),
      (e: unknown) => e instanceof UnknownToolError && /Unknown tool/.test(e.message),
    );
  } finally {
    s.close();
  }
});

Deno.test("tool sets: profiles and names combine, comma-separated or repeated; unknown words suggest", () => {
  const set = resolveToolSet(["core,find_references", "git"], TOOLS);
  for (const n of [...TOOL_PROFILES.core, ...TOOL_PROFILES.git, "find_references"]) {
    assert.ok(set.has(n), n);
  }
  assert.ok(!set.has("get_call_graph"));
  assert.equal(resolveToolSet(["all"], TOOLS).size, NAMES.length);
  assert.deepEqual(TOOL_PROFILES.core, [
    "search_code",
    "locate_symbol",
    "get_file_outline",
    "get_code_context",
    "open_file",
  ]);
  assert.throws(
    () => resolveToolSet(["croe"], TOOLS),
    (e: unknown) => e instanceof CruxeError && e.code === "invalid_input" && /did you mean "core"/.test(e.message),
  );
  assert.throws(() => resolveToolSet([" , "], TOOLS), CruxeError);
});

Deno.test("the config file's tools key: a list or one comma-separated string; anything else is refused", () => {
  assert.deepEqual(resolveConfig({}, "linux", { tools: ["core", "refs"] }).tools, ["core", "refs"]);
  assert.deepEqual(resolveConfig({}, "linux", { tools: "core,refs" as unknown as string[] }).tools, ["core,refs"]);
  assert.equal(resolveConfig({}, "linux", {}).tools, null);
  assert.throws(
    () => resolveConfig({}, "linux", { tools: [1] as unknown as string[] }),
    (e: unknown) => e instanceof CruxeError && e.code === "invalid_input",
  );
});

Deno.test("tool_help gives any tool's full description and schema, enabled or not", async () => {
  const s = withTools(["core"]);
  try {
    const one = bodyOf(await s.call("tool_help", { tool: "find_references" }));
    assert.equal(one.enabled, false);
    assert.deepEqual(one.profiles, ["refs"]);
    assert.match(one.description as string, /Paged: pass next_cursor back as cursor/);
    assert.match(one.description as string, /Indexed languages: .*go/);
    const props = (one.input_schema as { properties: Record<string, { description?: string }> }).properties;
    assert.match(props.ref.description ?? "", /Branch, tag/);
    const all = bodyOf(await s.call("tool_help", {}));
    const tools = all.tools as { name: string; enabled: boolean }[];
    assert.equal(tools.length, TOOLS.length + 1);
    assert.equal(tools.find((t) => t.name === "search_code")?.enabled, true);
    assert.equal(tools.find((t) => t.name === "diff_context")?.enabled, false);
    const bad = await s.call("tool_help", { tool: "find_referencse" });
    assert.equal(bad.isError, true);
    assert.match(JSON.stringify(bodyOf(bad)), /did you mean \\"find_references\\"/);
  } finally {
    s.close();
  }
});

Deno.test({
  name: "serve-mcp --tools over stdio: the listing follows the flag; instructions carry the shared arguments",
  fn: async () => {
    const home = tempHomeDir();
    const { client } = await stdioClient(home, ["--tools", "core", "--no-prewarm"]);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, [...TOOL_PROFILES.core, "tool_help"].sort());
      const text = client.getInstructions() ?? "";
      assert.match(text, /`workspace`/);
      assert.match(text, /tool_help/);
      assert.match(text, /Indexed languages: .*python/);
    } finally {
      await client.close();
      Deno.removeSync(home, { recursive: true });
    }
  },
});
