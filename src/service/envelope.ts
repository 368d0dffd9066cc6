/**
 * The response envelope of every tool call: the tool's body plus Protocol v1
 * `metadata`, as JSON text content and as `structuredContent`; and the one
 * place where a thrown error becomes a protocol error
 * (`isError: true`, `{error: {code, message, data}}`, registry codes only).
 */
import { CruxeError, toCruxeError } from "../core/errors.ts";
import { buildMetadata, type ProtocolMetadata } from "../core/metadata.ts";
import { warn } from "../core/log.ts";

/** An MCP `tools/call` result as Cruxe sends it. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** A successful result: body + metadata. */
export function successResult(body: object, metadata: ProtocolMetadata): ToolResult {
  const payload = { ...body, metadata };
  return { content: [{ type: "text", text: JSON.stringify(payload) }], structuredContent: payload };
}

/** Metadata for an error raised before any project was routed. */
export function unroutedMetadata(): ProtocolMetadata {
  return buildMetadata({ indexing_status: "not_indexed", schema_status: "not_indexed" });
}

/**
 * Turns anything thrown by validation, routing or a tool into an error
 * result. Unknown errors become `internal_error` (and are logged to stderr).
 */
export function errorResult(err: unknown, metadata: ProtocolMetadata): ToolResult {
  if (!(err instanceof CruxeError)) warn(`tool failed: ${(err as Error)?.stack ?? String(err)}`);
  const e = toCruxeError(err);
  const payload = { error: e.toJSON(), metadata };
  return { content: [{ type: "text", text: JSON.stringify(payload) }], structuredContent: payload, isError: true };
}
