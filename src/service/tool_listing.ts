/**
 * The `tools/list` form of a tool: its short description and its input
 * schema without what every tool shares (the `workspace`, `ref` and
 * `verbose` descriptions, explained once in the session's instructions), the
 * `$schema` dialect line, the bounds of unbounded integers and the length
 * caps of free-text arguments (the server still enforces them). The full form
 * is what `tool_help` returns.
 */
/** A tool as `tools/list` and `tool_help` describe it (the MCP `Tool` shape). */
export interface ToolListing {
  name: string;
  description?: string;
  inputSchema: { type: "object"; properties?: Record<string, object>; required?: string[]; [k: string]: unknown };
}

/** Arguments every tool (or every index-reading tool) takes, described in the instructions instead. */
const SHARED_ARGS = ["workspace", "ref", "verbose"];

/** A string argument capped at this length or more is free text: its cap is left out of the listing. */
const FREE_TEXT_CAP = 4096;

/** The lean listing of a tool whose full listing is `full` and whose short description is `summary`. */
export function leanListing(full: ToolListing, summary: string): ToolListing {
  const schema = structuredClone(full.inputSchema) as ToolListing["inputSchema"] & { $schema?: string };
  delete schema.$schema;
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const k of SHARED_ARGS) if (props[k]) delete props[k].description;
  for (const p of Object.values(props)) {
    if (p.minimum === Number.MIN_SAFE_INTEGER) delete p.minimum;
    if (p.maximum === Number.MAX_SAFE_INTEGER) delete p.maximum;
    if (typeof p.maxLength === "number" && p.maxLength >= FREE_TEXT_CAP) delete p.maxLength;
  }
  return { name: full.name, description: summary, inputSchema: schema };
}
