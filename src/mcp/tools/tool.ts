/**
 * What one MCP tool is: a name, a description for agents, a zod input schema
 * (published as JSON Schema) and a handler. Handlers call `src/query/` or
 * `src/index/`; routing, validation, metadata and error shapes belong to the
 * dispatch pipeline, never to a tool.
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

/** What a handler receives besides its arguments. */
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
 * `truncated`), a multi-repo answer's `meta.result_completeness`, and
 * `metadata` (replaced by the whole block built from it).
 */
export type ToolBody = object & {
  truncated?: boolean;
  meta?: { result_completeness?: ResultCompleteness };
  /** Set by an answer about another index than the one routed (index_status {ref}): its metadata fields. */
  metadata?: Partial<Omit<ProtocolMetadata, "cruxe_protocol_version">>;
};

/** One tool of the server. */
export interface ToolDef<S extends z.ZodObject = z.ZodObject> {
  name: string;
  /** Description for agents; gets the list of indexed languages. */
  description(languages: string[]): string;
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
  handler(args: z.infer<S>, ctx: ToolContext): ToolBody | Promise<ToolBody>;
}

/** Declares a tool with its schema's types flowing into the handler. */
export function defineTool<S extends z.ZodObject>(def: ToolDef<S>): ToolDef<S> {
  return def;
}
