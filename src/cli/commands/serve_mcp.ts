/**
 * `cruxe serve-mcp` (MCP over stdio or HTTP) and `cruxe serve` (register and
 * index the workspace, default `.`, in the background, then serve stdio —
 * what `deno task serve` runs). `runServe` is the single entry a permission
 * sandbox can wrap. Requires `--allow-read`/`--allow-write` on the Cruxe home
 * and the workspaces, `--allow-env`, `--allow-run=git`, and for HTTP
 * `--allow-net` on the listen address.
 */
import { parseArgs } from "node:util";
import { CruxeError } from "../../core/errors.ts";
import { info, setLogLevel, warn } from "../../core/log.ts";
import { registerProject } from "../../index/project_setup.ts";
import { openContext } from "../context.ts";
import { sandboxedServe } from "../sandbox.ts";
import { runRawProbeIfAsked } from "../test_raw_probe.ts";
import { Dispatcher } from "../../mcp/dispatch.ts";
import { ServerRuntime } from "../../mcp/runtime.ts";
import { checkServeOptions, type ServeOptions } from "../../mcp/serve_options.ts";
import { createProtocolServer } from "../../mcp/protocol_server.ts";
import { serveStdio } from "../../mcp/stdio.ts";
import { serveHttp } from "../../mcp/http.ts";

const SERVE_USAGE = `Usage:
  cruxe serve-mcp [--transport stdio|http] [--port 9100] [--bind 127.0.0.1] [--workspace PATH]...
                  [--auto-workspace] [--allowed-root PATH]... [--max-auto-workspaces N] [--no-prewarm]
                  [--no-watch] [--auth-token TOKEN] [-v] [--config PATH]
  cruxe serve [--workspace PATH] [--no-watch] [-v] [--config PATH]

The workspaces in use are watched and synced as files change; --no-watch leaves syncing to sync_repo.

Progress for jobs started without a client progress token is sent only to clients that set
capabilities.experimental["cruxe/index_progress"] = {} in initialize.`;

/** Parses `serve-mcp` / `serve` arguments into options (not yet checked). */
export function parseServeArgs(cmd: "serve-mcp" | "serve", args: string[]): ServeOptions | "help" {
  let v;
  try {
    ({ values: v } = parseArgs({
      args,
      options: {
        transport: { type: "string" },
        port: { type: "string" },
        bind: { type: "string" },
        workspace: { type: "string", multiple: true },
        "auto-workspace": { type: "boolean" },
        "allowed-root": { type: "string", multiple: true },
        "max-auto-workspaces": { type: "string" },
        "no-prewarm": { type: "boolean" },
        "no-watch": { type: "boolean" },
        "auth-token": { type: "string" },
        verbose: { type: "boolean", short: "v", multiple: true },
        config: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new CruxeError("invalid_input", `${(e as Error).message}\n\n${SERVE_USAGE}`);
  }
  if (v.help) return "help";
  const num = (s: string | undefined, flag: string): number | undefined => {
    if (s === undefined) return undefined;
    const n = Number(s);
    if (!Number.isInteger(n)) throw new CruxeError("invalid_input", `${flag} must be an integer (got ${s})`);
    return n;
  };
  if (cmd === "serve" && (v.transport || v["auto-workspace"] || v["allowed-root"])) {
    throw new CruxeError(
      "invalid_input",
      `cruxe serve takes only --workspace, --no-watch, -v and --config\n\n${SERVE_USAGE}`,
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
  if (parsed === "help") {
    console.error(SERVE_USAGE); // stdout is reserved for the protocol
    return 0;
  }
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
  await runRawProbeIfAsked(); // test-only, inert unless CRUXE_TEST_RAW_PROBE is set
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
        serveStdio(() => createProtocolServer(rt, dispatcher, { jobProgress: true }), undefined, prewarm),
        stopped,
      ]);
    } else {
      const http = serveHttp(rt, dispatcher, { port: o.port, bind: o.bind, authToken: o.authToken, onListen: prewarm });
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
