/**
 * The service of a team replica (`serve-mcp --store`, and the CLI's tool
 * commands with `--store`): the same tool definitions, argument schemas,
 * compaction and envelope as the local dispatcher, answered from the team
 * store. A call is routed to a (repository, ref) of the store
 * (`./team_router.ts`), its published head is read, and an index-reading
 * tool runs its own handler on the head's shard (the build's SQLite index,
 * copied once into this replica's cache by `ShardCache`), so its answer is
 * the one a local index of that commit gives. `open_file` reads the file's
 * stored blob. `index_repo` asks the workers to index a ref now
 * (`./team_refresh.ts`). Tools that need a working tree or a server's state
 * (syncing, switching refs, comparing refs, asking an LLM) are not listed.
 * Every answer's metadata names the ref and the commit read.
 */
import { CruxeError } from "../core/errors.ts";
import { buildMetadata } from "../core/metadata.ts";
import { TOOL } from "../core/tool_names.ts";
import { fileWindow, windowArgs } from "../query/open_file.ts";
import type { PgTeamStore } from "../state/pg/pg_team_store.ts";
import type { ShardCache } from "../state/pg/shard_cache.ts";
import type { TeamHead } from "../state/pg/team_store.ts";
import { errorResult, successResult, type ToolResult, unroutedMetadata } from "./envelope.ts";
import { answerBody, type CallInfo, compileWithHelp, leanListings, unknownTool, validate } from "./tool_catalog.ts";
import type { ToolListing } from "./tool_listing.ts";
import { callFailure, ToolStats } from "./tool_stats.ts";
import { TOOLS } from "./tools/registry.ts";
import type { MainToolDef, ReaderToolDef, ToolBody, ToolContext, ToolDef } from "./tools/tool.ts";
import { teamHead, teamTarget } from "./team_router.ts";
import type { TeamRefresh } from "./team_refresh.ts";

/** The tools a replica answers with its own reads instead of a handler over an index. */
const READ_FROM_BLOBS = new Set<string>([TOOL.open_file]);
/** Tools a replica answers only when it can write requests to the primary. */
const NEEDS_WRITER = new Set<string>([TOOL.index_repo]);

/** Whether a replica answers `def`: every reader tool, the tools it reads blobs for, and `index_repo`. */
function answeredByReplica(def: ToolDef): boolean {
  return def.runs === "worker" || READ_FROM_BLOBS.has(def.name) || NEEDS_WRITER.has(def.name);
}

/** The tools a team replica lists and answers (with `tool_help`); `index_repo` only with a primary to ask. */
export function teamToolNames(withWriter = true): string[] {
  const defs = TOOLS.filter((d) => answeredByReplica(d) && (withWriter || !NEEDS_WRITER.has(d.name)));
  return [...defs.map((d) => d.name), TOOL.tool_help];
}

/** Answers tool calls from a team store. */
export class TeamService {
  private tools = compileWithHelp(TOOLS, () => this.enabled);
  private enabled: ReadonlySet<string>;
  private lean: ToolListing[] | null = null;
  /** Calls, errors and latencies of each tool since the replica started. */
  readonly stats = new ToolStats();

  /**
   * Reads `store` (the read store: a streaming replica, or the primary)
   * through the copies of `shards`; `refresh`, when given, takes
   * `index_repo` requests and makes a session's next read wait for them.
   */
  constructor(
    private readonly store: PgTeamStore,
    private readonly shards: ShardCache,
    private readonly refresh: TeamRefresh | null = null,
  ) {
    this.enabled = new Set(teamToolNames(refresh !== null));
  }

  /** The `tools/list` entries of the tools a replica answers. */
  listTools(): ToolListing[] {
    return this.lean ??= leanListings(this.tools, this.enabled);
  }

  /** Runs one call; throws `UnknownToolError` only for a tool a replica does not answer. */
  async call(name: string, rawArgs: unknown, call: CallInfo): Promise<ToolResult> {
    const tool = this.tools.get(name);
    if (!tool || !this.enabled.has(name)) throw unknownTool(name, this.tools, this.enabled);
    const started = performance.now();
    let head: TeamHead | null = null;
    let ref = "";
    let result: ToolResult;
    try {
      const args = validate(tool.schema, rawArgs ?? {});
      const { workspace, verbose, ...toolArgs } = args;
      const refArg = args.ref as string | undefined;
      // A tool that takes `ref` itself (search_code names it in its suggested calls) keeps it, as locally.
      if (!("ref" in tool.def.input.shape)) delete toolArgs.ref;
      if (tool.def.name === TOOL.tool_help) {
        result = successResult(await (tool.def as MainToolDef).handler(toolArgs, NO_RUNTIME), unroutedMetadata());
      } else {
        const repo = (workspace ?? (READ_FROM_BLOBS.has(name) ? toolArgs.repo : undefined)) as string | undefined;
        if (READ_FROM_BLOBS.has(name)) delete toolArgs.repo;
        const target = teamTarget(await this.store.listRepos(), repo, refArg);
        ref = target.ref;
        if (NEEDS_WRITER.has(name)) {
          const asked = await this.refresh!.request(target, call.session, toolArgs.wait === true, call.signal);
          const current = await this.store.head(target.repo.id, target.ref);
          result = successResult(asked, current ? this.metadata(ref, current, false) : unroutedMetadata());
        } else {
          const warning = await this.refresh?.settle(target, call.session, call.signal) ?? null;
          head = await teamHead(this.store, target);
          const full = READ_FROM_BLOBS.has(name)
            ? { repo: target.repo.name, ...await this.openFile(head, toolArgs) }
            : await this.runReader(tool.def as ReaderToolDef, toolArgs, head, call.signal);
          const body = answerBody(tool.def, full, verbose);
          result = successResult(body, this.metadata(ref, head, body.truncated === true, warning));
        }
      }
    } catch (e) {
      result = errorResult(e, head ? this.metadata(ref, head, false) : unroutedMetadata());
    }
    this.stats.record(name, performance.now() - started, callFailure(result));
    return result;
  }

  /** Runs a reader tool's handler on the head's shard. */
  private async runReader(
    def: ReaderToolDef,
    args: Record<string, unknown>,
    head: TeamHead,
    signal: AbortSignal,
  ): Promise<ToolBody> {
    if (def.onMain?.when(args, false)) {
      throw new CruxeError(
        "invalid_input",
        `A team replica answers ${def.name} on one repository and ref (workspace, ref); scope, repo and ` +
          "client vectors need a local server.",
        { tool: def.name },
      );
    }
    const db = await this.shards.db(head.shard);
    return await def.handler(args, { db: () => db, signal });
  }

  /** `open_file` from the head's stored blob of the file. */
  private async openFile(head: TeamHead, args: Record<string, unknown>): Promise<ToolBody> {
    const path = args.path as string;
    const window = windowArgs({
      path,
      startLine: args.startLine as number | undefined,
      endLine: args.endLine as number | undefined,
      maxBytes: args.maxBytes as number | undefined,
    });
    const bytes = (await this.store.fileBytes(head.snapshotId, [path])).get(path);
    if (!bytes) {
      throw new CruxeError("file_not_found", `${path} is not in the index of ${head.ref} (${head.commit})`, { path });
    }
    return fileWindow(path, bytes, window);
  }

  private metadata(ref: string, head: TeamHead, truncated: boolean, warning: string | null = null) {
    return buildMetadata({
      ...(warning ? { warnings: [warning] } : {}),
      freshness_status: "fresh",
      indexing_status: "ready",
      result_completeness: truncated ? "truncated" : "complete",
      ref,
      ref_commit: head.commit,
      schema_status: "compatible",
    });
  }
}

/** The context `tool_help` is given on a replica, which has no server runtime: it reads none of it. */
const NO_RUNTIME = new Proxy({}, {
  get(_t, key) {
    throw new CruxeError("internal_error", `a team replica has no server runtime (${String(key)})`);
  },
}) as ToolContext;
