/**
 * `cruxe serve-mcp --store URL`: a stateless team replica. It serves the core
 * tools (locate_symbol, get_file_outline, search_code, open_file) over stdio
 * or HTTP from the indexes workers published to the store; it keeps nothing
 * of its own, so any number of replicas can answer for one store, each
 * connecting with the read-only role. The HTTP checks (Host, Origin, bearer
 * token) are the local server's own. Requires `--allow-net` to the database
 * (and the listen address for HTTP).
 */
import { info } from "../../core/log.ts";
import { printable } from "../../core/printable.ts";
import { VERSION } from "../../core/version.ts";
import { PgTeamStore } from "../../state/pg/pg_team_store.ts";
import { redactedStoreUrl } from "../../state/pg/store_url.ts";
import { checkServeOptions, type ServeOptions } from "../../mcp/serve_options.ts";
import { serveStdio } from "../../mcp/stdio.ts";
import { serveHttpBackend } from "../../mcp/http.ts";
import { createTeamProtocolServer } from "../../mcp/team_protocol_server.ts";
import { watchParent } from "../parent_watch.ts";

/** Connections a replica keeps to the store (one per concurrent call, up to this). */
const REPLICA_POOL = 8;

/** Serves the team store at `url` until stdin closes (stdio) or SIGINT/SIGTERM; resolves to the exit code. */
export async function runTeamServe(options: ServeOptions, url: string): Promise<number> {
  const o = checkServeOptions(options);
  const store = await PgTeamStore.open(url, { migrate: false, max: REPLICA_POOL });
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
      await Promise.race([serveStdio(() => createTeamProtocolServer(store)), stopped]);
      return 0;
    }
    const shown = redactedStoreUrl(url);
    const http = serveHttpBackend({
      createServer: () => createTeamProtocolServer(store),
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
    await store.close();
  }
}
