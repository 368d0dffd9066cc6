/**
 * The MCP protocol object of a team replica (`serve-mcp --store`): the SDK's
 * `Server` with `tools/list` giving the core tools a team store answers and
 * `tools/call` going to the one team entry (`callTeamTool`). A replica holds
 * no state of its own: every call reads the store, and an answer names the
 * repository, ref and commit it read. Errors are tool results carrying the
 * registry code, as the local server's are.
 */
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "../core/version.ts";
import { toCruxeError } from "../core/errors.ts";
import { warn } from "../core/log.ts";
import { callTeamTool, teamToolListing } from "../service/team_call.ts";
import type { PgTeamStore } from "../state/pg/pg_team_store.ts";
import { RpcError } from "./jsonrpc_errors.ts";

/** What a team session is told once. */
const TEAM_INSTRUCTIONS = "Cruxe team replica: answers locate_symbol, get_file_outline, search_code and open_file " +
  "from the indexes workers published to a shared store. Every tool takes `repo` (a repository name; default: " +
  "the only one) and `ref` (default: the repository's first ref); every answer's metadata names the commit read.";

/** A tool result holding `body` (or the error `e`) as JSON text and structured content. */
function toolResult(body: object, isError = false) {
  return { content: [{ type: "text" as const, text: JSON.stringify(body) }], structuredContent: body, isError };
}

/** Builds the SDK server of one session of a team replica reading `store`. */
export function createTeamProtocolServer(store: PgTeamStore): Server {
  const server = new Server({ name: "cruxe", version: VERSION }, {
    capabilities: { tools: { listChanged: false } },
    instructions: TEAM_INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: teamToolListing() as never }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    try {
      return toolResult(await callTeamTool(store, req.params.name, req.params.arguments));
    } catch (e) {
      const err = toCruxeError(e);
      if (err.code === "internal_error") warn(`team tool ${req.params.name} failed: ${(e as Error)?.stack ?? e}`);
      return toolResult({ error: err.toJSON() }, true);
    }
  });
  server.fallbackRequestHandler = (req) => {
    throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${req.method}`);
  };
  return server;
}
