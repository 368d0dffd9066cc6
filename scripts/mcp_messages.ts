/**
 * JSON-RPC messages a plain MCP client writes over stdio, for the scripts and
 * tests that speak to `cruxe serve-mcp` without an SDK: the handshake and a
 * tool call.
 */

/** `initialize` (id 1, as `clientName`) followed by `notifications/initialized`. */
export function mcpHandshake(clientName: string): Record<string, unknown>[] {
  return [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: clientName, version: "1" } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
  ];
}

/** A `tools/call` request of `name` with `args`. */
export function toolCall(id: number | string, name: string, args: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}
