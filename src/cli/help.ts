/** Help text for `cruxe --help` and `cruxe <command> --help`, aligned in columns, from the command table. */
import { VERSION } from "../core/version.ts";
import { GLOBAL_OPTIONS, type OptionSpec, type OptionTable } from "./args.ts";
import type { CommandDef } from "./command_def.ts";

/** Rows of two columns, the first padded to the widest (capped so one long flag does not push every line). */
function columns(rows: [string, string][], indent = "  "): string {
  const width = Math.min(34, Math.max(...rows.map(([a]) => a.length)));
  return rows.map(([a, b]) =>
    a.length > width ? `${indent}${a}\n${indent}${" ".repeat(width)}  ${b}` : `${indent}${a.padEnd(width)}  ${b}`
  )
    .join("\n");
}

function flag(name: string, o: OptionSpec): string {
  const short = o.short ? `-${o.short}, ` : "    ";
  const value = o.type === "string" ? ` ${o.arg ?? "VALUE"}` : "";
  return `${short}--${name}${value}${o.multiple && o.type === "string" ? " (repeatable)" : ""}`;
}

function optionRows(t: OptionTable): [string, string][] {
  return Object.entries(t).map(([name, o]) => [flag(name, o), o.help]);
}

/** `cruxe <name> [ARGS] [options]`. */
function usage(c: CommandDef): string {
  const a = c.args ? (c.argsRequired ? ` ${c.args}` : ` [${c.args}]`) : "";
  return `cruxe ${c.name}${a}${Object.keys(c.options).length ? " [options]" : ""}`;
}

/** The overview: every command with its summary, the global options, and where to read more. */
export function globalHelp(commands: CommandDef[]): string {
  return [
    `cruxe ${VERSION} — code navigation for AI coding agents`,
    "",
    "Usage: cruxe <command> [options]   (global options may come before or after the command)",
    "",
    "Commands:",
    columns(commands.map((c) => [c.name + (c.args ? ` ${c.args}` : ""), c.summary])),
    "",
    "Global options:",
    columns([...optionRows(GLOBAL_OPTIONS), ["    --version", "print the version"]]),
    "",
    "Run `cruxe <command> --help` for its options and an example.",
  ].join("\n");
}

/** One command's help: usage, summary, its options, the global options and examples. */
export function commandHelp(c: CommandDef): string {
  const own = optionRows(c.options);
  return [
    `Usage: ${usage(c)}`,
    "",
    `${c.summary[0].toUpperCase()}${c.summary.slice(1)}.`,
    ...(own.length ? ["", "Options:", columns(own)] : []),
    "",
    "Global options:",
    columns(optionRows(GLOBAL_OPTIONS)),
    ...(c.notes ? ["", c.notes] : []),
    "",
    c.examples.length > 1 ? "Examples:" : "Example:",
    ...exampleLines(c.examples),
  ].join("\n");
}

/** Examples with their `#` comments in one column (a comment that would start past 60 stays where it is). */
function exampleLines(examples: string[]): string[] {
  const split = examples.map((e) => {
    const i = e.indexOf("   # ");
    return i < 0 ? [e, ""] : [e.slice(0, i), e.slice(i + 3)];
  });
  const width = Math.max(...split.filter(([c, note]) => note && c.length <= 60).map(([c]) => c.length), 0);
  return split.map(([c, note]) => note ? `  ${c.padEnd(width)}   ${note}` : `  ${c}`);
}
