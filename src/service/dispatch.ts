/**
 * The service's one entry, `call(tool, args, context)`, which stdio, HTTP
 * and the CLI all use (so every way in gives the same answer for the same
 * call): look up the
 * tool → validate the arguments with its zod schema → route the workspace
 * (middleware) → run the handler → wrap the body in the Protocol v1
 * envelope. Errors from any step become an `isError` result in
 * `errorResult`; an unknown tool is an `UnknownToolError` (the call itself is
 * malformed: a transport answers it at the protocol level, `invalid_input`).
 */
import { CruxeError } from "../core/errors.ts";
import { debugEnabled } from "../core/log.ts";
import { buildMetadata, type ProtocolMetadata } from "../core/metadata.ts";
import { type IndexView, requireIndex } from "../query/index_reader.ts";
import { indexVerdict, jobElsewhere, lastJobFailed } from "../query/index_status.ts";
import { storageFix } from "../state/storage_errors.ts";
import type { ProjectRow } from "../state/registry.ts";
import { errorResult, successResult, type ToolResult, unroutedMetadata } from "./envelope.ts";
import { dropDeleted } from "./live_sync.ts";
import { ProgressSink } from "./progress_notifier.ts";
import type { ServerRuntime } from "./runtime.ts";
import type { RoutedWorkspace } from "./workspace_router.ts";
import { TOOLS } from "./tools/registry.ts";
import { callFailure, ToolStats } from "./tool_stats.ts";
import type { ReaderContext, ReaderToolDef, ToolBody, ToolContext, ToolDef } from "./tools/tool.ts";
import { readViewFor, type RefRead, sessionRef } from "./ref_router.ts";
import type { ToolListing } from "./tool_listing.ts";
import {
  answerBody,
  type CallInfo,
  type CompiledTool,
  compileWithHelp,
  leanListings,
  unknownTool,
  validate,
} from "./tool_catalog.ts";
import { TOOL } from "../core/tool_names.ts";
import { explainNotIndexed } from "./not_indexed.ts";
import { answerPaths, changedSinceIndex } from "./answer_files.ts";

/** Validates, routes and answers tool calls for one runtime. */
export class Dispatcher {
  private tools: Map<string, CompiledTool>;
  private lean: ToolListing[] | null = null;
  /** Calls, errors and latencies of each tool since the server started (an unknown tool's call is not counted). */
  readonly stats = new ToolStats();
  private enabled: ReadonlySet<string>;

  /**
   * `enabled`: the names of the tools this server lists and answers (`resolveToolSet`); every tool when
   * undefined. `tool_help` is added to `tools` and always enabled.
   */
  constructor(private rt: ServerRuntime, tools: ToolDef[] = TOOLS, enabled?: ReadonlySet<string>) {
    this.tools = compileWithHelp(tools, () => this.enabled);
    this.enabled = new Set([...(enabled ?? this.tools.keys()), TOOL.tool_help]);
  }

  /**
   * The `tools/list` entries of the enabled tools, in their lean form (JSON Schema from the zod schemas;
   * every one has optional `workspace`).
   */
  listTools(): ToolListing[] {
    return this.lean ??= leanListings(this.tools, this.enabled);
  }

  /**
   * Runs one call of a tool, counted in `stats`: the one way every transport and the CLI reach a tool. Throws
   * `UnknownToolError` only for a tool this server does not answer; everything else is a result.
   */
  async call(name: string, rawArgs: unknown, call: CallInfo): Promise<ToolResult> {
    const started = performance.now();
    const result = await this.answer(name, rawArgs, call);
    this.stats.record(name, performance.now() - started, callFailure(result));
    this.rt.live.answered();
    return result;
  }

  private async answer(name: string, rawArgs: unknown, call: CallInfo): Promise<ToolResult> {
    const tool = this.tools.get(name);
    if (!tool || !this.enabled.has(name)) throw unknownTool(name, this.tools, this.enabled);
    let project: ProjectRow | null = null;
    let read: RefRead | null = null;
    let leave = () => {};
    try {
      if (this.rt.shuttingDown) {
        throw new CruxeError("internal_error", "The server is shutting down; retry against a new instance.", {
          reason: "shutting_down",
        });
      }
      const args = validate(tool.schema, rawArgs ?? {});
      const route = await this.resolve(tool.def, args.workspace as string | undefined);
      if (!route) return successResult(await this.runServerWide(tool.def, args, call), unroutedMetadata());
      project = route.project;
      leave = this.rt.router.enter(project.project_id);
      // Asking how a workspace is (a status page polls every project) does not make it one in use.
      if (!tool.def.statusOnly) this.rt.live.use(project);
      const { verbose, ...routedArgs } = args;
      // A server in debug mode (`-v -v`) answers as if every call asked for its tool's debug details.
      if ("debug" in tool.def.input.shape && routedArgs.debug === undefined && debugEnabled()) routedArgs.debug = true;
      if (tool.def.indexGate) {
        // Without a ref (argument or session default) the working tree answers as it always did.
        const ref = typeof args.ref === "string" ? args.ref : sessionRef(this.rt, call.session, project.project_id);
        if (ref !== undefined) read = await readViewFor(this.rt, project, ref);
        if (!("ref" in tool.def.input.shape)) delete routedArgs.ref;
      }
      const full = read && !read.live
        ? await this.runOnRef(tool.def, routedArgs, route, call, read)
        : await this.run(tool.def, routedArgs, route, call);
      const body = answerBody(tool.def, full, verbose);
      // An answer about another index than the one routed (index_status {ref}) says what it is about.
      const metadata = body.metadata
        ? buildMetadata({ result_completeness: body.truncated === true ? "truncated" : "complete", ...body.metadata })
        : this.metadata(route.project, body.truncated === true, read);
      // A multi-repo answer (scope/repo) knows when one of its repositories was still indexing, or when it
      // cut something (ask_code's answer); partial outranks truncated, which outranks complete.
      const own = body.meta?.result_completeness;
      if (own === "partial" || (own === "truncated" && metadata.result_completeness === "complete")) {
        metadata.result_completeness = own;
      }
      // An answer from the working tree's own index (not a ref's, not a scope of repositories') checks its files.
      if (tool.def.indexGate && !body.metadata && !body.meta?.scope && (!read || read.live)) {
        this.noteChangedFiles(route.project, body, metadata);
      }
      return successResult(body, metadata);
    } catch (err) {
      // A damaged or unusable index answers with its registry code (and marks the project), never internal_error.
      const refView = read && !read.live ? read.view : undefined;
      const fault = project ? this.rt.readers.fault(project, err, refView) : err;
      return errorResult(fault, project ? this.metadata(project, false, read) : unroutedMetadata());
    } finally {
      leave();
    }
  }

  /**
   * Routes a call. A server-wide tool (health_check) called without `workspace` on a server with no
   * project at all still answers (null route); every other routing failure is the call's error.
   */
  private async resolve(def: ToolDef, workspace: string | undefined): Promise<RoutedWorkspace | null> {
    try {
      return await this.rt.router.resolve(workspace);
    } catch (err) {
      // A server-wide tool answers unrouted when the default workspace is missing or its root moved (it says so).
      const unroutable = err instanceof CruxeError &&
        (err.code === "project_not_found" || err.data.reason === "root_moved");
      if (def.serverWide && workspace === undefined && unroutable) return null;
      throw err;
    }
  }

  /** Runs a server-wide tool with no routed workspace: `ctx.routed` is false and `route` throws. */
  private async runServerWide(def: ToolDef, args: Record<string, unknown>, call: CallInfo): Promise<ToolBody> {
    const noRoute = () => {
      throw new CruxeError("project_not_found", "No workspace is registered.", {});
    };
    const ctx: ToolContext = {
      runtime: this.rt,
      routed: false,
      get route(): RoutedWorkspace {
        return noRoute();
      },
      view: noRoute,
      db: noRoute,
      activeJob: () => undefined,
      progress: null,
      signal: call.signal,
      session: call.session,
      semantic: this.rt.embedder !== null,
    };
    const { workspace: _ws, ...toolArgs } = args;
    return await this.runOnThisThread(def, toolArgs, ctx);
  }

  private async run(
    def: ToolDef,
    args: Record<string, unknown>,
    route: RoutedWorkspace,
    call: CallInfo,
  ): Promise<ToolBody> {
    const rt = this.rt;
    const id = route.project.project_id;
    const ctx = this.toolContext(route, call, () => rt.readers.view(route.project), {
      activeJob: () => rt.runner.activeFor(id),
      progress: call.progressToken !== undefined
        ? new ProgressSink(rt.runner, call.progressToken, call.sendNotification)
        : null,
    });
    const { workspace: _ws, ...toolArgs } = args;
    if (!def.indexGate) return await this.runOnThisThread(def, toolArgs, ctx);
    try {
      return await this.runIndexed(def, toolArgs, route, ctx);
    } catch (err) {
      throw explainNotIndexed(err, (path) => rt.live.explainAbsent(route.project, path));
    }
  }

  /** Runs an index-reading tool on the working tree's index (see `run`). */
  private async runIndexed(
    def: ToolDef,
    toolArgs: Record<string, unknown>,
    route: RoutedWorkspace,
    ctx: ToolContext,
  ): Promise<ToolBody> {
    const rt = this.rt;
    const id = route.project.project_id;
    const view = ctx.view();
    // A first index run by this process or by another live Cruxe process (`cruxe index` beside the server).
    const own = ctx.activeJob();
    const other = own ? undefined : jobElsewhere(rt.registry, id);
    const job = own?.job ?? other;
    if (job && view.schemaStatus === "not_indexed") {
      // First index still running: answer at once with what exists (nothing yet) and how to follow it
      // (never block a call on a first index).
      const partial = {
        results: [],
        total_candidates: 0,
        indexing: {
          job_id: job.job_id,
          progress_token: job.progress_token,
          estimated_completion_pct: own ? own.last?.percentage ?? 0 : other?.estimated_completion_pct ?? 0,
          message: `${route.project.repo_root} is being indexed; results will be complete when ` +
            "metadata.indexing_status is ready (poll index_status or follow the progress token).",
        },
      };
      return partial; // a named object: the body type takes any fields
    }
    // Read-your-writes: a known, not yet indexed change gets a bounded wait; deleted files are never answered.
    await rt.live.settle(id);
    // The view as it is after the wait (a publish meanwhile replaces it); the worker trusts its file identity.
    const settled = ctx.view();
    const body = await this.viaReaderPool(def, toolArgs, settled, settled.storeId);
    return dropDeleted(
      rt.live,
      route.project,
      (body ?? await this.runOnThisThread(def, toolArgs, ctx)) as Record<string, unknown>,
    );
  }

  /**
   * Runs an index-reading tool on an indexed git commit: it never changes once
   * published, so no first-index gate, no read-your-writes wait and no live deletions apply.
   */
  private async runOnRef(
    def: ToolDef,
    args: Record<string, unknown>,
    route: RoutedWorkspace,
    call: CallInfo,
    read: RefRead,
  ): Promise<ToolBody> {
    const { workspace: _ws, ...toolArgs } = args;
    const pooled = await this.viaReaderPool(def, toolArgs, read.view);
    if (pooled) return pooled;
    // A worker hands a call back when the commit was rebuilt or evicted since it was looked up: look again.
    const current = !read.commit || this.rt.readers.cachedRefView(route.project, read.commit) === read.view;
    // The answer's metadata describes what it was read from: `read` becomes the new read.
    if (!current) Object.assign(read, await readViewFor(this.rt, route.project, read.ref));
    const ctx = this.toolContext(route, call, () => read.view, { activeJob: () => undefined, progress: null });
    return await this.runOnThisThread(def, toolArgs, ctx);
  }

  /** Runs a handler on this thread: a reader tool's with only the index, a main tool's with the whole context. */
  private async runOnThisThread(def: ToolDef, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolBody> {
    if (def.runs === "main") return await def.handler(args, ctx);
    if (this.needsMain(def, args)) return await def.onMain!.handler(args, ctx);
    const reader: ReaderContext = { db: ctx.db, signal: ctx.signal };
    return await def.handler(args, reader);
  }

  /** True when a reader tool's call needs the main thread (its `onMain.when`). */
  private needsMain(def: ReaderToolDef, args: Record<string, unknown>): boolean {
    return def.onMain?.when(args, this.rt.embedder !== null) ?? false;
  }

  /** A routed tool call's context, reading `view`. */
  private toolContext(
    route: RoutedWorkspace,
    call: CallInfo,
    view: () => IndexView,
    job: Pick<ToolContext, "activeJob" | "progress">,
  ): ToolContext {
    return {
      runtime: this.rt,
      routed: true,
      route,
      view,
      db: () => requireIndex(view()),
      ...job,
      signal: call.signal,
      session: call.session,
      semantic: this.rt.embedder !== null,
    };
  }

  /**
   * Runs a read-only query tool in a reader worker when it may run there over a usable index (a
   * snapshot-opened store, or one the handler must report as not ready or incompatible, stays on this
   * thread: null). `storeId`: the file identity the worker trusts instead of checking it again.
   */
  private async viaReaderPool(
    def: ToolDef,
    toolArgs: Record<string, unknown>,
    view: IndexView,
    storeId?: IndexView["storeId"],
  ): Promise<ToolBody | null> {
    if (def.runs === "main" || this.needsMain(def, toolArgs) || !this.rt.readerPool.running) return null;
    // The first worker is still loading (a few hundred ms after start): this thread has the query code and
    // the index open, so a call then does not wait for the worker.
    if (this.rt.readerPool.warming) return null;
    if (view.readOnly || !view.db || view.schemaStatus !== "compatible") return null;
    return await this.rt.readerPool.run(def.name, toolArgs, view.storePath, storeId, view.scope?.refId);
  }

  /**
   * An answer quoting files edited since the last sync is not `fresh`: it says `stale` and names them (a
   * watcher that has seen the edit says `syncing` already; a command-line call runs no watcher and no scan).
   */
  private noteChangedFiles(project: ProjectRow, body: unknown, metadata: ProtocolMetadata): void {
    if (metadata.freshness_status !== "fresh") return;
    let changed: string[];
    try {
      const db = this.rt.readers.view(project).db;
      changed = db ? changedSinceIndex(db, project.repo_root, answerPaths(body)) : [];
    } catch {
      return; // a check that cannot run (a store closing, a tree not readable) leaves the answer as it was
    }
    if (!changed.length) return;
    metadata.freshness_status = "stale";
    const listed = changed.slice(0, 5).join(", ") + (changed.length > 5 ? ", …" : "");
    metadata.warnings = [
      ...(metadata.warnings ?? []),
      `${changed.length} file${changed.length === 1 ? "" : "s"} this answer quotes changed since the last index ` +
      `(${listed}); ${TOOL.sync_repo} (\`cruxe sync\`) brings them in`,
    ];
  }

  /** Protocol v1 metadata for a project as it is now (for an answer from a ref's store: that store's). */
  metadata(project: ProjectRow, truncated: boolean, read: RefRead | null = null): ProtocolMetadata {
    const rt = this.rt;
    if (read && !read.live) {
      return buildMetadata({
        freshness_status: read.stale ? "stale" : "fresh",
        indexing_status: "ready",
        result_completeness: truncated ? "truncated" : "complete",
        ref: read.ref,
        ref_commit: read.commit,
        schema_status: read.view.schemaStatus,
        ...(read.stale ? { warnings: [read.stale] } : {}),
      });
    }
    const view = rt.readers.view(project);
    // A job another live Cruxe process runs on this project counts as much as one of ours.
    const active = rt.runner.activeFor(project.project_id) ?? jobElsewhere(rt.registry, project.project_id);
    const indexing =
      indexVerdict(view, { running: !!active, lastFailed: lastJobFailed(rt.registry, project), stale: false })
        .indexing;
    const live = rt.live.syncing(project);
    const metadata = buildMetadata({
      freshness_status: active || live ? "syncing" : rt.freshness.status(project, view),
      indexing_status: indexing,
      result_completeness: active ? "partial" : truncated ? "truncated" : "complete",
      ref: view.ref ?? project.default_ref,
      schema_status: view.schemaStatus,
      ...(view.readOnly ? { warnings: [readOnlyWarning(rt.registry.home, view.readOnly)] } : {}),
    });
    if (live) metadata.pending_changes = rt.live.pendingPaths(project.project_id);
    return metadata;
  }
}

/** The warning every answer from a store that cannot be written carries. */
function readOnlyWarning(home: string, reason: string): string {
  return `read-only store (${reason}): ${home} cannot be written, so answers come from the existing index and ` +
    `syncing is off; ${storageFix(reason === "disk_full" ? "disk_full" : "read_only", home)}.`;
}
