/**
 * `cruxe serve-mcp` (MCP over stdio or HTTP) and `cruxe serve` (register and
 * index the workspace, default `.`, in the background, then serve stdio —
 * what `deno task serve` runs): the server, run by the process that serves
 * (the command's parse and launch are in `./serve_cmd.ts`). `runServe` is the
 * single entry a permission sandbox can wrap. Requires `--allow-read`/`--allow-write` on the Cruxe home
 * and the workspaces, `--allow-env`, `--allow-run=git`, and for HTTP
 * `--allow-net` on the listen address.
 */
import { info, setLogLevel, warn } from "../../core/log.ts";
import { printable } from "../../core/printable.ts";
import { registerProject } from "../../index/project_setup.ts";
import { type CliContext, openContext } from "../context.ts";
import { Dispatcher } from "../../service/dispatch.ts";
import { diskFull } from "../../io/disk_space.ts";
import { TOOLS } from "../../service/tools/registry.ts";
import { resolveToolSet } from "../../service/tool_set.ts";
import { ServerRuntime } from "../../service/runtime.ts";
import { checkServeOptions, type ServeOptions } from "../../mcp/serve_options.ts";
import { createProtocolServer } from "../../mcp/protocol_server.ts";
import { serveStdio } from "../../mcp/stdio.ts";
import { serveHttp } from "../../mcp/http.ts";
import { watchParent } from "../parent_watch.ts";
import type { ProjectRow, Registry } from "../../state/registry.ts";

/**
 * Serves MCP until stdin closes (stdio), SIGINT/SIGTERM, or the parent
 * process exits. On the way out,
 * running jobs end `interrupted` (reported at the next start) and stores
 * close. Resolves to the exit code.
 */
export async function runServe(options: ServeOptions): Promise<number> {
  setLogLevel(options.verbose);
  const o = checkServeOptions(options);
  const ctx = openContext(o.configPath);
  const enabled = resolveToolSet(o.tools ?? ctx.config.tools ?? undefined, TOOLS);
  if (ctx.interruptedAtStart) {
    warn(`${ctx.interruptedAtStart} index job(s) were interrupted by a previous stop; resuming them`);
  }
  const pinned = registerWorkspaces(ctx, o.workspaces);
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
  const dispatcher = new Dispatcher(rt, TOOLS, enabled);
  // Served workspaces not indexed yet (or left half-indexed by a stop) start indexing now, not at the first call.
  const sync = o.indexOnStart && pinned[0] ? [pinned[0]] : [];
  for (const p of rt.indexServed([...pinned, ...autoWorkspaces(ctx.registry, o)], sync)) {
    info(`indexing ${p.repo_root} in the background`);
  }
  if (o.transport === "stdio" && Deno.stdin.isTerminal()) {
    // A person started this in a terminal: say what it is waiting for (stderr; stdout is the protocol's).
    console.error(printable(
      `cruxe: serving MCP on stdio${pinned[0] ? ` for ${pinned[0].repo_root}` : ""}. ` +
        `Connect an MCP client to this command (see README); Ctrl-D or Ctrl-C stops it.`,
    ));
  }
  // Prewarm and watching start once the transport serves, so they never delay the first handshake.
  const prewarm = () => {
    const warm = o.prewarm ? rt.warmset.select() : [];
    // A query worker's modules load now rather than in the first query's time.
    rt.warmReaders([...pinned, ...warm]); // health says warming until it is done
    setTimeout(() => rt.live.begin(pinned, warm), 0);
    if (o.prewarm) setTimeout(() => void rt.warmset.run(), 0);
  };

  let stopHttp: (() => Promise<void>) | null = null;
  let resolveStop!: () => void;
  const stopped = new Promise<void>((r) => resolveStop = r);
  const offStop = onStopRequest(() => {
    rt.shuttingDown = true;
    resolveStop();
  });
  try {
    if (o.transport === "stdio") {
      await Promise.race([
        serveStdio(
          () => createProtocolServer(dispatcher, { jobProgress: rt.progress, session: "stdio" }),
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
    offStop();
    rt.shuttingDown = true;
    // Jobs first, so calls waiting on one are not what holds the shutdown up.
    rt.runner.shutdown();
    await stopHttp?.();
    rt.close();
  }
  return 0;
}

/** The auto-discovered workspaces a server with `--auto-workspace` serves (none without it). */
function autoWorkspaces(registry: Registry, o: ServeOptions): ProjectRow[] {
  if (!o.autoWorkspace) return [];
  return registry.listWorkspaces().filter((w) => w.auto_discovered === 1)
    .map((w) => registry.getProject(w.project_id))
    .filter((p): p is ProjectRow => !!p);
}

/**
 * Registers the `--workspace` folders. On a full disk the registry turns
 * read-only instead (said on stderr): registered workspaces are served from
 * their indexes with syncing off.
 */
function registerWorkspaces(ctx: CliContext, workspaces: string[]): ProjectRow[] {
  const pinned = workspaces.map((w) => ctx.registry.writeOrReadOnly(() => registerProject(ctx.registry, w)));
  // A registration can still fit in space the registry's log already holds: a full disk is read-only all the same.
  if (!ctx.registry.readOnly && diskFull(ctx.config.home)) ctx.registry.goReadOnly("disk_full");
  if (ctx.registry.readOnly === "disk_full") {
    warn(`the disk holding ${ctx.config.home} is full: serving the existing indexes read-only; syncing is off`);
  }
  return pinned;
}

/**
 * Calls `stop` on SIGINT/SIGTERM or when the parent process exits (a
 * launcher killed without forwarding a signal: serving on would hold the
 * port for nobody). Returns a function that removes the triggers.
 */
function onStopRequest(stop: () => void): () => void {
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const s of signals) Deno.addSignalListener(s, stop);
  const stopWatch = watchParent(() => {
    info("the parent process exited; stopping");
    stop();
  });
  return () => {
    stopWatch();
    for (const s of signals) Deno.removeSignalListener(s, stop);
  };
}

/**
 * Says on stderr where the HTTP server listens: the MCP endpoint a client is
 * given and the health probe (stdout stays free; always printed, since a person
 * or a log needs the port, which may have been chosen by the system).
 */
function announceHttp(bind: string, port: number, workspace: string | undefined): void {
  const host = bind.includes(":") && !bind.startsWith("[") ? `[${bind}]` : bind;
  const base = `http://${host}:${port}`;
  console.error(printable(
    `cruxe: MCP over HTTP on ${base}/mcp (also ${base}/)${workspace ? ` for ${workspace}` : ""}; ` +
      `health: ${base}/health. Ctrl-C stops it.`,
  ));
}
