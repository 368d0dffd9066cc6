/**
 * The `cruxe` command line: finds the command (global options may come before
 * it), parses its options from the command table, and runs it. Human output
 * on stdout/stderr, `--json` for machines; every mistake is one line on
 * stderr (or `{"error": {code, message}}` on stdout with `--json`).
 */
import { CruxeError } from "../core/errors.ts";
import { info, setLogLevel } from "../core/log.ts";
import { versionLine } from "../core/version.ts";
import { didYouMean, parseCommandArgs, splitCommand } from "./args.ts";
import { allCommands, COMMANDS, findCommand } from "./command_table.ts";
import { commandHelp, globalHelp } from "./help.ts";
import { reportError } from "./output.ts";
import type { CommandDef } from "./command_def.ts";

/** Runs the CLI with `args`; resolves to the process exit code. */
export async function main(args: string[]): Promise<number> {
  const json = args.includes("--json");
  try {
    return await dispatch(args);
  } catch (e) {
    return reportError(e, json);
  }
}

/** Every flag some command takes (`--force`, `-n`, …). */
function commandFlags(): Set<string> {
  return new Set(
    COMMANDS.flatMap((c) =>
      Object.entries(c.options).flatMap(([k, o]) => [`--${k}`, ...(o.short ? [`-${o.short}`] : [])])
    ),
  );
}

async function dispatch(args: string[]): Promise<number> {
  const { command, rest } = splitCommand(args, commandFlags());
  if (command === undefined) {
    if (rest.includes("--version") || rest.includes("-V")) {
      console.log(versionLine());
      return 0;
    }
    const asked = rest.includes("-h") || rest.includes("--help");
    (asked ? console.log : console.error)(globalHelp(await allCommands()));
    return asked ? 0 : 2;
  }
  if (command === "help") {
    const topic = rest.find((a) => !a.startsWith("-"));
    const def = topic === undefined ? undefined : await commandNamed(topic);
    console.log(def ? commandHelp(def) : globalHelp(await allCommands()));
    return 0;
  }
  const def = await commandNamed(command);
  const parsed = parseCommandArgs(def.name, rest, def.options);
  if (parsed.values.help) {
    console.log(commandHelp(def));
    return 0;
  }
  const verbose = parsed.values.verbose?.length ?? 0;
  setLogLevel(verbose);
  if (verbose) {
    const { grammarCheck } = await import("../service/health.ts");
    const { grammarUrl } = await import("../io/grammar_assets.ts");
    const g = grammarCheck();
    info(`grammars: ${g.available.length} of ${g.available.length + g.missing.length} languages in ${grammarUrl("")}`);
  }
  if (def.args === undefined && parsed.positionals.length) throw unexpectedArgument(def, parsed.positionals[0]);
  if (def.argsRequired && !parsed.positionals.length) {
    throw new CruxeError("invalid_input", `cruxe ${def.name} needs ${def.args} (see cruxe ${def.name} --help)`);
  }
  return await def.run(parsed, rest);
}

/**
 * `invalid_input` for a word given to a command that takes none (`cruxe index ~/src/app` would otherwise
 * index the current directory), naming the option that takes a path when the command has one.
 */
function unexpectedArgument(def: CommandDef, word: string): CruxeError {
  const pathFlag = ["path", "workspace"].find((k) => k in def.options);
  const hint = pathFlag ? `; for a directory, use --${pathFlag} ${word}` : "";
  return new CruxeError("invalid_input", `cruxe ${def.name} takes no arguments (got "${word}")${hint}`);
}

/** The command called `name`, or `invalid_input` suggesting the nearest one. */
async function commandNamed(name: string): Promise<CommandDef> {
  const def = await findCommand(name);
  if (def) return def;
  const names = (await allCommands()).map((c) => c.name);
  throw new CruxeError(
    "invalid_input",
    `unknown command "${name}"${didYouMean(name, names, (s) => `\`${s}\``)} (see cruxe --help)`,
  );
}
