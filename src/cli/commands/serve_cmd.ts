/**
 * `cruxe serve-mcp` / `cruxe serve` as a command: its option tables, the
 * parse of its arguments, and the launch (inside Deno's permission sandbox).
 * The server itself (`./serve_mcp.ts`) is loaded only by the process that
 * serves, so the sandbox launcher, which only relays the child's exit code,
 * stays small.
 */
import { CruxeError } from "../../core/errors.ts";
import { GLOBAL_OPTIONS, type OptionTable, parseCommandArgs } from "../args.ts";
import { sandboxedServe } from "../sandbox.ts";
import type { ServeOptions } from "../../mcp/serve_options.ts";
import { processEnv, resolveConfig } from "../../core/config.ts";
import { checkStoreUrl, storeUrlFor } from "../../state/pg/store_url.ts";
import { loadConfig } from "../context.ts";

/** Options of `cruxe serve-mcp` (help, completions and parsing read this one table). */
export const SERVE_MCP_OPTIONS = {
  transport: { type: "string", arg: "stdio|http", choices: ["stdio", "http"], help: "transport (default: stdio)" },
  port: { type: "string", arg: "N", help: "HTTP port (default: 9100)" },
  bind: { type: "string", arg: "ADDR", help: "HTTP listen address (default: 127.0.0.1; others need a token)" },
  workspace: {
    type: "string",
    multiple: true,
    arg: "PATH",
    help: "serve this workspace (the first is the default for calls)",
  },
  "auto-workspace": { type: "boolean", help: "register workspaces that calls name (needs --allowed-root)" },
  "allowed-root": { type: "string", multiple: true, arg: "PATH", help: "root auto-workspaces must be inside" },
  "max-auto-workspaces": { type: "string", arg: "N", help: "auto-workspaces kept before LRU eviction (default: 10)" },
  "no-prewarm": { type: "boolean", help: "do not prewarm recently used workspaces at start" },
  "no-watch": { type: "boolean", help: "do not watch workspaces; sync only when sync_repo is called" },
  "auth-token": { type: "string", arg: "TOKEN", help: "bearer token for HTTP (or CRUXE_AUTH_TOKEN)" },
  store: {
    type: "string",
    arg: "URL",
    help: "serve the core tools from a team store (postgres://…, a read-only role; see docs/TEAM.md)",
  },
  "read-store": {
    type: "string",
    arg: "URL",
    help: "with --store: read from this copy of it instead (a streaming replica)",
  },
  tools: {
    type: "string",
    multiple: true,
    arg: "LIST",
    help: "tools to offer, comma-separated: profiles core, refs, index, git, ask, all, or tool names " +
      "(default: the config's tools, else core,refs,index)",
  },
} as const satisfies OptionTable;

/** Options of `cruxe serve`. */
export const SERVE_OPTIONS = {
  workspace: { type: "string", arg: "PATH", help: "workspace to index and serve (default: current directory)" },
  "no-watch": SERVE_MCP_OPTIONS["no-watch"],
} as const satisfies OptionTable;

/** Parses `serve-mcp` / `serve` arguments into options (not yet checked). */
export function parseServeArgs(cmd: "serve-mcp" | "serve", args: string[]): ServeOptions | "help" {
  const { values: v, positionals } = parseCommandArgs(cmd, args, SERVE_MCP_OPTIONS);
  if (positionals.length) {
    throw new CruxeError("invalid_input", `cruxe ${cmd} takes no arguments (got "${positionals[0]}")`);
  }
  if (v.help) return "help";
  const num = (s: string | undefined, flag: string): number | undefined => {
    if (s === undefined) return undefined;
    const n = Number(s);
    if (!Number.isInteger(n)) throw new CruxeError("invalid_input", `${flag} must be an integer (got ${s})`);
    return n;
  };
  if (cmd === "serve" && Object.keys(v).some((k) => !(k in SERVE_OPTIONS) && !(k in GLOBAL_OPTIONS))) {
    throw new CruxeError(
      "invalid_input",
      "cruxe serve takes only --workspace, --no-watch, -v and --config (see cruxe serve --help)",
    );
  }
  return {
    transport: (v.transport ?? "stdio") as ServeOptions["transport"],
    port: num(v.port, "--port") ?? 9100,
    bind: v.bind ?? "127.0.0.1",
    // `deno task serve` runs in the project folder; INIT_CWD is where the user typed it.
    workspaces: v.workspace ?? (cmd === "serve" ? [Deno.env.get("INIT_CWD") || Deno.cwd()] : []),
    autoWorkspace: v["auto-workspace"] ?? false,
    allowedRoots: v["allowed-root"] ?? [],
    maxAutoWorkspaces: num(v["max-auto-workspaces"], "--max-auto-workspaces"),
    prewarm: !v["no-prewarm"],
    watch: !v["no-watch"],
    authToken: v["auth-token"] ?? resolveConfig(processEnv(), Deno.build.os).authToken ?? undefined,
    verbose: v.verbose?.length ?? 0,
    configPath: v.config,
    indexOnStart: cmd === "serve",
    ...(v.tools ? { tools: v.tools } : {}),
    ...(v.store !== undefined ? { store: v.store } : {}),
    ...(v["read-store"] !== undefined ? { readStore: checkStoreUrl(v["read-store"], "--read-store") } : {}),
  };
}

/** Runs `cruxe serve-mcp` / `cruxe serve`; resolves to the exit code. */
export async function runServeCommand(cmd: "serve-mcp" | "serve", args: string[]): Promise<number> {
  const parsed = parseServeArgs(cmd, args);
  if (parsed === "help") return 0; // the CLI printed the command's help before getting here
  const configured = cmd === "serve-mcp" ? storeUrlFor(parsed.store, loadConfig(parsed.configPath).store) : null;
  // A replica reads from the read store when one is given (a streaming replica of the store), else the store.
  const store = parsed.readStore ?? configured;
  if (configured) parsed.store = configured;
  // Serve inside Deno's permission sandbox (narrow re-exec or worker) unless this already is the sandbox.
  const code = await sandboxedServe([cmd, ...args], parsed);
  if (code !== null) return code;
  if (store) return await (await import("./team_serve.ts")).runTeamServe(parsed, store);
  const { runServe } = await import("./serve_mcp.ts");
  return await runServe(parsed);
}
