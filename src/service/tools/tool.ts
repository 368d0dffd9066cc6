/**
 * What one tool is, said once: its name, descriptions for agents (the short
 * one `tools/list` publishes and the full one `tool_help` returns), the
 * profile it belongs to, its zod input schema (the only validation; published
 * as JSON Schema, and the source of its CLI flags and their help), where it
 * runs, its compact answer form, its index gate and its CLI command. Handlers
 * call `src/query/` or `src/index/`; routing, validation, metadata and error
 * shapes belong to the dispatch pipeline, never to a tool.
 *
 * Where a tool runs is declared, and the compiler holds it: a reader tool's
 * handler (`defineReaderTool`) gets a `ReaderContext`, the routed index and
 * nothing of the server, so it can run in a reader worker; a handler that
 * reaches for the runtime does not type-check there and is a main tool
 * (`defineTool`).
 */
import { z } from "zod";
import type { Db } from "../../state/db.ts";
import type { IndexView } from "../../query/index_reader.ts";
import type { ActiveJob } from "../../state/jobs.ts";
import type { ServerRuntime } from "../runtime.ts";
import type { RoutedWorkspace } from "../workspace_router.ts";
import type { ProtocolMetadata, ResultCompleteness } from "../../core/metadata.ts";
import type { ProgressSink } from "../progress_notifier.ts";

/** Longest string accepted in any tool argument (bigger inputs are refused, not cut). */
export const MAX_ARG_CHARS = 64 * 1024;

/** The `workspace` argument every tool accepts (added by the registry, not by each tool). */
export const workspaceArg = z.string().min(1).max(4096).describe(
  "Absolute path of the repository to act on. Omit to use the server's default workspace.",
);

/** A git ref as tools accept it (the ref rule checks it further: no leading `-`, no ranges, paths or globs). */
export const refName = z.string().min(1).max(512);

/** The `ref` argument every index-reading tool accepts (added by the dispatcher when the tool has none). */
export const refArg = refName.describe(
  "Branch, tag, remote branch or commit to answer from (a name always means its commit, the checked-out " +
    'branch too; "WORKTREE" is the live working tree). Omit for the session\'s default (the working tree ' +
    "unless switch_ref changed it); a ref must be indexed first (index_repo with ref).",
);

/** The `ref` argument of index_repo and sync_repo. */
export const indexRefArg = refName.describe(
  "Branch, tag, remote branch or commit to index from git objects (nothing is checked out; the same commit " +
    'again is a no-op; the checked-out branch too means its commit). Default, or "WORKTREE": the working tree.',
);

/** What a reader tool's handler receives besides its arguments: the routed index, and nothing of the server. */
export interface ReaderContext {
  /** A database that can answer queries. */
  db(): Db;
  /** Aborted when the client cancels the call or the server shuts down. */
  signal: AbortSignal;
}

/** What a main tool's handler receives besides its arguments. */
export interface ToolContext {
  runtime: ServerRuntime;
  /** False only for a server-wide tool called when no workspace exists at all (then `route` throws). */
  routed: boolean;
  route: RoutedWorkspace;
  /** The current read view of the routed project's index. */
  view(): IndexView;
  /** A database that can answer queries, or the registry error saying why not. */
  db(): Db;
  /** The routed project's running job, if any. */
  activeJob(): ActiveJob | undefined;
  /** Where progress for this call goes when the client sent `_meta.progressToken`. */
  progress: ProgressSink | null;
  /** Aborted when the client cancels the call or the server shuts down. */
  signal: AbortSignal;
  /**
   * True when the server's semantic layer is on (an embeddings endpoint is
   * configured): `search_code` then embeds the query and fuses vector hits.
   * A reader worker is never sent such a call, and says false.
   */
  semantic: boolean;
  /**
   * The calling session, for state kept per session (`switch_ref`): `stdio` for
   * the stdio server; undefined over HTTP, which is stateless.
   */
  session?: string;
}

/**
 * What a handler returns: the tool's body (without metadata). Besides its
 * own fields, the dispatcher reads three: `truncated` (the envelope then says
 * `truncated`), `meta` (its `result_completeness`, and its `scope` when the
 * answer covers a scope of repositories), and `metadata` (replaced by the
 * whole block built from it).
 */
export type ToolBody = object & {
  truncated?: boolean;
  meta?: { result_completeness?: ResultCompleteness; scope?: unknown };
  /** Set by an answer about another index than the one routed (index_status {ref}): its metadata fields. */
  metadata?: Partial<Omit<ProtocolMetadata, "cruxe_protocol_version">>;
};

/** The tool profiles a server can enable by name (`serve-mcp --tools core,refs`). */
export const PROFILES = ["core", "refs", "index", "git", "ask"] as const;
/** A tool profile's name. */
export type Profile = typeof PROFILES[number];

/**
 * A tool's CLI command: its name, the positional arguments (each the tool
 * argument it fills), and its flags (each the tool argument it fills; the
 * flag's type, choices, bounds and help come from the input schema).
 */
export interface CliSpec {
  command: string;
  summary: string;
  /** Positional words in order: the tool argument each fills; the first is required. */
  positionals: readonly string[];
  /** How the positionals read in usage (`QUERY`, `BASE [HEAD]`). */
  usage: string;
  /** Flag name (without `--`) → the tool argument it fills. `--workspace` and `--ref` need no entry. */
  flags: Readonly<Record<string, string>>;
  /** Command lines that work as shown, each with a `#` comment. */
  examples: readonly string[];
  /** Whether an answer holds anything (the exit code: 0 found, 1 nothing matched). Default: always found. */
  found?(body: Record<string, unknown>): boolean;
}

/** What every tool declares, wherever it runs. */
interface ToolCommon<S extends z.ZodObject> {
  name: string;
  /** Full description for agents (`tool_help`); gets the list of indexed languages. */
  description(languages: string[]): string;
  /** What `tools/list` publishes: what the tool answers and when to pick it, in a sentence or two. */
  summary: string;
  /** The profile that holds it (none: only `all` or its name enables it). */
  profile?: Profile;
  /** Input schema without `workspace` (the registry adds it). Strict: unknown keys are refused. */
  input: S;
  /**
   * Whether the dispatcher gates the call on the routed workspace's index:
   * `true` routes `ref` to the index of that ref (`ref_not_indexed`, `overlay_not_ready`) and, while
   * that workspace's first index is still being built, answers an empty
   * partial body instead of running the handler (tools that read the routed
   * index). `false` always runs the handler: jobs, status and health, and
   * tools that read files from disk or judge readiness per repository of
   * their own scope (open_file, ask_code).
   */
  indexGate: boolean;
  /** Answers even when no workspace can be routed (health_check on a fresh server). */
  serverWide?: boolean;
  /** Only reports status: a call does not make its workspace one in use (it is not watched for it). */
  statusOnly?: boolean;
  /**
   * The answer's compact form (what an agent gets unless it asks `verbose: true`); a tool without one
   * answers its body as it is and takes no `verbose` argument.
   */
  compact?(body: Record<string, unknown>): Record<string, unknown>;
  /** Its CLI command, when it has one. */
  cli?: CliSpec;
}

/** A tool whose handler needs the server (the runtime, jobs, the routed workspace): it runs on the main thread. */
export interface MainToolDef<S extends z.ZodObject = z.ZodObject> extends ToolCommon<S> {
  runs: "main";
  handler(args: z.infer<S>, ctx: ToolContext): ToolBody | Promise<ToolBody>;
}

/**
 * A tool that reads only the routed index: a reader worker answers it (the main thread when there is
 * none). `onMain` takes the calls that need the server (search_code with `scope` or the semantic layer).
 */
export interface ReaderToolDef<S extends z.ZodObject = z.ZodObject> extends ToolCommon<S> {
  runs: "worker";
  handler(args: z.infer<S>, ctx: ReaderContext): ToolBody | Promise<ToolBody>;
  onMain?: {
    /** True when this call needs the main thread (`semantic`: the server's semantic layer is on). */
    when(args: z.infer<S>, semantic: boolean): boolean;
    handler(args: z.infer<S>, ctx: ToolContext): ToolBody | Promise<ToolBody>;
  };
}

/** One tool of the server. */
export type ToolDef<S extends z.ZodObject = z.ZodObject> = MainToolDef<S> | ReaderToolDef<S>;

/** Declares a tool that runs on the main thread, with its schema's types flowing into the handler. */
export function defineTool<S extends z.ZodObject>(def: Omit<MainToolDef<S>, "runs">): MainToolDef<S> {
  return { ...def, runs: "main" };
}

/** Declares a tool that reads only the index (a reader worker may answer it). */
export function defineReaderTool<S extends z.ZodObject>(def: Omit<ReaderToolDef<S>, "runs">): ReaderToolDef<S> {
  return { ...def, runs: "worker" };
}
