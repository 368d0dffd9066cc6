/**
 * `cruxe serve-mcp --store URL`: a stateless team replica. It serves every
 * index-reading tool and `open_file` over stdio or HTTP from the indexes
 * workers published to the store (`TeamService`); what it keeps (copies of
 * the published shards under the Cruxe home) is a cache, so any number of
 * replicas can answer for one store, each connecting with the read-only role. The HTTP checks (Host, Origin, bearer
 * token) are the local server's own. Requires `--allow-net` to the database
 * (and the listen address for HTTP).
 */
import { debug, info } from "../../core/log.ts";
import { printable } from "../../core/printable.ts";
import { VERSION } from "../../core/version.ts";
import { openTeamService } from "../../service/team_open.ts";
import { loadConfig } from "../context.ts";
import { redactedStoreUrl } from "../../state/pg/store_url.ts";
import { checkServeOptions, type ServeOptions } from "../../mcp/serve_options.ts";
import { serveStdio } from "../../mcp/stdio.ts";
import { serveHttpBackend } from "../../mcp/http.ts";
import { createProtocolServer } from "../../mcp/protocol_server.ts";
import { watchParent } from "../parent_watch.ts";

/** What a team session is told once. */
const TEAM_INSTRUCTIONS = "Cruxe team replica: answers the index-reading tools (search_code, locate_symbol, " +
  "get_file_outline, find_references, get_call_graph, get_code_context, …) and open_file from the indexes workers " +
  "published to a shared store; index_repo {ref} asks the workers to index a ref now (the session's next query " +
  "of it waits for the publish; over HTTP pass wait: true). `workspace` names a repository of the store (its name; default: the only one) " +
  "and `ref` one of its published refs (default: its first); every answer's metadata names the ref and the " +
  "commit read (ref_commit). `verbose: true` gives every field. tool_help {tool} gives a tool's full description.";

/** How often a replica looks for newly published heads to copy (NOTIFY does not reach a streaming replica). */
const WARM_EVERY_MS = 10_000;

/** Runs `warm` now and every `WARM_EVERY_MS` (one run at a time) until stopped; failures are logged. */
function keepWarm(warm: () => Promise<number>): { stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const run = async () => {
    try {
      const n = await warm();
      if (n) info(`copied ${n} newly published index shard(s)`);
    } catch (e) {
      debug(`copying published shards ahead of calls failed: ${(e as Error).message}`);
    }
    if (!stopped) timer = setTimeout(run, WARM_EVERY_MS);
  };
  timer = setTimeout(run, 0);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** Connections a replica keeps to the store (one per concurrent call, up to this). */
const REPLICA_POOL = 8;

/** Serves the team store at `url` until stdin closes (stdio) or SIGINT/SIGTERM; resolves to the exit code. */
export async function runTeamServe(options: ServeOptions, url: string): Promise<number> {
  const o = checkServeOptions(options);
  // index_repo writes its request to the primary (`--store`) even when reads go to a streaming replica.
  const team = await openTeamService(url, loadConfig(o.configPath).home, REPLICA_POOL, o.store ?? url);
  // Published heads are copied ahead of the calls that read them: at start, then every WARM_EVERY_MS.
  const warm = keepWarm(team.warmHeads);
  const session = (extra: { session?: string }) =>
    createProtocolServer(team.service, { instructions: TEAM_INSTRUCTIONS, ...extra });
  let stop!: () => void;
  const stopped = new Promise<void>((r) => stop = r);
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const s of signals) Deno.addSignalListener(s, stop);
  // A launcher (the sandbox's parent) killed without forwarding a signal: serving on would hold the port for nobody.
  const stopWatch = watchParent(() => {
    info("the parent process exited; stopping");
    stop();
  });
  try {
    if (o.transport === "stdio") {
      await Promise.race([serveStdio(() => session({ session: "stdio" })), stopped]);
      return 0;
    }
    const shown = redactedStoreUrl(url);
    const http = serveHttpBackend({
      createServer: () => session({}),
      health: () => ({ status: "ok", version: VERSION, role: "team_replica", store: shown }),
    }, {
      port: o.port,
      bind: o.bind,
      authToken: o.authToken,
      onListen: (addr) => {
        const host = o.bind.includes(":") && !o.bind.startsWith("[") ? `[${o.bind}]` : o.bind;
        console.error(printable(
          `cruxe: MCP over HTTP on http://${host}:${addr.port}/mcp (team replica of ${shown}); ` +
            `health: http://${host}:${addr.port}/health. Ctrl-C stops it.`,
        ));
      },
    });
    await Promise.race([http.finished, stopped]);
    info("stopping");
    await http.shutdown(5000);
    return 0;
  } finally {
    stopWatch();
    for (const s of signals) Deno.removeSignalListener(s, stop);
    warm.stop();
    await team.close();
  }
}
