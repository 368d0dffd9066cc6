/**
 * The `serve-mcp` flags, checked before anything starts (a bad flag stops
 * the server at once, never at the first request): `--auto-workspace` needs an `--allowed-root`, every
 * `--allowed-root` must exist (it is realpath'd), `--workspace` is
 * repeatable, a non-loopback `--bind` needs an auth token (a blank one is none;
 * a token is used trimmed).
 * Requires `--allow-read` on the given paths.
 */
import { resolve } from "node:path";
import { CruxeError } from "../core/errors.ts";
import { canonicalDir } from "../io/workspace_dir.ts";

/** Options of one serving process. */
export interface ServeOptions {
  transport: "stdio" | "http";
  port: number;
  bind: string;
  workspaces: string[];
  autoWorkspace: boolean;
  allowedRoots: string[];
  /** Undefined: the config's `maxAutoWorkspaces` (default 10). */
  maxAutoWorkspaces?: number;
  prewarm: boolean;
  /** Keep the workspaces in use live (false with `--no-watch`; undefined means true). */
  watch?: boolean;
  authToken?: string;
  verbose: number;
  configPath?: string;
  /** `cruxe serve`: index the (first) workspace in the background before serving. */
  indexOnStart?: boolean;
  /** `--tools`: the tools to offer (profile or tool names); undefined: the config's, else the default set. */
  tools?: string[];
  /** A team store's URL (`--store`, else the config's): serve the core tools from it instead of local indexes. */
  store?: string;
  /** `--read-store`: the copy of the team store (a streaming replica) a team replica reads from. */
  readStore?: string;
}

/** True for addresses only this machine can reach. */
export function isLoopback(addr: string): boolean {
  const a = addr.replace(/^\[|\]$/g, "").toLowerCase();
  return a === "localhost" || a === "::1" || /^127\.\d+\.\d+\.\d+$/.test(a);
}

/** Canonical form of an existing directory given on the command line, or `invalid_input` naming the flag. */
export function existingDir(flag: string, path: string, cwd = Deno.cwd()): string {
  try {
    return canonicalDir(resolve(cwd, path));
  } catch (e) {
    const msg = e instanceof Error ? e.message : "";
    const why = /is a file/.test(msg)
      ? "is not a directory"
      : /cannot be read/.test(msg)
      ? "cannot be read"
      : "does not exist";
    throw new CruxeError("invalid_input", `${flag} ${path} ${why}`, { flag, path });
  }
}

/** Checks the flags and canonicalizes paths; throws `invalid_input` naming the bad flag. */
export function checkServeOptions(o: ServeOptions, cwd = Deno.cwd()): ServeOptions {
  if (o.transport !== "stdio" && o.transport !== "http") {
    throw new CruxeError("invalid_input", `--transport must be stdio or http (got ${o.transport})`);
  }
  if (o.autoWorkspace && !o.allowedRoots.length) {
    throw new CruxeError("invalid_input", "--allowed-root is required when --auto-workspace is enabled");
  }
  if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535) {
    throw new CruxeError("invalid_input", `--port must be an integer between 0 and 65535 (got ${o.port})`);
  }
  if (o.maxAutoWorkspaces !== undefined && (!Number.isInteger(o.maxAutoWorkspaces) || o.maxAutoWorkspaces < 1)) {
    throw new CruxeError("invalid_input", "--max-auto-workspaces must be a positive integer");
  }
  // Two spellings of one directory (a symlink and its target) are one root.
  const allowedRoots = [...new Set(o.allowedRoots.map((r) => existingDir("--allowed-root", r, cwd)))];
  const workspaces = [...new Set(o.workspaces.map((w) => existingDir("--workspace", w, cwd)))];
  // A token of only whitespace is no token (requests' tokens are compared trimmed too).
  const authToken = o.authToken?.trim() || undefined;
  if (o.transport === "http" && !isLoopback(o.bind) && !authToken) {
    throw new CruxeError(
      "invalid_input",
      `Binding to ${o.bind} exposes the server beyond this machine: set --auth-token (or CRUXE_AUTH_TOKEN) to a non-blank value.`,
    );
  }
  return { ...o, authToken, allowedRoots, workspaces };
}

/** The flags whose values are directories, which `withCanonicalPaths` rewrites. */
const PATH_FLAGS = ["--workspace", "--allowed-root"];

/**
 * `args` (a serve command's arguments, without the command) with every
 * `--workspace`/`--allowed-root` replaced by the canonical paths of checked
 * options `o`, so a process started with them sees the same directories
 * whatever symlinks or working directory the original paths went through.
 * A default workspace (`cruxe serve` without `--workspace`) becomes explicit.
 *
 * @example withCanonicalPaths(["--workspace", "/tmp/link", "-v"], checked) // ["-v", "--workspace", "/real/repo"]
 */
export function withCanonicalPaths(args: string[], o: ServeOptions): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (PATH_FLAGS.includes(a)) i++; // the flag and its value
    else if (!PATH_FLAGS.some((f) => a.startsWith(f + "="))) out.push(a);
  }
  for (const w of o.workspaces) out.push("--workspace", w);
  for (const r of o.allowedRoots) out.push("--allowed-root", r);
  return out;
}
