/**
 * Bytes per tool answer (the JSON text block an agent reads) on fixed queries
 * against `fixtures/repos/go_basic` and this repository, compact (the default)
 * against `verbose: true` (every field, as answers were before compaction).
 * Usage: deno task bench:answers [--json]
 */
import { resolveConfig } from "../src/core/config.ts";
import { Registry } from "../src/state/registry.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { ServerRuntime } from "../src/mcp/runtime.ts";
import { Dispatcher } from "../src/mcp/dispatch.ts";

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
  ],
  [ROOT]: [
    ["search_code", { query: "where is the workspace router" }],
    ["locate_symbol", { name: "WorkspaceRouter" }],
    ["get_file_outline", { path: "src/mcp/workspace_router.ts" }],
    ["get_symbol_hierarchy", { symbol_name: "WorkspaceRouter.resolve" }],
    ["find_related_symbols", { symbol_name: "WorkspaceRouter" }],
    ["get_code_context", { query: "how does the workspace router evict workspaces", max_tokens: 400 }],
    ["get_code_context", { query: "how does the workspace router evict workspaces", max_tokens: 2000 }],
  ],
};

const home = Deno.makeTempDirSync({ prefix: "cruxe-answer-bytes-" });
const json = Deno.args.includes("--json");
try {
  const config = { ...resolveConfig({ CRUXE_HOME: home }, Deno.build.os), workers: 2 };
  const registry = Registry.open(home);
  const rt = new ServerRuntime(config, registry, {
    prewarm: false,
    freshnessIntervalMs: 0,
    router: { startupWorkspaces: [], autoWorkspace: false, allowedRoots: [], maxAutoWorkspaces: 10, cwd: ROOT },
  });
  const dispatcher = new Dispatcher(rt);
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await dispatcher.callTool(name, args, {
      sendNotification: () => Promise.resolve(),
      signal: new AbortController().signal,
    });
    if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.content[0].text}`);
    return new TextEncoder().encode(r.content[0].text).length;
  };
  const rows: { repo: string; tool: string; args: string; verbose: number; compact: number }[] = [];
  for (const [repo, calls] of Object.entries(CALLS)) {
    registerProject(registry, repo);
    await call("index_repo", { workspace: repo, wait: true });
    for (const [tool, args] of calls) {
      const verbose = await call(tool, { ...args, workspace: repo, verbose: true });
      const compact = await call(tool, { ...args, workspace: repo });
      rows.push({ repo: repo === ROOT ? "cruxe" : "go_basic", tool, args: JSON.stringify(args), verbose, compact });
    }
  }
  rt.close();
  if (json) console.log(JSON.stringify(rows, null, 2));
  else {
    console.log("repo      tool                   verbose  compact  ratio  arguments");
    for (const r of rows) {
      console.log(
        `${r.repo.padEnd(9)} ${r.tool.padEnd(22)} ${String(r.verbose).padStart(7)}  ${
          String(r.compact).padStart(7)
        }  ` +
          `${(r.compact / r.verbose).toFixed(2).padStart(5)}  ${r.args}`,
      );
    }
    const v = rows.reduce((a, r) => a + r.verbose, 0);
    const c = rows.reduce((a, r) => a + r.compact, 0);
    console.log(`total     ${"".padEnd(22)} ${String(v).padStart(7)}  ${String(c).padStart(7)}  ${(c / v).toFixed(2)}`);
  }
} finally {
  Deno.removeSync(home, { recursive: true });
}
