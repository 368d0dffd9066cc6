/**
 * MCP over HTTP (on `serveHttp1`, which bounds every connection: the
 * request head within HEADER_TIMEOUT_MS, the body within BODY_TIMEOUT_MS):
 * `GET /health`, the status page (`GET /ui`, its live section `GET /ui/live`) and `POST /mcp` or
 * `POST /` (JSON-RPC through the same dispatch pipeline as stdio). Compatible with MCP Streamable HTTP clients:
 *
 * - Stateless: no `Mcp-Session-Id` is issued; every POST stands alone (a
 *   fresh SDK Server + WebStandardStreamableHTTPServerTransport per request,
 *   sharing the runtime). So `GET /` is 405 (there is no standalone SSE
 *   stream) and job-token progress is not pushed over HTTP; a `tools/call`
 *   that carries `_meta.progressToken` (from a client that accepts
 *   `text/event-stream`) is answered as an SSE stream with its progress and
 *   then its result; everything else is plain JSON.
 * - Status codes: 200 (also for JSON-RPC errors), 400 malformed JSON or an empty body (-32700),
 *   invalid JSON-RPC or a batch (`invalid_input` in `error.data.code`; see
 *   `screenMessage`, which stdio applies too), 401 bad token,
 *   403 Host/Origin refused, 404 unknown path, 405 wrong method, 413 body
 *   over MAX_BODY_BYTES (refused from Content-Length, or while streaming,
 *   never read whole), 431 a head over MAX_HEAD_BYTES or MAX_HEADERS fields,
 *   500 internal. No Content-Type is read as JSON.
 * - DNS rebinding: `Host` must name the bound address or a loopback name;
 *   an `Origin`, when sent, must be a loopback or bound-address origin.
 *   Optional bearer token (`--auth-token` / `CRUXE_AUTH_TOKEN`).
 * Requires `--allow-net` on the listen address.
 */
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { Server } from "@modelcontextprotocol/sdk/server";
import { timingSafeEqual } from "node:crypto";
import { CruxeError } from "../core/errors.ts";
import { debug, warn } from "../core/log.ts";
import type { Dispatcher } from "../service/dispatch.ts";
import { buildHealth } from "../service/health.ts";
import { STATUS_LIVE_PATH, statusLiveResponse, statusPageResponse, wantsStatusPage } from "./status_page.ts";
import { renderStatus } from "./status_html.ts";
import { statusSnapshot } from "./status_snapshot.ts";
import { decorateErrors, jsonRpcError } from "./jsonrpc_errors.ts";
import { createProtocolServer } from "./protocol_server.ts";
import type { ServerRuntime } from "../service/runtime.ts";
import { isLoopback } from "./serve_options.ts";
import { concatChunks } from "../core/byte_chunks.ts";
import { type Http1Server, serveHttp1 } from "./http1_server.ts";
import { screenMessage } from "./message_screen.ts";

/** Largest accepted request body. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Longest wait for a complete request head (a connection that sends part of one is closed after it). */
export const HEADER_TIMEOUT_MS = 20_000;
/** Longest wait for a request body once its head has arrived. */
export const BODY_TIMEOUT_MS = 60_000;
/** Largest request head (request line and headers); a larger one is answered 431. */
export const MAX_HEAD_BYTES = 64 * 1024;
/** Most header fields in one request head; more are answered 431. */
export const MAX_HEADERS = 100;

/** HTTP listener settings. */
export interface HttpOptions {
  port: number;
  bind: string;
  authToken?: string;
  /** Called once listening (with the real port, for `--port 0`). */
  onListen?: (addr: { hostname: string; port: number }) => void;
  /** Header-read timeout; HEADER_TIMEOUT_MS unless a test needs a short one. */
  headerTimeoutMs?: number;
  /** Body-read timeout; BODY_TIMEOUT_MS unless a test needs a short one. */
  bodyTimeoutMs?: number;
}

/** A running HTTP server. */
export interface HttpHandle {
  port: number;
  finished: Promise<void>;
  /** Stops accepting, waits (bounded) for in-flight requests. */
  shutdown(graceMs?: number): Promise<void>;
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function rpcErrorResponse(status: number, code: number, message: string, data: Record<string, unknown> = {}) {
  return json(status, jsonRpcError(null, code, message, data));
}

/**
 * What an HTTP server serves: an SDK server per request, the health probe's
 * answer, and the status page (a server without one answers it 404).
 */
export interface HttpBackend {
  createServer(): Server;
  health(): unknown;
  status?(): string;
}

/** The backend of a Cruxe runtime: the dispatch pipeline, its health and its status page. */
function runtimeBackend(rt: ServerRuntime, dispatcher: Dispatcher): HttpBackend {
  return {
    createServer: () => createProtocolServer(dispatcher, {}),
    health: () => buildHealth(rt),
    status: () => renderStatus(statusSnapshot(rt, dispatcher)),
  };
}

/** Builds the request handler of `backend` (the token, Host and Origin checks are the same for every backend). */
export function httpHandler(
  backend: HttpBackend,
  opts: { port: () => number; bind: string; authToken?: string },
): (req: Request) => Promise<Response> {
  const { hostAllowed, originAllowed, tokenIs, authorized } = requestGuards(opts);
  return async (req: Request): Promise<Response> => {
    try {
      if (!hostAllowed(req.headers.get("host"))) {
        return rpcErrorResponse(403, -32000, "Forbidden: Host header is not this server's address", {
          code: "forbidden",
        });
      }
      if (!originAllowed(req.headers.get("origin"))) {
        return rpcErrorResponse(403, -32000, "Forbidden: Origin is not allowed", { code: "forbidden" });
      }
      // The status page: a browser cannot send a bearer header when opening it, so `?token=` stands in.
      const url = new URL(req.url);
      const page = backend.status;
      if (
        page && wantsStatusPage(req, url.pathname) && (authorized(req) || tokenIs(url.searchParams.get("token") ?? ""))
      ) {
        return statusPageResponse(req, page());
      }
      if (!authorized(req)) {
        return json(
          401,
          jsonRpcError(null, -32000, "Unauthorized: missing or wrong bearer token", {
            code: "forbidden",
          }),
          { "www-authenticate": 'Bearer realm="cruxe"' },
        );
      }
      const path = url.pathname;
      if (path === "/health") {
        if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed("GET");
        return json(200, backend.health(), { "cache-control": "no-store" });
      }
      if (path === STATUS_LIVE_PATH && page) {
        if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed("GET");
        return statusLiveResponse(req, page());
      }
      if (!MCP_PATHS.includes(path)) {
        return rpcErrorResponse(404, -32000, `Not found: ${path}`, { code: "invalid_input" });
      }
      if (req.method !== "POST") return methodNotAllowed("POST");
      return await handlePost(backend, req);
    } catch (e) {
      warn(`HTTP request failed: ${(e as Error)?.stack ?? e}`);
      return rpcErrorResponse(500, ErrorCode.InternalError, "Internal error");
    }
  };
}

/**
 * The request checks of one server: the Host header names its address (any
 * name when bound to a wildcard address, where the token is the guard), an
 * Origin is its own or loopback, and the bearer token matches in constant time.
 */
function requestGuards(opts: { port: () => number; bind: string; authToken?: string }) {
  const wildcard = opts.bind === "0.0.0.0" || opts.bind === "::" || opts.bind === "[::]";
  const bindName = opts.bind.includes(":") && !opts.bind.startsWith("[") ? `[${opts.bind}]` : opts.bind;
  const hostNames = new Set([...LOOPBACK_NAMES, bindName.toLowerCase()]);
  const token = opts.authToken ? new TextEncoder().encode(opts.authToken) : null;

  const hostAllowed = (host: string | null): boolean => {
    if (wildcard) return true; // reachable under any name; the required token is the guard
    if (!host) return false;
    const h = host.toLowerCase();
    const m = h.match(/^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/);
    if (!m) return false;
    if (m[2] !== undefined && Number(m[2]) !== opts.port()) return false;
    return hostNames.has(m[1]);
  };
  const originAllowed = (origin: string | null): boolean => {
    if (origin === null) return true; // not a browser cross-origin request
    let u: URL;
    try {
      u = new URL(origin);
    } catch {
      return false;
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") return false;
    const name = u.hostname.toLowerCase();
    return hostNames.has(name) || hostNames.has(`[${name}]`) || (wildcard && isLoopback(name));
  };
  const tokenIs = (value: string): boolean => {
    const given = new TextEncoder().encode(value.trim());
    return !!token && given.length === token.length && timingSafeEqual(given, token);
  };
  const authorized = (req: Request): boolean => {
    if (!token) return true;
    const m = (req.headers.get("authorization") ?? "").match(/^Bearer\s+(.+)$/i);
    return !!m && tokenIs(m[1]);
  };
  return { hostAllowed, originAllowed, tokenIs, authorized };
}

function methodNotAllowed(allow: string): Response {
  return json(405, jsonRpcError(null, -32000, "Method not allowed", { code: "invalid_input" }), { allow });
}

/** Reads at most `limit` bytes of a body; null when it is larger. */
async function readLimited(req: Request, limit: number): Promise<Uint8Array | null> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) return null;
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    parts.push(value);
  }
  return concatChunks(parts, size);
}

async function handlePost(backend: HttpBackend, req: Request): Promise<Response> {
  let bytes: Uint8Array | null;
  try {
    bytes = await readLimited(req, MAX_BODY_BYTES);
  } catch {
    // The client stopped sending (or was cut off at the body timeout): its fault, not ours.
    return rpcErrorResponse(400, ErrorCode.InvalidRequest, "Request body was not received completely");
  }
  if (!bytes) {
    return rpcErrorResponse(413, ErrorCode.InvalidRequest, `Request body exceeds ${MAX_BODY_BYTES} bytes`, {
      max_bytes: MAX_BODY_BYTES,
    });
  }
  if (!bytes.length) return rpcErrorResponse(400, ErrorCode.ParseError, "Parse error: the request body is empty");
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    return rpcErrorResponse(400, ErrorCode.ParseError, `Parse error: ${(e as Error).message}`);
  }
  const screened = screenMessage(raw);
  if (screened.refusal) {
    // A message that is not one JSON-RPC request is a bad HTTP request; bad params of a good one is a JSON-RPC error.
    return json(screened.refusal.error.code === ErrorCode.InvalidParams ? 200 : 400, screened.refusal);
  }
  const message = screened.message as { method?: string; params?: { _meta?: { progressToken?: unknown } } };
  const accept = req.headers.get("accept") ?? "";
  const streamed = accept.includes("text/event-stream") && message.method === "tools/call" &&
    message.params?._meta?.progressToken !== undefined;
  // The SDK transport insists on both media types in Accept and a JSON Content-Type; we answer
  // plain-JSON clients too (spec: no Content-Type is read as JSON), so normalize before handing over.
  const headers = new Headers(req.headers);
  headers.set("accept", "application/json, text/event-stream");
  headers.set("content-type", "application/json");
  const inner = new Request(req.url, { method: "POST", headers });
  const transport = decorateErrors(
    new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streamed }),
  );
  const server = backend.createServer();
  await server.connect(transport);
  const res = await transport.handleRequest(inner, { parsedBody: raw });
  if (!streamed || !res.body) {
    await server.close();
    return res;
  }
  // Close the per-request server once the SSE stream has delivered the result.
  const body = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({ flush: () => void server.close().catch(() => {}) }),
  );
  return new Response(body, { status: res.status, headers: res.headers });
}

/** Paths serving the MCP endpoint: `/mcp`, where most clients look, and `/`. */
export const MCP_PATHS = ["/mcp", "/"];

/** Starts listening for a Cruxe runtime; `Port N is already in use` is an `invalid_input` error. */
export function serveHttp(rt: ServerRuntime, dispatcher: Dispatcher, o: HttpOptions): HttpHandle {
  return serveHttpBackend(runtimeBackend(rt, dispatcher), o);
}

/** Starts listening for `backend`; `Port N is already in use` is an `invalid_input` error. */
export function serveHttpBackend(backend: HttpBackend, o: HttpOptions): HttpHandle {
  if (!isLoopback(o.bind)) {
    warn(`binding to ${o.bind}: the server is reachable from other machines (bearer token required)`);
  }
  let port = o.port;
  const handler = httpHandler(backend, { port: () => port, bind: o.bind, authToken: o.authToken });
  let server: Http1Server;
  try {
    server = serveHttp1({
      hostname: o.bind.replace(/^\[|\]$/g, ""),
      port: o.port,
      headerTimeoutMs: o.headerTimeoutMs ?? HEADER_TIMEOUT_MS,
      bodyTimeoutMs: o.bodyTimeoutMs ?? BODY_TIMEOUT_MS,
      maxHeadBytes: MAX_HEAD_BYTES,
      maxHeaders: MAX_HEADERS,
      onListen: (addr) => {
        port = addr.port;
        debug(`listening on ${addr.hostname}:${addr.port}`); // the CLI prints the URLs people use
        o.onListen?.({ hostname: addr.hostname, port: addr.port });
      },
      onError: (e) => {
        warn(`HTTP handler error: ${(e as Error)?.message ?? e}`);
        return rpcErrorResponse(500, ErrorCode.InternalError, "Internal error");
      },
      onBadRequest: (status, message) => rpcErrorResponse(status, ErrorCode.InvalidRequest, message),
    }, handler);
  } catch (e) {
    if (e instanceof Deno.errors.AddrInUse) {
      throw new CruxeError(
        "invalid_input",
        `Port ${o.port} is already in use. Choose a different port with --port.`,
        { port: o.port },
      );
    }
    throw e;
  }
  return {
    get port() {
      return port;
    },
    finished: server.finished,
    async shutdown(graceMs = 5000) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<void>((r) => timer = setTimeout(r, graceMs));
      await Promise.race([server.shutdown(), timeout]);
      clearTimeout(timer);
    },
  };
}
