/**
 * Every `cruxe` command in one table: its arguments, options with help text,
 * an example, and the function that runs it. Help, shell completions and the
 * parser all read this table, so a new command is one more entry here.
 * A command's module is imported when the command runs, so a process loads
 * only the command it runs (the sandbox launcher of `serve-mcp` stays small).
 */
import { CruxeError } from "../core/errors.ts";
import type { OptionTable } from "./args.ts";
import type { CommandDef } from "./command_def.ts";
import { openContext } from "./context.ts";
import { userCwd } from "./user_cwd.ts";
import { printJson, say } from "./output.ts";
import { runServeCommand, SERVE_MCP_OPTIONS, SERVE_OPTIONS } from "./commands/serve_cmd.ts";
import { completionScript, SHELLS } from "./completions.ts";
import { loadConfig } from "./context.ts";
import { storeUrlFor } from "../state/pg/store_url.ts";
import { STORE_OPTION } from "./commands/store_option.ts";

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
const ref = {
  ref: {
    type: "string",
    arg: "REF",
    help: "branch, tag or commit, read from its index (default: the working tree; see `cruxe index --ref`)",
  },
} as const;
const store = { store: STORE_OPTION } as const;

/** The team store URL a command uses (`--store`, else the config's `store`), or null for the SQLite stores. */
function storeOf(v: { store?: string; config?: string }): string | null {
  return storeUrlFor(v.store, v.store === undefined ? loadConfig(v.config).store : null);
}

/** The team-store commands (`commands/team_cmds.ts`), loaded on first use. */
const team = () => import("./commands/team_cmds.ts");

/** The commands of the CLI itself (the tool commands come from the tool definitions: `allCommands`). */
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
    args: "add PATH|URL",
    argsRequired: true,
    summary: "register a git repository (a path the workers read, or a URL each fetches) in a team store",
    options: {
      refs: {
        type: "string",
        arg: "LIST",
        help: "refs to index, comma-separated, * matches any text (default for a path: HEAD's; a URL needs it)",
      },
      name: {
        type: "string",
        arg: "NAME",
        help: "the repository's name in answers (default: its directory's, or the URL's last part)",
      },
      ...store,
    },
    examples: [
      "cruxe repo add ~/git/app --refs main,release/* --store postgres://cruxe@db/cruxe",
      "cruxe repo add https://git.example/team/app.git --refs main --store postgres://cruxe@db/cruxe",
    ],
    run: async ({ values: v, positionals }) => {
      if (positionals[0] !== "add" || positionals.length !== 2) {
        throw new CruxeError("invalid_input", "cruxe repo takes: add PATH|URL (see cruxe repo --help)");
      }
      const url = storeOf(v);
      if (!url) throw new CruxeError("invalid_input", "cruxe repo add needs a team store: --store postgres://…");
      return await (await team()).runRepoAdd(loadConfig(v.config), url, {
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
    run: async ({ positionals }) => {
      const shell = positionals[0];
      if (!SHELLS.includes(shell as typeof SHELLS[number])) {
        throw new CruxeError(
          "invalid_input",
          `cruxe completions takes one of ${SHELLS.join(", ")} (got "${shell ?? ""}")`,
        );
      }
      console.log(completionScript(shell as typeof SHELLS[number], await allCommands()));
      return 0;
    },
  }),
];

/**
 * Every command, in the order help lists them: the CLI's own, with the
 * commands made from tool definitions after `watch` (loaded on first use, so
 * a command of the CLI's own starts without the tools).
 */
export async function allCommands(): Promise<CommandDef[]> {
  const { toolCommands } = await import("./commands/tool_command.ts");
  const at = COMMANDS.findIndex((c) => c.name === "watch") + 1;
  return [...COMMANDS.slice(0, at), ...toolCommands(), ...COMMANDS.slice(at)];
}

/** The command named `name`, or undefined. */
export async function findCommand(name: string): Promise<CommandDef | undefined> {
  return COMMANDS.find((c) => c.name === name) ?? (await import("./commands/tool_command.ts")).toolCommand(name);
}
