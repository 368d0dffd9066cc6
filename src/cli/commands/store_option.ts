/**
 * The `--store`, `--read-store` and `--repo` options of the commands that can
 * use a team store (one text each), and which store a command's values name.
 * Light on purpose: a tool command loads the team store's client only when
 * it uses one.
 */
import type { OptionSpec } from "../args.ts";
import { checkStoreUrl, storeUrlFor } from "../../state/pg/store_url.ts";
import { loadConfig } from "../context.ts";

/** `--store URL`: a team store instead of the SQLite stores. */
export const STORE_OPTION = {
  type: "string",
  arg: "URL",
  help: "a team store (postgres://…; default: the config's store, else the SQLite stores; see docs/TEAM.md)",
} as const satisfies OptionSpec;

/** `--read-store URL`: where a team query reads (a streaming replica of the store). */
export const READ_STORE_OPTION = {
  type: "string",
  arg: "URL",
  help: "read from this copy of the team store (a streaming replica; default: --store)",
} as const satisfies OptionSpec;

/** `--repo NAME`: the team store's repository a query reads. */
export const REPO_OPTION = {
  type: "string",
  arg: "NAME",
  help: "with --store: the repository to read (default: the only one)",
} as const satisfies OptionSpec;

/** The store a tool command reads: `--read-store`, else `--store`, else the config's `store`; null for SQLite. */
export function teamStoreOf(values: Record<string, unknown>): string | null {
  const read = values["read-store"] as string | undefined;
  if (read !== undefined) return checkStoreUrl(read, "--read-store");
  const flag = values.store as string | undefined;
  return storeUrlFor(flag, flag === undefined ? loadConfig(values.config as string | undefined).store : null);
}

/**
 * A local call's arguments as a team call's: the workspace is the store's
 * repository `--repo` names (default: the store's only one), `--ref` the ref read.
 */
export function teamArguments(args: Record<string, unknown>, values: Record<string, unknown>) {
  const { workspace: _w, ...rest } = args;
  if (values.repo !== undefined) rest.workspace = values.repo;
  if (values.ref !== undefined) rest.ref = values.ref;
  return rest;
}
