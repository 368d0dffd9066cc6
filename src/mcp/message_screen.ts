/**
 * The check every incoming JSON-RPC message passes before the SDK sees it,
 * shared by stdio and HTTP so both refuse the same things the same way:
 *
 * - a batch (a JSON array) is refused with -32600 Invalid Request: MCP
 *   2025-06-18 removed JSON-RPC batching, and answering some of a batch
 *   would make the two transports differ;
 * - anything that is not one JSON-RPC message is -32600;
 * - a request to a method this server answers whose `params` do not fit
 *   that method (`tools/call` with `arguments` an array, a string or null,
 *   `params` not an object, ...) is -32602 Invalid params with a one-line
 *   message naming the field (`data.field`), instead of the SDK's raw schema
 *   dump under -32603.
 *
 * Every refusal carries `invalid_input` in `error.data.code` and the
 * request's id when it has one.
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { jsonRpcError } from "./jsonrpc_errors.ts";

/** A JSON-RPC error response built by `jsonRpcError`. */
export type RpcErrorReply = ReturnType<typeof jsonRpcError>;

/** The outcome of screening one parsed JSON value: the message to hand on, or the reply that refuses it. */
export type Screened = { message: JSONRPCMessage; refusal?: undefined } | {
  message?: undefined;
  refusal: RpcErrorReply;
};

/** The methods this server answers, with the request schemas the SDK would apply to them. */
const REQUEST_SCHEMAS = new Map<string, { safeParse(v: unknown): { success: boolean; error?: unknown } }>([
  ["initialize", InitializeRequestSchema],
  ["ping", PingRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["tools/call", CallToolRequestSchema],
]);

/** The message text of a refused batch (both transports). */
export const BATCH_REFUSED = "Batch requests are not supported: send one JSON-RPC message per request " +
  "(MCP 2025-06-18 removed JSON-RPC batching).";

/** Screens one parsed JSON value received by a transport (see the module comment for the rules). */
export function screenMessage(raw: unknown): Screened {
  if (Array.isArray(raw)) {
    return { refusal: jsonRpcError(null, ErrorCode.InvalidRequest, BATCH_REFUSED, { reason: "batch" }) };
  }
  const rawId = (raw as { id?: unknown } | null)?.id;
  const id = typeof rawId === "string" || typeof rawId === "number" ? rawId : null;
  const req = raw as { jsonrpc?: unknown; method?: unknown } | null;
  // A request to a method we answer is checked against that method first, so bad params (even `params` that
  // is not an object) are Invalid params rather than Invalid Request.
  if (req && typeof req === "object" && req.jsonrpc === "2.0" && id !== null && typeof req.method === "string") {
    const check = REQUEST_SCHEMAS.get(req.method)?.safeParse(raw);
    if (check && !check.success) return { refusal: invalidParams(raw, id, req.method, check.error) };
  }
  const parsed = JSONRPCMessageSchema.safeParse(raw);
  if (!parsed.success) {
    return { refusal: jsonRpcError(id, ErrorCode.InvalidRequest, "Invalid JSON-RPC message") };
  }
  return { message: parsed.data };
}

/** The -32602 reply for a request whose params do not fit its method: one line naming the first bad field. */
function invalidParams(raw: unknown, id: string | number, method: string, error: unknown): RpcErrorReply {
  const issue = (error as { issues?: { path: PropertyKey[]; expected?: string; message: string }[] }).issues?.[0];
  const path = issue?.path ?? ["params"];
  const field = path.map(String).join(".");
  const problem = issue?.expected
    ? `must be ${describeType(issue.expected)}, not ${describeValue(valueAt(raw, path))}`
    : issue?.message ?? "is invalid";
  return jsonRpcError(id, ErrorCode.InvalidParams, `Invalid params for ${method}: ${field} ${problem}`, {
    field,
    method,
  });
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let v = root;
  for (const k of path) v = v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

function describeType(expected: string): string {
  if (expected === "record" || expected === "object") return "an object";
  if (expected === "array") return "an array";
  return `a ${expected}`;
}

function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (v === undefined) return "missing";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}
