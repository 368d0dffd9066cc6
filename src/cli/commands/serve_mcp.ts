/**
 * `cruxe serve-mcp` (MCP over stdio or HTTP) and `cruxe serve` (register and
 * index the workspace, default `.`, in the background, then serve stdio —
 * what `deno task serve` runs). `runServe` is the single entry a permission
 * sandbox can wrap. Requires `--allow-read`/`--allow-write` on the Cruxe home
 * and the workspaces, `--allow-env`, `--allow-run=git`, and for HTTP
 * `--allow-net` on the listen address.
 */
import { CruxeError } from "../../core/errors.ts";
import { info, setLogLevel, warn } from "../../core/log.ts";
import { registerProject } from "../../index/project_setup.ts";
import { openContext } from "../context.ts";
import { GLOBAL_OPTIONS, type OptionTable, parseCommandArgs } from "../args.ts";
import { sandboxedServe } from "../sandbox.ts";
import { Dispatcher } from "../../mcp/dispatch.ts";
import { ServerRuntime } from "../../mcp/runtime.ts";
import { checkServeOptions, type ServeOptions } from "../../mcp/serve_options.ts";
import { createProtocolServer } from "../../mcp/protocol_server.ts";
import { serveStdio } from "../../mcp/stdio.ts";
import { serveHttp } from "../../mcp/http.ts";

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
    authToken: v["auth-token"] ?? Deno.env.get("CRUXE_AUTH_TOKEN") ?? undefined,
    verbose: v.verbose?.length ?? 0,
    configPath: v.config,
    indexOnStart: cmd === "serve",
  };
}

/** Runs `cruxe serve-mcp` / `cruxe serve`; resolves to the exit code. */
export async function runServeCommand(cmd: "serve-mcp" | "serve", args: string[]): Promise<number> {
  const parsed = parseServeArgs(cmd, args);
  if (parsed === "help") return 0; // the CLI printed the command's help before getting here
  // Serve inside Deno's permission sandbox (narrow re-exec or worker) unless this already is the sandbox.
  const code = await sandboxedServe([cmd, ...args], parsed);
  if (code !== null) return code;
  return await runServe(parsed);
}

/**
 * Serves MCP until stdin closes (stdio) or SIGINT/SIGTERM. On the way out,
 * running jobs end `interrupted` (reported at the next start) and stores
 * close. Resolves to the exit code.
 */
export async function runServe(options: ServeOptions): Promise<number> {
  setLogLevel(options.verbose);
  const o = checkServeOptions(options);
  const ctx = openContext(o.configPath);
  if (ctx.interruptedAtStart) warn(`${ctx.interruptedAtStart} index job(s) were interrupted by a previous stop`);
  const pinned = o.workspaces.map((w) => registerProject(ctx.registry, w));
  const rt = new ServerRuntime(ctx.config, ctx.registry, {
    prewarm: o.prewarm,
    watch: o.watch !== false,
    router: {
      startupWorkspaces: pinned.map((p) => p.repo_root),
      autoWorkspace: o.autoWorkspace,
      allowedRoots: o.allowedRoots,
      maxAutoWorkspaces: o.maxAutoWorkspaces ?? ctx.config.maxAutoWorkspaces,
      cwd: Deno.cwd(),
    },
  });
  const dispatcher = new Dispatcher(rt);
  if (o.indexOnStart && pinned[0]) {
    try {
      rt.runner.start(pinned[0], { mode: "incremental", force: false, joinExisting: true });
      info(`indexing ${pinned[0].repo_root} in the background`);
    } catch (e) {
      // Another Cruxe process is indexing it: serve what is published meanwhile.
      warn(`not indexing ${pinned[0].repo_root} on start: ${(e as Error).message}`);
    }
  }
  if (o.transport === "stdio" && Deno.stdin.isTerminal()) {
    // A person started this in a terminal: say what it is waiting for (stderr; stdout is the protocol's).
    console.error(
      `cruxe: serving MCP on stdio${pinned[0] ? ` for ${pinned[0].repo_root}` : ""}. ` +
        `Connect an MCP client to this command (see README); Ctrl-D or Ctrl-C stops it.`,
    );
  }
  // Prewarm and watching start once the transport serves, so they never delay the first handshake.
  const prewarm = () => {
    setTimeout(() => rt.live.begin(pinned, o.prewarm ? rt.warmset.select() : []), 0);
    if (o.prewarm) setTimeout(() => void rt.warmset.run(), 0);
  };

  let stopHttp: (() => Promise<void>) | null = null;
  let resolveStop!: () => void;
  const stopped = new Promise<void>((r) => resolveStop = r);
  const onSignal = () => {
    rt.shuttingDown = true;
    resolveStop();
  };
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const s of signals) Deno.addSignalListener(s, onSignal);
  try {
    if (o.transport === "stdio") {
      await Promise.race([
        serveStdio(
          () => createProtocolServer(rt, dispatcher, { jobProgress: true, session: "stdio" }),
          undefined,
          prewarm,
        ),
        stopped,
      ]);
    } else {
      const onListen = (addr: { port: number }) => {
        announceHttp(o.bind, addr.port, pinned[0]?.repo_root);
        prewarm();
      };
      const http = serveHttp(rt, dispatcher, { port: o.port, bind: o.bind, authToken: o.authToken, onListen });
      stopHttp = () => http.shutdown(5000);
      await Promise.race([http.finished, stopped]);
    }
  } finally {
    for (const s of signals) Deno.removeSignalListener(s, onSignal);
    rt.shuttingDown = true;
    // Jobs first, so calls waiting on one are not what holds the shutdown up.
    rt.runner.shutdown();
    await stopHttp?.();
    rt.close();
  }
  return 0;
}

/**
 * Says on stderr where the HTTP server listens: the MCP endpoint a client is
 * given and the health probe (stdout stays free; always printed, since a person
 * or a log needs the port, which may have been chosen by the system).
 */
function announceHttp(bind: string, port: number, workspace: string | undefined): void {
  const host = bind.includes(":") && !bind.startsWith("[") ? `[${bind}]` : bind;
  const base = `http://${host}:${port}`;
  console.error(
    `cruxe: MCP over HTTP on ${base}/mcp (also ${base}/)${workspace ? ` for ${workspace}` : ""}; ` +
      `health: ${base}/health. Ctrl-C stops it.`,
  );
}
