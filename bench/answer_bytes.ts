/**
 * Bytes per tool answer (the JSON text block an agent reads) on fixed queries
 * against `fixtures/repos/go_basic` and this repository: before (every field,
 * as answers were before compaction; `verbose: true` gives that form) and
 * after (compact, the default), per call and per tool. `floor` is the
 * Protocol v1 metadata block every answer carries whatever its size. First
 * it prints the bytes of `tools/list` (the default tool set, `core`, `all`)
 * and of `initialize`'s instructions: what a session costs before its first call.
 * Then, on the Go tree (`--go DIR`, default /work/corpora/go when it is
 * there; `--no-go` skips it), each query tool's p50 and max default answer
 * bytes (`bench/answer_bytes_go.ts`). `--home DIR` keeps the indexes in DIR,
 * so a second run only syncs (default: a temporary home, removed after).
 * Usage: deno task bench:answers [--json] [--show] [--go DIR | --no-go] [--home DIR]
 * (`--show` prints each compact answer)
 */
import { resolveConfig } from "../src/core/config.ts";
import { Registry } from "../src/state/registry.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { ServerRuntime } from "../src/service/runtime.ts";
import { Dispatcher } from "../src/service/dispatch.ts";
import { toolNamed, TOOLS } from "../src/service/tools/registry.ts";
import { resolveToolSet } from "../src/service/tool_set.ts";
import { instructions } from "../src/mcp/protocol_server.ts";
import { GO_CALLS, type GoRow, printGoTable } from "./answer_bytes_go.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** Fixed calls per repository: the tool, its arguments, and a label. */
const CALLS: Record<string, [string, Record<string, unknown>][]> = {
  [`${ROOT}/fixtures/repos/go_basic`]: [
    ["search_code", { query: "rate limit" }],
    ["locate_symbol", { name: "ValidateToken" }],
    ["get_file_outline", { path: "auth/jwt.go" }],
    ["get_symbol_hierarchy", { symbol_name: "CheckRateLimit" }],
    ["find_related_symbols", { symbol_name: "ValidateToken" }],
    ["get_code_context", { query: "how are bearer tokens validated", max_tokens: 400 }],
    ["find_references", { symbol_name: "ValidateToken" }],
    ["get_call_graph", { symbol_name: "ValidateToken", direction: "both", depth: 2 }],
  ],
  [ROOT]: [
    ["search_code", { query: "where is the workspace router" }],
    ["locate_symbol", { name: "WorkspaceRouter" }],
    ["get_file_outline", { path: "src/service/workspace_router.ts" }],
    ["get_symbol_hierarchy", { symbol_name: "WorkspaceRouter.resolve" }],
    ["find_related_symbols", { symbol_name: "WorkspaceRouter" }],
    ["get_code_context", { query: "how does the workspace router evict workspaces", max_tokens: 400 }],
    ["get_code_context", { query: "how does the workspace router evict workspaces", max_tokens: 2000 }],
    ["get_file_outline", { path: "src/service/compact.ts" }],
    ["find_references", { symbol_name: "CruxeError", path: "src/core/errors.ts" }],
    ["get_call_graph", { symbol_name: "runServe", direction: "both", depth: 2 }],
  ],
};

const bytes = (s: string) => new TextEncoder().encode(s).length;
const json = Deno.args.includes("--json");
const show = Deno.args.includes("--show");
const argAfter = (flag: string) => {
  const i = Deno.args.indexOf(flag);
  return i >= 0 ? Deno.args[i + 1] : undefined;
};
const keptHome = argAfter("--home");
const home = keptHome ?? Deno.makeTempDirSync({ prefix: "cruxe-answer-bytes-" });
const goTree = Deno.args.includes("--no-go") ? undefined : argAfter("--go") ?? existingDir("/work/corpora/go");
try {
  const config = { ...resolveConfig({ CRUXE_HOME: home }, Deno.build.os), workers: 2 };
  const registry = Registry.open(home);
  const rt = new ServerRuntime(config, registry, {
    prewarm: false,
    freshnessIntervalMs: 0,
    router: { startupWorkspaces: [], autoWorkspace: false, allowedRoots: [], maxAutoWorkspaces: 10, cwd: ROOT },
  });
  const dispatcher = new Dispatcher(rt);
  const surface = listingBytes(rt);
  if (!json) printSurface(surface);
  const answer = (name: string, args: Record<string, unknown>) =>
    dispatcher.call(name, args, {
      sendNotification: () => Promise.resolve(),
      signal: new AbortController().signal,
    });
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await answer(name, args);
    if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.content[0].text}`);
    return r.content[0].text;
  };
  const rows: { repo: string; tool: string; args: string; before: number; after: number; floor: number }[] = [];
  for (const [repo, calls] of Object.entries(CALLS)) {
    registerProject(registry, repo);
    await call("index_repo", { workspace: repo, wait: true });
    for (const [tool, args] of calls) {
      const after = await call(tool, { ...args, workspace: repo });
      // A tool without a compact form answers the same either way.
      const before = toolNamed(tool)?.compact ? await call(tool, { ...args, workspace: repo, verbose: true }) : after;
      if (show) console.log(`${tool} ${JSON.stringify(args)}\n${after}\n`);
      const floor = bytes(JSON.stringify({ metadata: JSON.parse(after).metadata })) - 2;
      const label = repo === ROOT ? "cruxe" : "go_basic";
      rows.push({ repo: label, tool, args: JSON.stringify(args), before: bytes(before), after: bytes(after), floor });
    }
  }
  const goRows: GoRow[] = [];
  if (goTree) {
    registerProject(registry, goTree);
    await call("index_repo", { workspace: goTree, wait: true });
    for (const [tool, args] of GO_CALLS) {
      const r = await answer(tool, { ...args, workspace: goTree });
      if (show) console.log(`${tool} ${JSON.stringify(args)}\n${r.content[0].text}\n`);
      goRows.push({ tool, args: JSON.stringify(args), bytes: bytes(r.content[0].text), error: r.isError === true });
    }
  }
  rt.close();
  if (json) console.log(JSON.stringify({ surface, answers: rows, go: goRows }, null, 2));
  else {
    printTables(rows);
    if (goRows.length) printGoTable(goRows);
  }
} finally {
  if (!keptHome) Deno.removeSync(home, { recursive: true });
}

/** `path` when it is a directory, else undefined. */
function existingDir(path: string): string | undefined {
  try {
    return Deno.statSync(path).isDirectory ? path : undefined;
  } catch {
    return undefined;
  }
}

/** One line per call, then one per tool (its calls added up), then the total. */
function printTables(
  rows: { repo: string; tool: string; args: string; before: number; after: number; floor: number }[],
) {
  const line = (a: string, b: string, before: number, after: number, floor: number, tail = "") =>
    console.log(
      `${a.padEnd(9)} ${b.padEnd(22)} ${String(before).padStart(7)} ${String(after).padStart(7)} ${
        (after / before).toFixed(2).padStart(6)
      } ${String(floor).padStart(6)}  ${tail}`.trimEnd(),
    );
  console.log(`${"repo".padEnd(9)} ${"tool".padEnd(22)}  before   after  ratio  floor  arguments`);
  for (const r of rows) line(r.repo, r.tool, r.before, r.after, r.floor, r.args);
  console.log(`\n${"per tool".padEnd(9)} ${"".padEnd(22)}  before   after  ratio  floor`);
  const sum = (rs: typeof rows, k: "before" | "after" | "floor") => rs.reduce((a, r) => a + r[k], 0);
  for (const tool of [...new Set(rows.map((r) => r.tool))]) {
    const rs = rows.filter((r) => r.tool === tool);
    line("", tool, sum(rs, "before"), sum(rs, "after"), sum(rs, "floor"));
  }
  line("total", "", sum(rows, "before"), sum(rows, "after"), sum(rows, "floor"));
}

/** Bytes of the `tools/list` result per tool set, and of the instructions every session gets. */
function listingBytes(rt: ServerRuntime): Record<string, { tools: number; bytes: number }> {
  const out: Record<string, { tools: number; bytes: number }> = {};
  for (const [label, spec] of [["default", undefined], ["core", ["core"]], ["all", ["all"]]] as const) {
    const listed = new Dispatcher(rt, TOOLS, resolveToolSet(spec, TOOLS)).listTools();
    out[`tools/list ${label}`] = { tools: listed.length, bytes: bytes(JSON.stringify({ tools: listed })) };
  }
  out["instructions"] = { tools: 0, bytes: bytes(instructions()) };
  return out;
}

/** The session's fixed cost, one line per tool set. */
function printSurface(surface: Record<string, { tools: number; bytes: number }>) {
  for (const [k, v] of Object.entries(surface)) {
    console.log(`${k.padEnd(22)} ${String(v.bytes).padStart(7)} bytes${v.tools ? ` (${v.tools} tools)` : ""}`);
  }
  console.log("");
}
