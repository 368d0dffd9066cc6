/**
 * Deno's permissions as a second wall around the serving process (least
 * privilege: the answering process holds only what it needs): whatever our own path checks get wrong, the process that answers
 * requests can read only the allowed roots, the registered workspaces, the
 * Cruxe home, the config file and Cruxe's own files; write only the home;
 * reach only its listen address, the LLM endpoint and the embeddings
 * endpoint; run only `git`.
 *
 * How it is applied, by how Cruxe was started:
 * - `deno run main.ts serve-mcp …` and `deno task serve` (a `deno run`): the
 *   CLI re-executes itself — `Deno.execPath()` `run <narrow flags>
 *   main.ts <same args>` (`main.ts` beside the sources, i.e. `Deno.mainModule`) — with a scrubbed environment carrying
 *   `CRUXE_SANDBOXED=1`, so the child serves and does not re-execute again.
 *   The parent only relays the exit code and forwards SIGINT/SIGTERM; when
 *   the parent's own parent dies without a signal, it stops the child too.
 * - the compiled binary (`Deno.build.standalone`): its permissions are baked
 *   in at compile time and `deno compile` binaries take no runtime flags, and
 *   `Deno.permissions.revoke` cannot narrow a global grant to a list. So the
 *   binary runs the server in a Worker whose `deno.permissions` are the same
 *   narrow lists (worker permissions can only narrow the parent's). This
 *   needs `--unstable-worker-options` and `--include src/cli/sandbox_worker.ts`
 *   at compile time; without them serving refuses to start (fail closed).
 *
 * Read access is granted on the allowed roots themselves (recursively), not
 * per workspace, so a workspace auto-discovered inside an allowed root is
 * readable without a restart. Command-line paths are canonicalized once, in
 * the launcher; the served process is handed only canonical paths, and is
 * granted both the canonical form and the form as typed (Deno checks the
 * path it is handed without resolving symlinks, so a request naming
 * `/tmp/link/repo` needs `/tmp/link` granted to be resolved at all; what it
 * resolves to is then checked against the canonical roots). A symlink
 * elsewhere, which the server may not read at all, is resolved by this
 * launcher over a Unix socket in the home (`launcher_resolver.ts`; the server
 * is granted that socket only), and only a target inside an allowed root is
 * told. A project registered by another process after start and outside
 * every allowed root is not readable until the next start.
 *
 * Environment: `openContext` reads `Deno.env.toObject()`, which needs the
 * whole `--allow-env`; the child instead gets an environment reduced to the
 * variables Cruxe, git and Deno need (`SANDBOX_ENV_PASS`), which is the same
 * narrowing. `CRUXE_SANDBOX=off` disables the sandbox (for debugging).
 *
 * Requires (in the parent) `--allow-read` on the home and the config file,
 * `--allow-run` on `Deno.execPath()` (deno run) and `--allow-env`.
 */
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { resolveConfig } from "../core/config.ts";
import { CruxeError } from "../core/errors.ts";
import { debug } from "../core/log.ts";
import { printable } from "../core/printable.ts";
import type { ServeOptions } from "../mcp/serve_options.ts";
import { RESOLVER_ENV, startLauncherResolver } from "../io/launcher_resolver.ts";
import { Registry } from "../state/registry.ts";
import { readConfigObject } from "./config_file.ts";
import { watchParent } from "./parent_watch.ts";

/** Set in the sandboxed child (or worker): it must serve, not re-execute. */
export const SANDBOX_ENV_MARKER = "CRUXE_SANDBOXED";
/** The modules a sandboxed server starts from: a script for `deno run`, a worker module for the binary. */
interface SandboxEntry {
  /** Run by the re-executed Deno with the CLI's arguments. */
  main: URL;
  /** Started as the Worker; receives `{argv}` and posts `{exit}`. */
  worker: URL;
}

/**
 * Cruxe's own entries: `main.ts` beside the sources (the same file as
 * Deno.mainModule under `deno run main.ts`/`deno task`, and still right when
 * another script drives the CLI) and `sandbox_worker.ts`.
 */
const CRUXE_ENTRY: SandboxEntry = {
  main: new URL("../../main.ts", import.meta.url),
  worker: new URL("./sandbox_worker.ts", import.meta.url),
};

/** `CRUXE_SANDBOX=off` serves without the sandbox; `CRUXE_SANDBOX=worker` forces the worker form. */
export const SANDBOX_OPT_OUT = "CRUXE_SANDBOX";

/** Environment variables the sandboxed process keeps (exact names, or prefixes ending in `*`). */
export const SANDBOX_ENV_PASS = [
  "CRUXE_*",
  "ALLOW_GLOBAL_SCOPE",
  "HOME",
  "USERPROFILE",
  "LOCALAPPDATA",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "PATH", // to find git
  "LANG",
  "LC_ALL",
  "TZ",
  "TMPDIR",
  "NO_COLOR",
  "DENO_DIR", // the child `deno run` finds its module cache
  "DENO_NO_UPDATE_CHECK",
  "DENO_NO_PROMPT",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "SYSTEMROOT", // Windows needs it to start processes
];

/** What the sandbox is computed from. */
export interface SandboxInputs {
  /** `--allowed-root` directories. */
  allowedRoots: string[];
  /** Registered workspaces and `--workspace` directories. */
  workspaces: string[];
  /** The Cruxe home (`CRUXE_HOME`): read and write. */
  home: string;
  /** Cruxe's own files (sources, grammars, node_modules; or the binary's embedded tree). */
  ownFiles: string[];
  /** `--config` file, when given. */
  configFile?: string | null;
  /** HTTP listen address; null for stdio. */
  listen?: { hostname: string; port: number } | null;
  /** LLM endpoint URL for ask_code, when configured. */
  llmUrl?: string | null;
  /** Embeddings endpoint URL of the optional semantic layer, when configured. */
  embedUrl?: string | null;
  /** A team store's URLs (`serve-mcp --store`, `--read-store`): their hosts and ports are reachable. */
  storeUrls?: string[];
}

/** The narrow permission lists. */
export interface SandboxPolicy {
  read: string[];
  write: string[];
  net: string[];
  run: string[];
}

/** The absolute path and, when it differs and exists, its realpath (Deno checks the path it is handed). */
function bothForms(p: string): string[] {
  const abs = resolve(p);
  try {
    const real = realpathSync(abs);
    return real === abs ? [abs] : [abs, real];
  } catch {
    return [abs];
  }
}

function within(parent: string, child: string): boolean {
  const p = parent.endsWith("/") ? parent : parent + "/";
  return child === parent || child.startsWith(p);
}

/** Sorted, deduplicated, without entries already covered by another entry. */
function minimalPaths(paths: string[]): string[] {
  const uniq = [...new Set(paths)].sort((a, b) => a.length - b.length || a.localeCompare(b));
  const out: string[] = [];
  for (const p of uniq) if (!out.some((o) => within(o, p))) out.push(p);
  return out.sort();
}

function hostPort(u: URL): string {
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  return `${u.hostname}:${port}`;
}

/**
 * The narrowest permission lists for serving. Paths are made absolute and
 * added both as given and as realpath; `/` or an empty path is refused (a
 * root of `/` would void the sandbox), as are paths with commas (Deno's flag
 * syntax cannot carry them).
 */
export function sandboxPolicy(i: SandboxInputs): SandboxPolicy {
  const check = (p: string, what: string) => {
    if (!p || !isAbsolute(resolve(p))) throw new CruxeError("invalid_input", `${what} path is empty`);
    if (p.includes(",")) {
      throw new CruxeError(
        "invalid_input",
        `${what} ${p} contains a comma, which Deno permission flags cannot express; rename it or set CRUXE_SANDBOX=off`,
      );
    }
    return p;
  };
  const read: string[] = [];
  for (const r of i.allowedRoots) read.push(...bothForms(check(r, "--allowed-root")));
  for (const w of i.workspaces) read.push(...bothForms(check(w, "workspace")));
  read.push(...bothForms(check(i.home, "CRUXE_HOME")));
  for (const f of i.ownFiles) read.push(...bothForms(check(f, "Cruxe file")));
  if (i.configFile) read.push(...bothForms(check(i.configFile, "--config")));
  if (read.some((p) => p === "/" || /^[A-Za-z]:[\\/]?$/.test(p))) {
    throw new CruxeError(
      "invalid_input",
      "A filesystem root cannot be served inside the sandbox; choose narrower --allowed-root/--workspace paths",
    );
  }
  const net: string[] = [];
  if (i.listen) net.push(i.listen.port ? `${i.listen.hostname}:${i.listen.port}` : i.listen.hostname);
  for (const url of [i.llmUrl, i.embedUrl]) {
    if (!url) continue;
    try {
      net.push(hostPort(new URL(url)));
    } catch { /* a bad URL is reported by the tool that uses it */ }
  }
  for (const url of i.storeUrls ?? []) {
    const u = new URL(url); // checked by `storeUrlFor` before the sandbox is built
    net.push(`${u.hostname}:${u.port || "5432"}`);
  }
  return {
    read: minimalPaths(read),
    write: minimalPaths(bothForms(check(i.home, "CRUXE_HOME"))),
    net: [...new Set(net)],
    run: ["git"],
  };
}

/**
 * The `deno run` flags of a policy. No `--allow-ffi`, `--allow-sys`,
 * `--allow-import` or prompts; `--allow-env` is whole because the
 * environment itself is reduced (see the module comment).
 */
export function buildSandboxFlags(p: SandboxPolicy): string[] {
  const flags = ["--no-prompt", `--allow-read=${p.read.join(",")}`, `--allow-write=${p.write.join(",")}`];
  if (p.net.length) flags.push(`--allow-net=${p.net.join(",")}`);
  if (p.run.length) flags.push(`--allow-run=${p.run.join(",")}`);
  flags.push("--allow-env");
  return flags;
}

/** The same policy as a Worker's `deno.permissions` (for the compiled binary). */
export function workerPermissions(p: SandboxPolicy): Record<string, unknown> {
  return {
    read: p.read,
    write: p.write,
    net: p.net.length ? p.net : false,
    run: p.run.length ? p.run : false,
    env: true,
    sys: false,
    ffi: false,
    import: false,
  };
}

/** The environment the sandboxed process gets: only `SANDBOX_ENV_PASS` variables, plus the marker. */
export function sandboxEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (SANDBOX_ENV_PASS.some((p) => p.endsWith("*") ? k.startsWith(p.slice(0, -1)) : k === p)) out[k] = v;
  }
  out[SANDBOX_ENV_MARKER] = "1";
  return out;
}

/** How this process runs: under the `deno` CLI or as a compiled binary. */
export function runtimeKind(): "deno" | "compiled" {
  return Deno.build.standalone ? "compiled" : "deno";
}

/**
 * Cruxe's own files that the server reads at run time: the sources (workers
 * are loaded by path), grammars and node_modules beside them; in the
 * compiled binary, the embedded tree (a virtual directory).
 */
export function cruxeOwnFiles(): string[] {
  const root = fromFileUrl(new URL("../../", import.meta.url)).replace(/\/$/, "");
  if (runtimeKind() === "compiled") return [root];
  return ["main.ts", "src", "grammars", "node_modules", "deno.json", "package.json"]
    .map((f) => join(root, f))
    .filter((p) => existsSync(p));
}

/**
 * The config file's fields (same rules as the CLI: `--config`, else `<home>/config.json`, a regular
 * file only); a missing `--config` file is left to the served process to report.
 */
function configFileFields(path: string | undefined, home: string): Record<string, unknown> {
  return readConfigObject(path ?? join(home, "config.json")) ?? {};
}

/** Everything `sandboxPolicy` needs, gathered from checked serve options, config and registry. */
export function sandboxInputsFor(o: ServeOptions, env: Record<string, string>): SandboxInputs {
  const base = resolveConfig(env, Deno.build.os);
  const config = resolveConfig(env, Deno.build.os, configFileFields(o.configPath, base.home));
  const registry = Registry.open(config.home); // creates the home; a fault there is storage_unavailable
  let registered: string[];
  try {
    registered = [
      ...registry.listProjects().map((p) => p.repo_root),
      ...registry.listWorkspaces().map((w) => w.path),
    ];
  } finally {
    registry.close();
  }
  return {
    // A copy: the typed forms added to the policy must not reach the child's own --allowed-root list.
    allowedRoots: [...o.allowedRoots],
    workspaces: [...o.workspaces, ...registered].filter((p) => existsSync(p)),
    home: config.home,
    ownFiles: cruxeOwnFiles(),
    configFile: o.configPath ? resolve(o.configPath) : null,
    listen: o.transport === "http" ? { hostname: o.bind, port: o.port } : null,
    llmUrl: config.llm.url,
    embedUrl: config.embed.url,
    storeUrls: [o.readStore, o.store].filter((u): u is string => !!u),
  };
}

/**
 * Serves `argv` (`["serve-mcp", …]` or `["serve", …]`) inside the sandbox and
 * resolves to its exit code; resolves to null when this process should serve
 * itself (it already is the sandboxed child, or `CRUXE_SANDBOX=off`).
 * `options` are the parsed serve options; paths are canonicalized here, once:
 * the sandboxed server gets `--workspace`/`--allowed-root` as canonical
 * paths (a path through a symlink, such as `/tmp` on macOS, would otherwise
 * be re-checked in a process that may read only its target). Read access
 * covers both forms.
 *
 * `entry` names the modules the sandboxed server starts from (Cruxe's own
 * by default); a test passes its own entries to act inside the sandbox.
 *
 * @example
 * const code = await sandboxedServe([cmd, ...args], parsed);
 * if (code !== null) return code;
 * return await runServe(parsed);
 */
export async function sandboxedServe(
  argv: string[],
  options: ServeOptions,
  entry: SandboxEntry = CRUXE_ENTRY,
): Promise<number | null> {
  const env = Deno.env.toObject();
  if (env[SANDBOX_ENV_MARKER] === "1") return null;
  if (env[SANDBOX_OPT_OUT] === "off") return null;
  const { checkServeOptions, withCanonicalPaths } = await import("../mcp/serve_options.ts");
  const o = checkServeOptions(options);
  const inputs = sandboxInputsFor(o, env);
  // The paths as typed are readable too, so a request naming a workspace the way the user wrote it (through a
  // symlink) can be resolved; the child itself is handed only the canonical paths. A typed form that Deno's
  // flag syntax cannot carry (a comma) is left out: serving still works, only requests by that name are refused.
  const typed = (paths: string[]) => paths.map((p) => resolve(Deno.cwd(), p)).filter((p) => !p.includes(","));
  inputs.allowedRoots.push(...typed(options.allowedRoots));
  inputs.workspaces.push(...typed(options.workspaces));
  const policy = sandboxPolicy(inputs);
  const resolver = o.autoWorkspace ? launcherResolver(inputs.home, o.allowedRoots) : null;
  // The server asks this launcher or none (a value inherited from the environment is overwritten).
  env[RESOLVER_ENV] = resolver?.socket ?? "";
  if (resolver) policy.net.push(`unix:${resolver.socket}`);
  const childArgv = [argv[0], ...withCanonicalPaths(argv.slice(1), o)];
  debug(`sandbox: read=${policy.read.join(",")} write=${policy.write.join(",")} net=${policy.net.join(",")}`);
  // `CRUXE_SANDBOX=worker` takes the compiled binary's path under `deno run` (how that path is tested).
  const inWorker = runtimeKind() === "compiled" || env[SANDBOX_OPT_OUT] === "worker";
  try {
    return inWorker
      ? await serveInWorker(childArgv, policy, env, entry.worker)
      : await serveInChild(childArgv, policy, env, entry.main);
  } finally {
    resolver?.close();
  }
}

/**
 * Starts the launcher's path resolver for the sandboxed server (a symlink
 * elsewhere that leads into an allowed root cannot be resolved inside the
 * sandbox; see `launcher_resolver.ts`), on a socket in the home's `run`
 * directory; null when it cannot start (the server then refuses such paths).
 */
function launcherResolver(home: string, allowedRoots: string[]) {
  try {
    mkdirSync(join(home, "run"), { recursive: true });
  } catch {
    return null;
  }
  return startLauncherResolver(join(home, "run", `resolve-${Deno.pid}.sock`), allowedRoots);
}

/**
 * The Deno to re-execute: this very executable when `--allow-run` covers it,
 * else `deno` from PATH when `--allow-run=deno` was granted (Deno matches a
 * granted name against PATH, not against the resolved `Deno.execPath()`).
 */
function denoExecutable(): string {
  const exec = Deno.execPath();
  if (Deno.permissions.querySync({ name: "run", command: exec }).state === "granted") return exec;
  if (Deno.permissions.querySync({ name: "run", command: "deno" }).state === "granted") return "deno";
  throw new CruxeError(
    "internal_error",
    "The permission sandbox re-executes Deno: grant the launcher --allow-run (it re-executes Deno with narrow flags), or set CRUXE_SANDBOX=off to serve without it",
  );
}

/** `deno run` / `deno task`: re-executes the CLI (`entry`) under the narrow flags. */
async function serveInChild(
  argv: string[],
  policy: SandboxPolicy,
  env: Record<string, string>,
  entry: URL,
): Promise<number> {
  const main = fromFileUrl(entry);
  const config = fromFileUrl(new URL("../../deno.json", import.meta.url));
  const args = ["run", ...buildSandboxFlags(policy)];
  if (existsSync(config)) args.push(`--config=${config}`);
  args.push(main, ...argv);
  const child = new Deno.Command(denoExecutable(), {
    args,
    env: sandboxEnv(env),
    clearEnv: true,
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  const relays = signals.map((s) => {
    const relay = () => {
      try {
        child.kill(s);
      } catch { /* already gone */ }
    };
    Deno.addSignalListener(s, relay);
    return [s, relay] as const;
  });
  // Killed without a signal to forward (the launcher's launcher died): the child goes too.
  const stopWatch = watchParent(() => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
  });
  try {
    return (await child.status).code;
  } finally {
    stopWatch();
    for (const [s, relay] of relays) Deno.removeSignalListener(s, relay);
  }
}

/** The compiled binary: serves in a Worker holding only the narrow permissions. */
async function serveInWorker(
  argv: string[],
  policy: SandboxPolicy,
  env: Record<string, string>,
  entry: URL,
): Promise<number> {
  // The environment is process-wide: reduce it before the worker starts.
  const keep = sandboxEnv(env);
  for (const k of Object.keys(env)) if (!(k in keep)) Deno.env.delete(k);
  for (const [k, v] of Object.entries(keep)) Deno.env.set(k, v); // with the marker and the resolver's socket

  let worker: Worker;
  try {
    worker = new Worker(entry, {
      type: "module",
      deno: { permissions: workerPermissions(policy) },
    } as WorkerOptions);
  } catch (e) {
    throw new CruxeError(
      "internal_error",
      `The permission sandbox cannot start (${
        (e as Error).message
      }). Build the binary with --unstable-worker-options and --include src/cli/sandbox_worker.ts, or set CRUXE_SANDBOX=off to serve without it.`,
    );
  }
  return await new Promise<number>((resolveExit) => {
    worker.onmessage = (e: MessageEvent<{ exit: number }>) => {
      worker.terminate();
      resolveExit(e.data.exit);
    };
    worker.onerror = (e) => {
      e.preventDefault();
      console.error(`cruxe: sandboxed server failed: ${printable(e.message, true)}`);
      worker.terminate();
      resolveExit(1);
    };
    worker.postMessage({ argv });
  });
}
