/**
 * The `cruxe` command line: parses arguments and runs one command. Human
 * output on stdout/stderr, `--json` for machines.
 */
import { parseArgs } from "node:util";
import { CruxeError } from "../core/errors.ts";
import { setLogLevel } from "../core/log.ts";
import { VERSION } from "../core/version.ts";
import { openContext } from "./context.ts";
import { printJson, printTable, reportError } from "./output.ts";
import { runIndexCommand } from "./commands/index_cmd.ts";
import { runDoctor } from "./commands/doctor.ts";
import { registerProject } from "../index/project_setup.ts";
import { IndexWriter } from "../state/project_index.ts";
import { IndexReaders } from "../query/index_reader.ts";
import { projectStatus } from "../query/index_status.ts";
import { runQueryCommand } from "./commands/query_cmds.ts";
import { runServeCommand } from "./commands/serve_mcp.ts";
import { runWatchCommand } from "./commands/watch.ts";

const USAGE = `cruxe ${VERSION} — code navigation for AI coding agents

Usage: cruxe <command> [options]

Commands:
  init [--workspace PATH]                       register a workspace and create its store
  index [--force] [--path PATH] [--ref REF]     index (or re-index) a workspace
  sync [--force] [--workspace PATH]             incremental sync of changed files
  watch [--workspace PATH]                      keep the index live as files change (a line per sync)
  search QUERY [--lang L] [--limit N] [--path-prefix P] [--ref REF]   search code (symbols, snippets, files)
  locate NAME [--kind K] [--lang L] [--limit N]  find definitions (qualified names, typos ok)
  outline PATH [--depth top|all]                 symbol tree of a file
  hierarchy NAME [--path P] [--direction ancestors|descendants]   containment and type hierarchy
  related NAME [--path P] [--scope file|module|package] [--limit N]  related symbols
  context QUERY [--max-tokens N] [--strategy breadth|depth]         context within a token budget
  (query commands accept --workspace PATH; default: the project containing the current directory)
  status                                        projects, index state and jobs
  doctor                                        check store, grammars, git, permissions
  serve-mcp [--workspace PATH]... [options]     serve MCP (stdio, or --transport http)
  serve [--workspace PATH]                      index the workspace (default: .) and serve it over stdio

Global options: -v/--verbose (repeat for debug), --config PATH, --json, -h/--help, --version
`;

const COMMON = {
  verbose: { type: "boolean", short: "v", multiple: true },
  config: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

type Spec = Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;

function parse<const S extends Spec>(args: string[], spec: S) {
  try {
    return parseArgs({
      args,
      options: { ...COMMON, ...spec } as typeof COMMON & S,
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new CruxeError("invalid_input", `${(e as Error).message}\n\n${USAGE}`);
  }
}

function int(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1000) {
    throw new CruxeError("invalid_input", `--${name} must be an integer between 1 and 1000`);
  }
  return n;
}

/** Runs the CLI with `args`; resolves to the process exit code. */
export async function main(args: string[]): Promise<number> {
  const [cmd, ...rest] = args;
  if (!cmd || cmd === "-h" || cmd === "--help" || cmd === "help") {
    console.log(USAGE);
    return cmd ? 0 : 2;
  }
  if (cmd === "--version" || cmd === "-V") {
    console.log(`cruxe ${VERSION}`);
    return 0;
  }
  const json = rest.includes("--json");
  try {
    return await dispatch(cmd, rest);
  } catch (e) {
    return reportError(e, json);
  }
}

async function dispatch(cmd: string, rest: string[]): Promise<number> {
  switch (cmd) {
    case "init": {
      const { values: v } = parse(rest, { workspace: { type: "string" } });
      if (v.help) return help();
      setLogLevel(v.verbose?.length ?? 0);
      const ctx = openContext(v.config);
      const p = registerProject(ctx.registry, v.workspace ?? Deno.cwd());
      IndexWriter.open(ctx.registry.projectDir(p.project_id), false).close();
      if (v.json) printJson({ ...p, store: ctx.registry.projectDir(p.project_id) });
      else {
        console.log(
          `Registered ${p.repo_root} as "${p.name}" (project ${p.project_id}, ${p.vcs_mode}, ref ${p.default_ref}).`,
        );
        console.log(`Store: ${ctx.registry.projectDir(p.project_id)}. Next: cruxe index --path ${p.repo_root}`);
      }
      return 0;
    }
    case "index":
    case "sync": {
      const { values: v } = parse(rest, {
        force: { type: "boolean" },
        path: { type: "string" },
        workspace: { type: "string" },
        ref: { type: "string" },
      });
      if (v.help) return help();
      setLogLevel(v.verbose?.length ?? 0);
      const ctx = openContext(v.config);
      return await runIndexCommand(ctx, {
        path: v.path ?? v.workspace ?? Deno.cwd(),
        force: v.force ?? false,
        ref: v.ref,
        mode: cmd === "index" ? "full" : "incremental",
        json: v.json ?? false,
      });
    }
    case "search":
    case "locate":
    case "outline":
    case "hierarchy":
    case "related":
    case "context": {
      const { values: v, positionals } = parse(rest, {
        ref: { type: "string" },
        lang: { type: "string" },
        kind: { type: "string" },
        limit: { type: "string" },
        workspace: { type: "string" },
        path: { type: "string" },
        "path-prefix": { type: "string" },
        depth: { type: "string" },
        direction: { type: "string" },
        scope: { type: "string" },
        strategy: { type: "string" },
        "max-tokens": { type: "string" },
      });
      if (v.help) return help();
      setLogLevel(v.verbose?.length ?? 0);
      const text = positionals.join(" ").trim();
      if (!text) throw new CruxeError("invalid_input", `${cmd} needs an argument (see cruxe --help)`);
      if (v.limit !== undefined) int(v.limit, "limit", 10);
      const { verbose: _v, config: _c, json, help: _h, workspace, ...flags } = v;
      return runQueryCommand(openContext(v.config), cmd, {
        workspace,
        json: json ?? false,
        text,
        flags: flags as Record<string, string | undefined>,
      });
    }
    case "status": {
      const { values: v } = parse(rest, {});
      if (v.help) return help();
      const ctx = openContext(v.config);
      const readers = new IndexReaders(ctx.registry);
      const projects = ctx.registry.listProjects().map((p) => projectStatus(ctx.registry, readers, p, undefined));
      if (v.json) printJson({ home: ctx.config.home, projects });
      else if (!projects.length) console.log("No projects yet. Run `cruxe init` or `cruxe index` in a repository.");
      else {
        printTable(
          ["name", "root", "status", "ref", "files", "symbols", "last indexed", "last job"],
          projects.map((p) => [
            p.name,
            p.repo_root,
            p.schema_status === "compatible" ? p.index_status : p.schema_status,
            p.ref,
            p.file_count,
            p.symbol_count,
            p.last_indexed_at,
            p.recent_jobs[0] ? `${p.recent_jobs[0].status} (${p.recent_jobs[0].mode})` : "",
          ]),
        );
        for (const p of projects) {
          if (p.interrupted_recovery_report) {
            console.log(
              `! ${p.name}: ${p.interrupted_recovery_report.interrupted_jobs} interrupted job(s); run \`cruxe sync --workspace ${p.repo_root}\``,
            );
          }
        }
      }
      return 0;
    }
    case "doctor": {
      const { values: v } = parse(rest, {});
      if (v.help) return help();
      return await runDoctor(openContext(v.config), v.json ?? false);
    }
    case "watch": {
      const { values: v } = parse(rest, { workspace: { type: "string" } });
      if (v.help) return help();
      setLogLevel(v.verbose?.length ?? 0);
      return await runWatchCommand(openContext(v.config), { path: v.workspace ?? Deno.cwd(), json: v.json ?? false });
    }
    case "serve-mcp":
    case "serve":
      return await runServeCommand(cmd, rest);
    default:
      throw new CruxeError("invalid_input", `Unknown command "${cmd}".\n\n${USAGE}`);
  }
}

function help(): number {
  console.log(USAGE);
  return 0;
}
