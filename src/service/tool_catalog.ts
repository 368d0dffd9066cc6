/**
 * The tools a service answers, compiled once from their definitions: each
 * tool's full argument schema (its own arguments plus the shared
 * `workspace`, `verbose` and `ref`), its listings, and the one argument
 * check every service runs (`validate`). The local dispatcher and a team
 * replica both answer through it, so a tool takes the same arguments and is
 * listed the same way whichever answers it.
 */
import { z } from "zod";
import { CruxeError } from "../core/errors.ts";
import { languageIds } from "../core/languages.ts";
import { verboseArg } from "./compact.ts";
import { leanListing, type ToolListing } from "./tool_listing.ts";
import { refArg, type ToolBody, type ToolDef, workspaceArg } from "./tools/tool.ts";
import { toolHelpTool } from "./tools/tool_help.ts";
import type { NotificationSend } from "./progress_notifier.ts";
import type { ToolResult } from "./envelope.ts";

/** One compiled tool. */
export interface CompiledTool {
  def: ToolDef;
  schema: z.ZodObject;
  /** The full listing (tool_help's answer; `tools/list` publishes its lean form), made on first use. */
  listing(): ToolListing;
}

/** Compiles `defs`, by name (JSON Schema listings are made only when first asked for). */
export function compileTools(defs: readonly ToolDef[]): Map<string, CompiledTool> {
  const languages = languageIds();
  const out = new Map<string, CompiledTool>();
  for (const def of defs) {
    const schema = def.input.extend({
      workspace: workspaceArg.optional(),
      ...(def.compact ? { verbose: verboseArg.optional() } : {}),
      ...(def.indexGate && !("ref" in def.input.shape) ? { ref: refArg.optional() } : {}),
    });
    let listing: ToolListing | null = null;
    out.set(def.name, {
      def,
      schema,
      listing: () =>
        listing ??= {
          name: def.name,
          description: def.description(languages),
          inputSchema: z.toJSONSchema(schema, { io: "input" }) as ToolListing["inputSchema"],
        },
    });
  }
  return out;
}

/**
 * Compiles `defs` and `tool_help`, whose answer lists every compiled tool and
 * says which `enabled()` names (it is itself always to be enabled).
 */
export function compileWithHelp(
  defs: readonly ToolDef[],
  enabled: () => ReadonlySet<string>,
): Map<string, CompiledTool> {
  const help = toolHelpTool(() =>
    [...tools.values()].map(({ def, listing }) => ({
      name: def.name,
      summary: def.summary,
      description: listing().description ?? "",
      input_schema: listing().inputSchema,
      enabled: enabled().has(def.name),
      profile: def.profile,
    }))
  );
  const tools = compileTools([...defs, help]);
  return tools;
}

/** The body a call answers with: the handler's full answer, or the tool's compact form of it unless `verbose`. */
export function answerBody(def: ToolDef, full: ToolBody, verbose: unknown): ToolBody {
  return verbose === true || !def.compact ? full : def.compact(full as Record<string, unknown>);
}

/** The lean `tools/list` entries of the tools among `tools` that `enabled` names, in order. */
export function leanListings(tools: Map<string, CompiledTool>, enabled: ReadonlySet<string>): ToolListing[] {
  return [...tools.values()].filter((t) => enabled.has(t.def.name)).map((t) => leanListing(t.listing(), t.def.summary));
}

/** Parses arguments with a tool's schema; any mismatch is `invalid_input` listing every issue. */
export function validate(schema: z.ZodObject, raw: unknown): Record<string, unknown> {
  const r = schema.safeParse(raw);
  if (r.success) return r.data as Record<string, unknown>;
  const issues = r.error.issues.map((i) => ({
    path: i.path.map(String).join(".") || "(arguments)",
    message: i.message,
    code: i.code,
  }));
  throw new CruxeError(
    "invalid_input",
    `Invalid arguments: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
    { issues },
  );
}

/** What a transport knows about one `tools/call`. */
export interface CallInfo {
  /** `params._meta.progressToken`, when the client sent one. */
  progressToken?: string | number;
  /** Sends a notification related to this call (on HTTP: onto the call's SSE stream). */
  sendNotification: NotificationSend;
  signal: AbortSignal;
  /** The session the call belongs to, when the transport has one (stdio: `stdio`; HTTP: none). */
  session?: string;
}

/** What a transport answers through: the local dispatcher, or a team replica's service. */
export interface ToolService {
  /** The `tools/list` entries. */
  listTools(): ToolListing[];
  /** Answers one `tools/call`; throws `UnknownToolError` only for a tool the service does not answer. */
  call(name: string, args: unknown, info: CallInfo): Promise<ToolResult>;
}

/** A call names a tool this server does not have, or does not enable (the call itself is malformed). */
export class UnknownToolError extends Error {
  /** The tools the server answers. */
  readonly tools: string[];

  constructor(message: string, tools: string[]) {
    super(message);
    this.tools = tools;
  }
}

/** The error for a call of `name`, which `tools` may hold but `enabled` does not name. */
export function unknownTool(name: string, tools: Map<string, CompiledTool>, enabled: ReadonlySet<string>) {
  const why = tools.has(name)
    ? `Tool ${name} is not enabled on this server (start it with --tools naming it, or a profile holding it)`
    : `Unknown tool: ${name}`;
  return new UnknownToolError(why, [...enabled]);
}
