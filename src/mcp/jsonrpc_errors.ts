/**
 * JSON-RPC level errors carry a registry code in `error.data.code` (so a
 * client reads one code list whatever layer failed): malformed or invalid messages, unknown methods and bad
 * params are `invalid_input`; anything else the protocol layer reports is
 * `internal_error`. Applied to every outgoing message of a transport.
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ErrorCode as RegistryCode } from "../core/errors.ts";

/** The registry code for a JSON-RPC error code. */
export function registryCodeFor(jsonRpcCode: number): RegistryCode {
  switch (jsonRpcCode) {
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.MethodNotFound:
    case ErrorCode.InvalidParams:
      return "invalid_input";
    default:
      return "internal_error";
  }
}

/** A JSON-RPC error response with the registry code in `data`. */
export function jsonRpcError(
  id: string | number | null,
  code: number,
  message: string,
  data: Record<string, unknown> = {},
) {
  return { jsonrpc: "2.0" as const, id, error: { code, message, data: { code: registryCodeFor(code), ...data } } };
}

/** Adds `data.code` to an outgoing JSON-RPC error that lacks it; other messages pass unchanged. */
export function withRegistryCode(message: JSONRPCMessage): JSONRPCMessage {
  const err = (message as { error?: { code: number; message: string; data?: unknown } }).error;
  if (!err) return message;
  const data = err.data;
  if (data && typeof data === "object" && typeof (data as { code?: unknown }).code === "string") return message;
  const extra = data === undefined
    ? {}
    : data && typeof data === "object" && !Array.isArray(data)
    ? data as Record<string, unknown>
    : { detail: data };
  return { ...message, error: { ...err, data: { code: registryCodeFor(err.code), ...extra } } } as JSONRPCMessage;
}

/** Makes every error a transport sends carry its registry code. Returns the same transport. */
export function decorateErrors<T extends Transport>(transport: T): T {
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options?: Parameters<Transport["send"]>[1]) =>
    send(withRegistryCode(message), options);
  return transport;
}

/** A JSON-RPC error thrown from a request handler (the SDK sends `code`, `message`, `data` as they are). */
export class RpcError extends Error {
  readonly code: number;
  readonly data: Record<string, unknown>;

  constructor(code: number, message: string, data: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.data = { code: registryCodeFor(code), ...data };
  }
}
