/**
 * The MCP protocol object of one session: the SDK's low-level `Server`
 * (initialize, ping, capability negotiation) with `tools/list` and
 * `tools/call` handed to the dispatch pipeline, unknown methods answered
 * with `invalid_input`, and job-token progress for clients that opted in.
 */
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "../core/version.ts";
import { languageIds } from "../core/languages.ts";
import { RpcError } from "./jsonrpc_errors.ts";
import { type ToolService, UnknownToolError } from "../service/tool_catalog.ts";
import {
  clientWantsJobProgress,
  type JobProgressBroadcaster,
  type ProgressNotification,
} from "../service/progress_notifier.ts";

/** Session options. */
export interface SessionOptions {
  /**
   * Where long-lived sessions (stdio) that can receive job-token progress
   * after `initialize` subscribe; absent for HTTP requests, which are
   * stateless and get progress only on the SSE stream of the call that asked
   * for it, and for a team replica, which runs no jobs.
   */
  jobProgress?: JobProgressBroadcaster;
  /** What the session is told once (default: `instructions()`, the local server's). */
  instructions?: string;
  /**
   * The key of state kept per session (`switch_ref`'s default ref). stdio
   * serves one session per process (`stdio`); HTTP is stateless and has none.
   */
  session?: string;
}

/**
 * What every session is told once: how to pick a tool, the arguments every
 * tool shares (their descriptions are left out of `tools/list`), where the
 * full descriptions are, and the indexed languages.
 */
export function instructions(): string {
  return "Cruxe answers code-navigation questions from a local index: locate_symbol for definitions, " +
    "search_code for anything else, get_file_outline / get_symbol_hierarchy / find_related_symbols to navigate, " +
    "find_references / get_call_graph for uses and callers, get_code_context for a token-bounded bundle, " +
    "open_file to read lines. Every answer carries metadata (indexing_status, freshness_status, " +
    "result_completeness); call sync_repo when it says stale. Arguments every tool takes: `workspace` (absolute " +
    "path of the repository to act on; default: the server's workspace); `ref` on index-reading tools (a branch, " +
    'tag or commit to answer from, indexed first with index_repo {ref}; "WORKTREE" is the working tree); ' +
    "`verbose: true` for every field instead of the compact answer. Paged answers say truncated and give the " +
    "cursor or call that gets more. tool_help {tool} gives a tool's full description and arguments; tool_help {} " +
    `lists every tool, including those this server does not enable. Indexed languages: ${languageIds().join(", ")}.`;
}

/**
 * The SDK builds an Ajv instance per Server for elicitation schemas (0.3 ms,
 * paid per HTTP request since those are stateless). Cruxe never elicits.
 */
const NO_ELICITATION = {
  getValidator: () => () => ({ valid: false as const, data: undefined, errorMessage: "Cruxe does not elicit input" }),
};

/** Builds the SDK server of one session answering through `service`. */
export function createProtocolServer(service: ToolService, opts: SessionOptions): Server {
  const server = new Server(
    { name: "cruxe", version: VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: opts.instructions ?? instructions(),
      jsonSchemaValidator: NO_ELICITATION,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: service.listTools() }));
  server.setRequestHandler(
    CallToolRequestSchema,
    async (req, extra) => {
      try {
        return await service.call(req.params.name, req.params.arguments, {
          progressToken: req.params._meta?.progressToken,
          sendNotification: (n: ProgressNotification) => extra.sendNotification(n),
          signal: extra.signal,
          session: opts.session,
        });
      } catch (e) {
        // A call of a tool the server does not answer is malformed: a JSON-RPC error, not a tool result.
        if (e instanceof UnknownToolError) throw new RpcError(ErrorCode.InvalidParams, e.message, { tools: e.tools });
        throw e;
      }
    },
  );
  server.fallbackRequestHandler = (req) => {
    throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${req.method}`);
  };
  const jobProgress = opts.jobProgress;
  if (jobProgress) {
    let remove: (() => void) | null = null;
    server.oninitialized = () => {
      remove?.();
      remove = clientWantsJobProgress(server.getClientCapabilities())
        ? jobProgress.add({ send: (n) => server.notification(n) })
        : null;
    };
    const prevClose = server.onclose;
    server.onclose = () => {
      remove?.();
      prevClose?.();
    };
  }
  return server;
}
