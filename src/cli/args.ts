/**
 * Command-line parsing for `cruxe`: global options anywhere on the line,
 * per-command options described once (the same table drives help and shell
 * completions), and one-line errors that name the nearest known option.
 */
import { CruxeError } from "../core/errors.ts";
import { nearest } from "../query/nearest_word.ts";

/** One option of a command: its type, help text and the word shown for its value. */
export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  /** The value's placeholder in help (`PATH`, `N`); string options only. */
  arg?: string;
  /** Allowed values (listed in help and completions). */
  choices?: readonly string[];
  /** A whole number from the first to the second (both included); anything else is refused. */
  int?: readonly [number, number];
  help: string;
}

/** A command's options, by long name. */
export type OptionTable = Record<string, OptionSpec>;

/** Options every command accepts, before or after the command name. */
export const GLOBAL_OPTIONS = {
  verbose: { type: "boolean", short: "v", multiple: true, help: "more log lines on stderr (repeat for debug)" },
  config: { type: "string", arg: "PATH", help: "config file (default: $CRUXE_HOME/config.json)" },
  json: { type: "boolean", help: "machine-readable output on stdout" },
  help: { type: "boolean", short: "h", help: "show help for the command" },
} as const satisfies OptionTable;

type ValueOf<O> = O extends { type: "string"; multiple: true } ? string[]
  : O extends { type: "string" } ? string
  : O extends { multiple: true } ? boolean[]
  : boolean;

/** Parsed option values (absent options are undefined), typed from the table. */
export type Values<T extends OptionTable> = { [K in keyof T]?: ValueOf<T[K]> };

/** The result of parsing a command's arguments. */
export interface Parsed<T extends OptionTable> {
  values: Values<T & typeof GLOBAL_OPTIONS>;
  positionals: string[];
}

export { nearest };

/** ` (did you mean X?)`, or nothing when no known word is close. */
export function didYouMean(word: string, known: Iterable<string>, show = (s: string) => s): string {
  const n = nearest(word, known);
  return n ? `; did you mean ${show(n)}?` : "";
}

/** The flags of global options, as typed (`--verbose`, `-v`, …). */
const GLOBAL_FLAGS = Object.entries(GLOBAL_OPTIONS).flatMap((
  [k, o],
) => [`--${k}`, ...("short" in o ? [`-${o.short}`] : [])]);

/**
 * Splits argv at the command: the first word that is neither a global option
 * nor its value. An option before the command is refused: a command's own
 * (one of `commandFlags`) with where to put it, any other as unknown.
 */
export function splitCommand(
  argv: string[],
  commandFlags: ReadonlySet<string> = new Set(),
): { command: string | undefined; rest: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") return { command: argv[i + 1], rest: [...argv.slice(0, i), ...argv.slice(i + 2)] };
    if (!a.startsWith("-") || a === "-") return { command: a, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
    if (a === "--config") i++; // its value is not the command
    else if (!/^(-v+|-h|-V|--(verbose|json|help|version)|--config=.*)$/.test(a)) {
      // A command's own option before the command: its value would be taken for the command.
      const flag = a.split("=")[0];
      if (commandFlags.size && !commandFlags.has(flag)) {
        throw new CruxeError(
          "invalid_input",
          `unknown option ${flag}${
            flag.startsWith("--")
              ? didYouMean(flag, [...GLOBAL_FLAGS, ...commandFlags].filter((f) => f.startsWith("--")))
              : ""
          } (see cruxe --help)`,
        );
      }
      throw new CruxeError(
        "invalid_input",
        `${flag} is not a global option; put it after the command (cruxe <command> ${a} …)`,
      );
    }
  }
  return { command: undefined, rest: argv };
}

/**
 * Parses `args` against `table` plus the global options. Accepts `--name value`,
 * `--name=value`, `-v`, `-vv`, `-h` and `--` (everything after it is positional).
 * Throws `invalid_input` with a one-line message naming the nearest option.
 */
export function parseCommandArgs<T extends OptionTable>(command: string, args: string[], table: T): Parsed<T> {
  const all: OptionTable = { ...GLOBAL_OPTIONS, ...table };
  const byShort = new Map(Object.entries(all).filter(([, o]) => o.short).map(([k, o]) => [o.short!, k]));
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  const set = (name: string, value: string | boolean) => {
    const o = all[name];
    if (o.choices && typeof value === "string" && !o.choices.includes(value)) {
      throw new CruxeError(
        "invalid_input",
        `--${name} must be one of ${o.choices.join(", ")} (got "${value}")${didYouMean(value, o.choices)}`,
      );
    }
    if (o.int && typeof value === "string") checkInt(name, value, o.int);
    if (o.multiple) values[name] = [...(values[name] as unknown[] | undefined) ?? [], value];
    else values[name] = value;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const o = all[name];
      if (!o) {
        throw new CruxeError(
          "invalid_input",
          `unknown option --${name} for \`cruxe ${command}\`${didYouMean(name, Object.keys(all), (s) => `--${s}`)}` +
            ` (see cruxe ${command} --help)`,
        );
      }
      if (o.type === "boolean") {
        if (eq >= 0) throw new CruxeError("invalid_input", `--${name} takes no value`);
        set(name, true);
        continue;
      }
      const value = eq >= 0 ? a.slice(eq + 1) : args[++i];
      if (value === undefined) {
        throw new CruxeError("invalid_input", `--${name} needs a value${o.arg ? ` (${o.arg})` : ""}`);
      }
      set(name, value);
      continue;
    }
    if (a.startsWith("-") && a.length > 1 && !/^-\d/.test(a)) {
      for (const ch of a.slice(1)) {
        const name = byShort.get(ch);
        if (!name || all[name].type !== "boolean") {
          throw new CruxeError(
            "invalid_input",
            `unknown option -${ch} for \`cruxe ${command}\` (see cruxe ${command} --help)`,
          );
        }
        set(name, true);
      }
      continue;
    }
    positionals.push(a);
  }
  return { values: values as Parsed<T>["values"], positionals };
}

/** `invalid_input` unless `value` is a whole number within `[min, max]`, naming the flag and the range. */
function checkInt(name: string, value: string, [min, max]: readonly [number, number]): void {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) {
    throw new CruxeError("invalid_input", `--${name} must be an integer from ${min} to ${max} (got "${value}")`, {
      flag: `--${name}`,
      min,
      max,
    });
  }
}
