/**
 * The shape of one CLI command, shared by the command table that lists them
 * and the help and completion writers that describe them.
 */
import type { OptionTable, Parsed } from "./args.ts";

/** One command: what help shows and what runs it. */
export interface CommandDef<T extends OptionTable = OptionTable> {
  name: string;
  /** Positional arguments as shown in usage (`QUERY`, `PATH`), if any. */
  args?: string;
  /** True when the positional argument must be given. */
  argsRequired?: boolean;
  summary: string;
  options: T;
  /** Command lines that work as shown, each with a `#` comment. */
  examples: string[];
  /** A paragraph shown in the command's help after the options. */
  notes?: string;
  /** Runs the command with its parsed arguments (`raw`: the arguments as typed, for commands that re-execute). */
  run(p: Parsed<T>, raw: string[]): number | Promise<number>;
}
