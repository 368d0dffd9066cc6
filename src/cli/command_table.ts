/**
 * Every `cruxe` command in one table: its arguments, options with help text,
 * an example, and the function that runs it. Help, shell completions and the
 * parser all read this table, so a new command is one more entry here.
 * A command's module is imported when the command runs, so a process loads
 * only the command it runs (the sandbox launcher of `serve-mcp` stays small).
 */
import { CruxeError } from "../core/errors.ts";
import type { OptionTable, Parsed } from "./args.ts";
import type { CommandDef } from "./command_def.ts";
import { type CliContext, openContext } from "./context.ts";
import { userCwd } from "./user_cwd.ts";
import { printJson, say } from "./output.ts";
import type { QueryArgs } from "./commands/query_cmds.ts";
import { runServeCommand, SERVE_MCP_OPTIONS, SERVE_OPTIONS } from "./commands/serve_cmd.ts";
import { completionScript, SHELLS } from "./completions.ts";
import { LIMITS } from "../query/limits.ts";
import { loadConfig } from "./context.ts";
import { checkStoreUrl, storeUrlFor } from "../state/pg/store_url.ts";

/** Erases a command's option types so commands with different tables share one list. */
function command<T extends OptionTable>(def: CommandDef<T>): CommandDef {
  return def as unknown as CommandDef;
}

const workspace = {
  workspace: {
    type: "string",
    arg: "PATH",
    help: "project to query (default: the one containing the current directory)",
  },
} as const satisfies OptionTable;
/** `--limit` of a command: the numbers of the tool it runs (`LIMITS`), in its help and its check. */
function limitOf(tool: keyof typeof LIMITS) {
  const { default: d, max } = LIMITS[tool];
  return {
    limit: { type: "string", arg: "N", int: [1, max], help: `at most N results (1-${max}, default ${d})` },
  } as const satisfies OptionTable;
}
const lang = {
  lang: { type: "string", arg: "LANG", help: "only this language (go, python, typescript, ...)" },
} as const;
const ref = {
  ref: {
    type: "string",
    arg: "REF",
    help: "branch, tag or commit, read from its index (default: the working tree; see `cruxe index --ref`)",
  },
} as const;
const path = {
  path: { type: "string", arg: "PATH", help: "file that holds the symbol (when the name is ambiguous)" },
} as const;

const store = {
  store: {
    type: "string",
    arg: "URL",
    help: "a team store (postgres://…; default: the config's store, else the SQLite stores; see docs/TEAM.md)",
  },
} as const;
const readStore = {
  "read-store": {
    type: "string",
    arg: "URL",
    help: "read from this copy of the team store (a streaming replica; default: --store)",
  },
} as const;
const teamRepo = {
  repo: { type: "string", arg: "NAME", help: "with --store: the repository to read (default: the only one)" },
} as const;

/** The team store URL a command uses (`--store`, else the config's `store`), or null for the SQLite stores. */
function storeOf(v: { store?: string; config?: string }): string | null {
  return storeUrlFor(v.store, v.store === undefined ? loadConfig(v.config).store : null);
}

/** The team-store commands (`commands/team_cmds.ts`), loaded on first use. */
const team = () => import("./commands/team_cmds.ts");

/** How a query command runs once its arguments are read. */
type QueryRunner = (ctx: CliContext, name: string, a: QueryArgs) => Promise<number>;

/** The query tools' runner (`commands/query_cmds.ts`), loaded on first use. */
const queryRunner: QueryRunner = async (...a) => (await import("./commands/query_cmds.ts")).runQueryCommand(...a);
/** The references and call-graph runner (`commands/reference_cmds.ts`), loaded on first use. */
const referenceRunner: QueryRunner = async (...a) =>
  (await import("./commands/reference_cmds.ts")).runReferenceCommand(...a);

/** Runs a query command (by default through `queryRunner`) with the text of its positional arguments. */
function query<T extends OptionTable>(
  name: string,
  p: Parsed<T>,
  runner: QueryRunner = queryRunner,
): Promise<number> {
  const { verbose: _v, config, json, help: _h, workspace, ...flags } = p.values as Record<string, unknown>;
  const text = p.positionals.join(" ").trim();
  if (!text) throw new CruxeError("invalid_input", `cruxe ${name} needs an argument (see cruxe ${name} --help)`);
  const read = flags["read-store"] as string | undefined;
  const url = !TEAM_QUERIES.has(name)
    ? null
    : read !== undefined
    ? checkStoreUrl(read, "--read-store")
    : storeOf({ store: flags.store as string | undefined, config: config as string | undefined });
  if (url) {
    return team().then((t) =>
      t.runTeamQuery(url, {
        command: name,
        text,
        json: json === true,
        flags: flags as Record<string, string | undefined>,
      })
    );
  }
  if (flags.repo !== undefined) throw new CruxeError("invalid_input", `--repo reads a team store: add --store URL`);
  return runner(openContext(config as string | undefined), name, {
    workspace: (workspace as string | undefined) ?? userCwd(),
    command: name,
    json: json === true,
    text,
    flags: flags as Record<string, string | undefined>,
  });
}

/** The query commands a team store answers. */
const TEAM_QUERIES = new Set(["search", "locate", "outline", "open"]);

/** All commands, in the order help lists them. */
export const COMMANDS: CommandDef[] = [
  command({
    name: "init",
    summary: "register a workspace and create its store",
    options: workspace,
    examples: ["cruxe init --workspace ~/src/app   # register ~/src/app (git or plain directory)"],
    run: async ({ values: v }) => {
      const { registerProject } = await import("../index/project_setup.ts");
      const { IndexWriter } = await import("../state/project_index.ts");
      const ctx = openContext(v.config);
      const p = registerProject(ctx.registry, v.workspace ?? userCwd());
      IndexWriter.open(ctx.registry.projectDir(p.project_id), false).close();
      if (v.json) printJson({ ...p, store: ctx.registry.projectDir(p.project_id) });
      else {
        say(
          `Registered ${p.repo_root} as "${p.name}" (project ${p.project_id}, ${p.vcs_mode}, ref ${p.default_ref}).`,
        );
        say(`Store: ${ctx.registry.projectDir(p.project_id)}. Next: cruxe index --path ${p.repo_root}`);
      }
      return 0;
    },
  }),
  ...(["index", "sync"] as const).map((name) =>
    command({
      name,
      summary: name === "index"
        ? "index a workspace (only changed files unless --force), with a progress bar"
        : "incremental sync of added, changed, deleted and renamed files",
      options: {
        force: { type: "boolean", help: "re-parse every file" },
        path: { type: "string", arg: "PATH", help: "workspace to index (default: current directory)" },
        workspace: { type: "string", arg: "PATH", help: "same as --path" },
        ...ref,
        ...store,
      },
      examples: name === "index"
        ? [
          "cruxe index --path ~/src/app   # index (and register) ~/src/app",
          "cruxe index --force   # rebuild the index of the current directory",
        ]
        : ["cruxe sync   # pick up what changed since the last index"],
      run: async ({ values: v }) => {
        const url = name === "index" ? storeOf(v) : null;
        if (url) {
          const path = v.path ?? v.workspace ?? userCwd();
          return await (await team()).runTeamIndex(loadConfig(v.config), url, {
            path,
            ref: v.ref,
            json: v.json ?? false,
          });
        }
        return await (await import("./commands/index_cmd.ts")).runIndexCommand(openContext(v.config), {
          path: v.path ?? v.workspace ?? userCwd(),
          force: v.force ?? false,
          ref: v.ref,
          mode: name === "index" ? "full" : "incremental",
          json: v.json ?? false,
        });
      },
    })
  ),
  command({
    name: "watch",
    summary: "keep a workspace's index live as files change (a line per sync)",
    options: workspace,
    examples: ["cruxe watch --workspace ~/src/app   # index if needed, then sync on every change until Ctrl-C"],
    run: async ({ values: v }) =>
      await (await import("./commands/watch.ts")).runWatchCommand(openContext(v.config), {
        path: v.workspace ?? userCwd(),
        json: v.json ?? false,
      }),
  }),
  command({
    name: "search",
    args: "QUERY",
    argsRequired: true,
    summary: "search code: symbols, snippets and files, as path:line: snippet lines",
    options: {
      ...lang,
      ...limitOf("search"),
      "path-prefix": { type: "string", arg: "P", help: "only paths starting with P" },
      ...ref,
      ...workspace,
      ...store,
      ...readStore,
      ...teamRepo,
    },
    examples: ['cruxe search "rate limit" --lang go   # where is rate limiting done?'],
    run: (p) => query("search", p),
  }),
  command({
    name: "locate",
    args: "NAME",
    argsRequired: true,
    summary: "find definitions by name (qualified names and typos work)",
    options: {
      kind: { type: "string", arg: "KIND", help: "only this kind (function, class, method, ...)" },
      ...lang,
      ...limitOf("locate"),
      ...workspace,
      ...ref,
      ...store,
      ...readStore,
      ...teamRepo,
    },
    examples: ["cruxe locate ValidateToken   # where is ValidateToken defined?"],
    run: (p) => query("locate", p),
  }),
  command({
    name: "outline",
    args: "PATH",
    argsRequired: true,
    summary: "symbol tree of one file",
    options: {
      depth: {
        type: "string",
        arg: "top|all",
        choices: ["top", "all"],
        help: "top-level symbols only, or all (default: all)",
      },
      ...workspace,
      ...ref,
      ...store,
      ...readStore,
      ...teamRepo,
    },
    examples: ["cruxe outline src/mcp/http.ts --depth top   # what does this file define?"],
    run: (p) => query("outline", p),
  }),
  command({
    name: "open",
    args: "PATH",
    argsRequired: true,
    summary: "print lines of a file as the index (or, with --store, the team store's commit) has it",
    options: {
      start: { type: "string", arg: "N", int: [1, 100_000_000], help: "first line (default 1)" },
      end: { type: "string", arg: "N", int: [1, 100_000_000], help: "last line (default: 200 lines on)" },
      ...workspace,
      ...store,
      ...readStore,
      ...teamRepo,
      ...ref,
    },
    examples: ["cruxe open src/main.ts --start 10 --end 40 --store postgres://cruxe@db/cruxe"],
    run: (p) => query("open", p),
  }),
  command({
    name: "hierarchy",
    args: "NAME",
    argsRequired: true,
    summary: "what contains a symbol, and its type hierarchy",
    options: {
      ...path,
      direction: {
        type: "string",
        arg: "ancestors|descendants",
        choices: ["ancestors", "descendants"],
        help: "walk up or down (default: ancestors)",
      },
      ...workspace,
      ...ref,
    },
    examples: ["cruxe hierarchy CheckRateLimit   # its class, module and supertypes"],
    run: (p) => query("hierarchy", p),
  }),
  command({
    name: "related",
    args: "NAME",
    argsRequired: true,
    summary: "symbols related to one: calls, callers, imports, siblings",
    options: {
      ...path,
      scope: {
        type: "string",
        arg: "file|module|package",
        choices: ["file", "module", "package"],
        help: "how far to look (default: file)",
      },
      ...limitOf("related"),
      ...workspace,
      ...ref,
    },
    examples: ["cruxe related ValidateToken --limit 5   # what it calls and what calls it"],
    run: (p) => query("related", p),
  }),
  command({
    name: "refs",
    args: "NAME",
    argsRequired: true,
    summary: "where a symbol is used: calls, type uses, imports, inheritance",
    options: {
      ...path,
      kind: { type: "string", arg: "KIND", help: "only definitions of this kind (function, class, ...)" },
      "reference-kind": {
        type: "string",
        arg: "K",
        choices: ["call", "type", "import", "inherit", "attribute"],
        help: "only uses of this kind",
      },
      ...limitOf("refs"),
      cursor: { type: "string", arg: "C", help: "the next page (printed after a full page)" },
      candidates: { type: "boolean", help: "also list uses only the name matches (resolution candidate)" },
      ...workspace,
      ...ref,
    },
    examples: ["cruxe refs ValidateToken   # every use, with its enclosing symbol and how sure the match is"],
    run: (p) => query("refs", p, referenceRunner),
  }),
  command({
    name: "callgraph",
    args: "NAME",
    argsRequired: true,
    summary: "callers and callees of a symbol, up to depth 3",
    options: {
      ...path,
      kind: { type: "string", arg: "KIND", help: "only definitions of this kind (function, method, ...)" },
      direction: {
        type: "string",
        arg: "callers|callees|both",
        choices: ["callers", "callees", "both"],
        help: "which way to walk (default: both)",
      },
      depth: { type: "string", arg: "N", int: [1, 3], help: "levels to walk (1-3, default 1)" },
      "max-nodes": { type: "string", arg: "N", help: "at most N nodes (default 20)" },
      candidates: { type: "boolean", help: "also follow calls only the name matches (resolution candidate)" },
      ...workspace,
      ...ref,
    },
    examples: ["cruxe callgraph ValidateToken --direction callers --depth 2"],
    run: (p) => query("callgraph", p, referenceRunner),
  }),
  command({
    name: "impls",
    args: "NAME",
    argsRequired: true,
    summary: "types that implement or extend a type",
    options: {
      ...path,
      kind: { type: "string", arg: "KIND", help: "only definitions of this kind (interface, class, ...)" },
      limit: { type: "string", arg: "N", help: "at most N implementations (1-500, default 50)" },
      candidates: { type: "boolean", help: "also list types only the names match (resolution candidate)" },
      ...workspace,
      ...ref,
    },
    examples: ["cruxe impls Handler --path net/http/server.go   # Go types whose methods cover the interface"],
    run: (p) => query("impls", p, referenceRunner),
  }),
  command({
    name: "context",
    args: "QUERY",
    argsRequired: true,
    summary: "the code that answers a question, within a token budget",
    options: {
      "max-tokens": { type: "string", arg: "N", help: "token budget (100-100000, default 2000)" },
      strategy: {
        type: "string",
        arg: "breadth|depth",
        choices: ["breadth", "depth"],
        help: "many places or one in depth",
      },
      ...workspace,
      ...ref,
    },
    examples: ['cruxe context "how are tokens validated" --max-tokens 800'],
    run: (p) => query("context", p),
  }),
  command({
    name: "diff",
    args: "BASE [HEAD]",
    argsRequired: true,
    summary: "symbols added, removed and changed between two refs (HEAD default: the working tree)",
    options: {
      "path-prefix": { type: "string", arg: "P", help: "only paths starting with P" },
      "max-tokens": { type: "string", arg: "N", help: "token budget of the answer (100-100000, default 8000)" },
      "merge-base": { type: "boolean", help: "compare from the merge base of BASE and HEAD (what a review shows)" },
      ...workspace,
    },
    examples: [
      "cruxe diff main   # what the working tree changes against main, symbol by symbol",
      "cruxe diff main --merge-base --json   # since this branch left main, as JSON",
    ],
    run: async ({ values: v, positionals }) => {
      if (positionals.length > 2) throw new CruxeError("invalid_input", "cruxe diff takes BASE and at most one HEAD");
      return await (await import("./commands/ref_cmds.ts")).runDiffCommand(openContext(v.config), {
        workspace: v.workspace ?? userCwd(),
        json: v.json ?? false,
        base: positionals[0],
        head: positionals[1],
        pathPrefix: v["path-prefix"],
        maxTokens: v["max-tokens"],
        mergeBase: v["merge-base"] ?? false,
      });
    },
  }),
  command({
    name: "compare",
    args: "SYMBOL BASE [HEAD]",
    argsRequired: true,
    summary: "one symbol at two refs: status, signatures and body diff (HEAD default: the working tree)",
    options: { ...path, ...workspace },
    examples: ["cruxe compare ValidateToken main   # how ValidateToken differs from main"],
    run: async ({ values: v, positionals }) => {
      if (positionals.length < 2 || positionals.length > 3) {
        throw new CruxeError("invalid_input", "cruxe compare takes SYMBOL BASE [HEAD] (see cruxe compare --help)");
      }
      return await (await import("./commands/ref_cmds.ts")).runCompareCommand(openContext(v.config), {
        workspace: v.workspace ?? userCwd(),
        json: v.json ?? false,
        symbol: positionals[0],
        base: positionals[1],
        head: positionals[2],
        path: v.path,
      });
    },
  }),
  command({
    name: "status",
    summary: "projects, index state and jobs; --errors lists files with syntax errors",
    options: { errors: { type: "boolean", help: "list the files whose parse reported syntax errors" }, ...store },
    examples: [
      "cruxe status   # every project and its last job",
      "cruxe status --errors --json   # files with syntax errors, as JSON",
    ],
    run: async ({ values: v }) => {
      const url = storeOf(v);
      if (url) return await (await team()).runTeamStatus(url, v.json ?? false);
      return await (await import("./commands/status.ts")).runStatus(openContext(v.config), {
        json: v.json ?? false,
        errors: v.errors ?? false,
      });
    },
  }),
  command({
    name: "doctor",
    summary: "check store, disk, git, ignore rules, grammars and permissions",
    options: {
      repair: {
        type: "boolean",
        help: "rebuild a damaged registry from the project stores (the damaged file is kept aside)",
      },
    },
    examples: [
      "cruxe doctor   # each problem with the command that fixes it",
      "cruxe doctor --repair   # after doctor says registry.db is damaged",
    ],
    run: async ({ values: v }) =>
      await (await import("./commands/doctor.ts")).runDoctor(v.config, v.json ?? false, v.repair ?? false),
  }),
  command({
    name: "repo",
    args: "add PATH",
    argsRequired: true,
    summary: "register a git repository in a team store and queue its refs for the workers",
    options: {
      refs: {
        type: "string",
        arg: "LIST",
        help: "refs to index, comma-separated, * matches any text (default: HEAD's)",
      },
      name: { type: "string", arg: "NAME", help: "the repository's name in answers (default: its directory's)" },
      ...store,
    },
    examples: ["cruxe repo add ~/git/app.git --refs main,release/* --store postgres://cruxe@db/cruxe"],
    run: async ({ values: v, positionals }) => {
      if (positionals[0] !== "add" || positionals.length !== 2) {
        throw new CruxeError("invalid_input", "cruxe repo takes: add PATH (see cruxe repo --help)");
      }
      const url = storeOf(v);
      if (!url) throw new CruxeError("invalid_input", "cruxe repo add needs a team store: --store postgres://…");
      return await (await team()).runRepoAdd(url, {
        path: positionals[1],
        refs: v.refs,
        name: v.name,
        json: v.json ?? false,
      });
    },
  }),
  command({
    name: "worker",
    summary: "index the team store's queued jobs (claimed with a lease; runs until stopped)",
    options: {
      once: { type: "boolean", help: "exit when no job is left" },
      "lease-seconds": { type: "string", arg: "N", int: [1, 86400], help: "job lease, renewed while it runs (60)" },
      "poll-ms": { type: "string", arg: "N", int: [50, 3_600_000], help: "idle wait between looks for work (5000)" },
      "work-dir": { type: "string", arg: "DIR", help: "where builds are kept (default: $CRUXE_HOME/team-worker)" },
      ...store,
    },
    examples: ["cruxe worker --store postgres://cruxe_worker@db/cruxe   # on each indexing machine"],
    run: async ({ values: v }) => {
      const url = storeOf(v);
      if (!url) throw new CruxeError("invalid_input", "cruxe worker needs a team store: --store postgres://…");
      return await (await team()).runWorkerCommand(loadConfig(v.config), url, {
        once: v.once ?? false,
        leaseSeconds: v["lease-seconds"],
        pollMs: v["poll-ms"],
        workDir: v["work-dir"],
        json: v.json ?? false,
      });
    },
  }),
  command({
    name: "store-setup",
    summary: "create or migrate a team store's schema and its read-only and writer roles (as the owner)",
    options: {
      "reader-role": { type: "string", arg: "NAME", help: "read-only group role (default cruxe_reader)" },
      "writer-role": { type: "string", arg: "NAME", help: "writer group role (default cruxe_writer)" },
      ...store,
    },
    examples: ["cruxe store-setup --store postgres://owner@db/cruxe"],
    run: async ({ values: v }) => {
      const url = storeOf(v);
      if (!url) throw new CruxeError("invalid_input", "cruxe store-setup needs a team store: --store postgres://…");
      return await (await team()).runStoreSetup(url, {
        readerRole: v["reader-role"],
        writerRole: v["writer-role"],
        json: v.json ?? false,
      });
    },
  }),
  command({
    name: "serve-mcp",
    summary: "serve MCP over stdio (default) or HTTP",
    options: SERVE_MCP_OPTIONS,
    examples: [
      "cruxe serve-mcp --workspace ~/src/app   # stdio, for an agent that starts it",
      "cruxe serve-mcp --transport http --port 9100 --workspace ~/src/app   # http://127.0.0.1:9100/mcp",
    ],
    notes: "Over HTTP the MCP endpoint is /mcp (and /); GET /health is the readiness probe. Progress for jobs " +
      'started without a client progress token goes only to clients that set capabilities.experimental["cruxe/index_progress"] = {} in initialize.',
    run: async (_p, raw) => await runServeCommand("serve-mcp", raw),
  }),
  command({
    name: "serve",
    summary: "index a workspace in the background and serve it on stdio",
    options: SERVE_OPTIONS,
    examples: ["deno task serve --workspace ~/src/app   # from a Cruxe checkout"],
    run: async (_p, raw) => await runServeCommand("serve", raw),
  }),
  command({
    name: "completions",
    args: "bash|zsh|fish",
    argsRequired: true,
    summary: "print a shell completion script",
    options: {},
    examples: [
      "cruxe completions bash > ~/.local/share/bash-completion/completions/cruxe",
      "cruxe completions zsh > ~/.zfunc/_cruxe   # with fpath+=(~/.zfunc) before compinit",
      "cruxe completions fish > ~/.config/fish/completions/cruxe.fish",
    ],
    run: ({ positionals }) => {
      const shell = positionals[0];
      if (!SHELLS.includes(shell as typeof SHELLS[number])) {
        throw new CruxeError(
          "invalid_input",
          `cruxe completions takes one of ${SHELLS.join(", ")} (got "${shell ?? ""}")`,
        );
      }
      console.log(completionScript(shell as typeof SHELLS[number], COMMANDS));
      return 0;
    },
  }),
];

/** The command named `name`, or undefined. */
export function findCommand(name: string): CommandDef | undefined {
  return COMMANDS.find((c) => c.name === name);
}
