/**
 * The CLI commands that run a tool (`search`, `locate`, `refs`, `diff`, …),
 * each made from its tool's definition: its name, positional arguments and
 * flags map onto the tool's arguments, and each flag's type, choices and help
 * come from the tool's input schema, so help and behaviour cannot drift.
 * A command calls the service exactly as an MCP client calls the tool:
 * `--json` prints the tool's answer (body and metadata) as it is; without
 * it the full (verbose) answer is formatted for people (`../tool_views.ts`).
 */
import { resolve } from "node:path";
import { z } from "zod";
import { CruxeError, type ErrorCode } from "../../core/errors.ts";
import type { OptionSpec, OptionTable, Parsed } from "../args.ts";
import type { CommandDef } from "../command_def.ts";
import { openContext } from "../context.ts";
import { EXIT_FOUND, EXIT_NOTHING, exitCodeFor, printJson, say } from "../output.ts";
import { userCwd } from "../user_cwd.ts";
import { showAnswer } from "../tool_views.ts";
import { openLocalService } from "../../service/local_service.ts";
import { TOOLS } from "../../service/tools/registry.ts";
import type { CliSpec, ToolDef } from "../../service/tools/tool.ts";
import { teamToolNames } from "../../service/team_service.ts";
import type { ToolResult } from "../../service/envelope.ts";
import { READ_STORE_OPTION, REPO_OPTION, STORE_OPTION, teamArguments, teamStoreOf } from "./store_option.ts";
import { loadConfig } from "../context.ts";

/** The tools a team store answers: their commands take `--store`, `--read-store` and `--repo`. */
const TEAM_TOOLS = new Set(teamToolNames());

/** What a flag's value becomes in the tool's arguments, from the JSON Schema of that argument. */
interface ArgSchema {
  type?: string;
  enum?: string[];
  description?: string;
}

const WORKSPACE_OPTION: OptionSpec = {
  type: "string",
  arg: "PATH",
  help: "project to query (default: the one containing the current directory)",
};
const REF_OPTION: OptionSpec = {
  type: "string",
  arg: "REF",
  help: "branch, tag or commit, read from its index (default: the working tree; see `cruxe index --ref`)",
};

/** The option a flag becomes: its type and choices from the argument's schema, its help from its description. */
function optionFor(flag: string, arg: ArgSchema | undefined): OptionSpec {
  if (!arg) throw new Error(`flag --${flag} names no argument of its tool`);
  const help = (arg.description ?? "").replace(/\s+/g, " ").trim();
  if (arg.type === "boolean") return { type: "boolean", help };
  if (arg.type === "integer" || arg.type === "number") return { type: "string", arg: "N", help };
  if (arg.enum) return { type: "string", arg: arg.enum.join("|"), choices: arg.enum, help };
  return { type: "string", arg: flag.toUpperCase().replace(/-/g, "_"), help };
}

/** Each tool's argument schemas, made once (JSON Schema from zod costs milliseconds a tool). */
const schemasOf = new WeakMap<ToolDef, ToolArgs>();

/** A tool's argument schemas by name, and the names it requires. */
interface ToolArgs {
  props: Record<string, ArgSchema>;
  required: string[];
}

/** The argument schemas of a tool's input, by name, and the names it requires. */
function argSchemas(def: ToolDef): ToolArgs {
  const known = schemasOf.get(def);
  if (known) return known;
  const json = z.toJSONSchema(def.input, { io: "input" }) as {
    properties?: Record<string, ArgSchema>;
    required?: string[];
  };
  const out = { props: json.properties ?? {}, required: json.required ?? [] };
  schemasOf.set(def, out);
  return out;
}

/** Whether the command takes `--ref` (a tool reading one index; not one comparing two refs of its own). */
function takesRef(def: ToolDef, spec: CliSpec): boolean {
  return def.indexGate && !spec.positionals.includes("base_ref");
}

/** The tool's arguments for a parsed command line. */
export function toolArguments(def: ToolDef, spec: CliSpec, p: Parsed<OptionTable>): Record<string, unknown> {
  const schemas = argSchemas(def);
  const values = p.values as Record<string, unknown>;
  const args: Record<string, unknown> = { workspace: (values.workspace as string | undefined) ?? userCwd() };
  if (takesRef(def, spec) && values.ref !== undefined) args.ref = values.ref;
  const words = p.positionals;
  if (spec.positionals.length === 1) {
    const text = words.join(" ").trim();
    if (!text) throw new CruxeError("invalid_input", `cruxe ${spec.command} needs ${spec.usage}`);
    args[spec.positionals[0]] = text;
  } else {
    // Up to the last required one, every positional word must be there.
    const needed = 1 + Math.max(0, ...spec.positionals.map((f, i) => schemas.required.includes(f) ? i : 0));
    if (words.length < needed || words.length > spec.positionals.length) {
      throw new CruxeError(
        "invalid_input",
        `cruxe ${spec.command} takes ${spec.usage} (see cruxe ${spec.command} --help)`,
      );
    }
    words.forEach((w, i) => args[spec.positionals[i]] = w);
  }
  for (const [flag, field] of Object.entries(spec.flags)) {
    const v = values[flag];
    if (v === undefined) continue;
    const t = schemas.props[field]?.type;
    args[field] = t === "integer" || t === "number" ? numberFlag(flag, v as string) : v;
  }
  return args;
}

/** A number flag's value as a number (the tool judges its range); text that is no number is `invalid_input`. */
function numberFlag(flag: string, value: string): number {
  const n = value.trim() === "" ? NaN : Number(value);
  if (!Number.isFinite(n)) {
    throw new CruxeError("invalid_input", `--${flag} needs a number (got "${value}")`, { flag: `--${flag}` });
  }
  return n;
}

/** The command of one tool. */
function commandOf(def: ToolDef, spec: CliSpec): CommandDef {
  const schemas = argSchemas(def);
  const options: OptionTable = {};
  for (const [flag, field] of Object.entries(spec.flags)) options[flag] = optionFor(flag, schemas.props[field]);
  options.workspace = WORKSPACE_OPTION;
  if (takesRef(def, spec)) options.ref = REF_OPTION;
  // The tools a team store answers take its options too (`--ref` reads that ref of the store's repository).
  if (TEAM_TOOLS.has(def.name)) {
    Object.assign(options, { store: STORE_OPTION, "read-store": READ_STORE_OPTION, repo: REPO_OPTION });
    options.ref ??= REF_OPTION;
  }
  return {
    name: spec.command,
    args: spec.usage,
    argsRequired: true,
    summary: spec.summary,
    options,
    examples: [...spec.examples],
    run: (p) => runTool(def, spec, p),
  };
}

/** A service a command calls: the local one, or a team store's. */
interface CommandService {
  call(tool: string, args: Record<string, unknown>): Promise<ToolResult>;
  close(): void | Promise<void>;
  /** The project a workspace argument names, for the human view's paths (null: none, or a team store). */
  projectOf(workspace: string): { name: string; root: string } | null;
  /** True for a team store's service (its calls name a repository of the store, not a directory). */
  team: boolean;
}

/** The service `values` ask for: a team store's (`--store`, `--read-store`, the config's store), else the local one. */
async function openService(def: ToolDef, values: Record<string, unknown>): Promise<CommandService> {
  const team = TEAM_TOOLS.has(def.name) ? teamStoreOf(values) : null;
  const signal = new AbortController().signal;
  const info = { sendNotification: () => Promise.resolve(), signal };
  if (team) {
    const { openTeamService } = await import("../../service/team_open.ts");
    const t = await openTeamService(team, loadConfig(values.config as string | undefined).home, 1);
    return {
      call: (tool, args) => t.service.call(tool, args, info),
      close: t.close,
      projectOf: () => null,
      team: true,
    };
  }
  const ctx = openContext(values.config as string | undefined);
  const service = openLocalService(ctx.config, ctx.registry, userCwd());
  return {
    call: service.call,
    close: service.close,
    team: false,
    projectOf: (workspace) => {
      const project = ctx.registry.projectContaining(resolve(workspace));
      return project && { name: project.name, root: project.repo_root };
    },
  };
}

/** Runs the command: one service call, then the answer as JSON or for people; returns the exit code. */
async function runTool(def: ToolDef, spec: CliSpec, p: Parsed<OptionTable>): Promise<number> {
  const values = p.values as Record<string, unknown>;
  const json = values.json === true;
  const local = toolArguments(def, spec, p);
  const service = await openService(def, values);
  const team = service.team;
  const args = team ? teamArguments(local, values) : local;
  try {
    // People get every field to format; machines get the tool's own answer.
    const result = await service.call(def.name, json || !def.compact ? args : { ...args, verbose: true });
    const answer = result.structuredContent;
    if (result.isError) {
      const e = answer.error as { code: ErrorCode; message: string; data?: Record<string, unknown> };
      if (!json) throw new CruxeError(e.code, e.message, e.data ?? {});
      printJson(answer);
      return exitCodeFor(e.code);
    }
    if (json) printJson(answer);
    else {
      if (team) {
        const m = answer.metadata as { ref: string; ref_commit?: string };
        say(`${spec.command} at ${m.ref} (${m.ref_commit ?? "?"}), team store:`);
      }
      showAnswer(spec.command, answer, service.projectOf(args.workspace as string));
    }
    return (spec.found?.(answer) ?? true) ? EXIT_FOUND : EXIT_NOTHING;
  } finally {
    await service.close();
  }
}

/** The commands made from tool definitions, in the order the tools are listed. */
export function toolCommands(): CommandDef[] {
  return TOOLS.flatMap((def) => def.cli ? [commandOf(def, def.cli)] : []);
}

/** The command called `name` made from its tool's definition (only that one is made), or undefined. */
export function toolCommand(name: string): CommandDef | undefined {
  const def = TOOLS.find((t) => t.cli?.command === name);
  return def?.cli ? commandOf(def, def.cli) : undefined;
}
