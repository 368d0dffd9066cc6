/** Helpers for the MCP tests: synthetic repositories, in-process runtimes, spawned servers. */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { resolveConfig } from "../src/core/config.ts";
import { Registry } from "../src/state/registry.ts";
import { ServerRuntime } from "../src/service/runtime.ts";
import { Dispatcher } from "../src/service/dispatch.ts";
import type { ToolResult } from "../src/service/envelope.ts";
import type { RouterOptions } from "../src/service/workspace_router.ts";
import { V8_FLAGS } from "../scripts/compile.ts";
import { tempDir } from "./helpers/temp_dir.ts";

/** The repository root (for spawning `main.ts`). */
export const REPO_ROOT = new URL("../", import.meta.url).pathname;

/** The V8 and permission flags of the `cruxe` task. */
export const CRUXE_FLAGS = [
  ...V8_FLAGS,
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  "--allow-net=127.0.0.1,localhost",
  "--allow-sys",
];

/** Writes a Go repository of `files` files with `funcs` functions each; returns its path. */
export function syntheticGoRepo(files: number, funcs = 8, prefix = "cruxe-mcp-synth-"): string {
  const dir = tempDir(prefix);
  Deno.writeTextFileSync(join(dir, "go.mod"), "module example.com/synth\n\ngo 1.21\n");
  for (let i = 0; i < files; i++) {
    const pkg = `pkg${i % 10}`;
    Deno.mkdirSync(join(dir, pkg), { recursive: true });
    let src = `package ${pkg}\n\n// Widget${i} holds state for file ${i}.\ntype Widget${i} struct {\n\tID int\n}\n\n`;
    for (let f = 0; f < funcs; f++) {
      src += `// Compute${i}x${f} computes a value.\nfunc (w *Widget${i}) Compute${i}x${f}(n int) int {\n` +
        `\tif n > ${f} {\n\t\treturn n * ${f + 1}\n\t}\n\treturn w.ID + n\n}\n\n`;
    }
    Deno.writeTextFileSync(join(dir, pkg, `file${i}.go`), src);
  }
  return dir;
}

/** A temporary Cruxe home directory. */
export function tempHomeDir(): string {
  return tempDir("cruxe-mcp-home-");
}

/** An in-process runtime + dispatcher over a temporary home. */
export interface InProcess {
  home: string;
  registry: Registry;
  rt: ServerRuntime;
  dispatcher: Dispatcher;
  call(name: string, args?: Record<string, unknown>, token?: string): Promise<ToolResult>;
  close(): void;
}

/** Builds an in-process server runtime (no transport). */
export function inProcess(
  router: Partial<RouterOptions> = {},
  opts: {
    home?: string;
    prewarm?: boolean;
    warmsetCapacity?: number;
    readerWorkers?: number;
    env?: Record<string, string>;
  } = {},
): InProcess {
  const home = opts.home ?? tempHomeDir();
  const config = {
    ...resolveConfig({ ...opts.env, CRUXE_HOME: home }, Deno.build.os),
    workers: 1,
    ...(opts.warmsetCapacity ? { warmsetCapacity: opts.warmsetCapacity } : {}),
  };
  const registry = Registry.open(home);
  const rt = new ServerRuntime(config, registry, {
    prewarm: opts.prewarm ?? false,
    freshnessIntervalMs: 0,
    ...(opts.readerWorkers !== undefined ? { readerWorkers: opts.readerWorkers } : {}),
    router: {
      startupWorkspaces: [],
      autoWorkspace: false,
      allowedRoots: [],
      maxAutoWorkspaces: 10,
      cwd: Deno.cwd(),
      ...router,
    },
  });
  const dispatcher = new Dispatcher(rt);
  return {
    home,
    registry,
    rt,
    dispatcher,
    call: (name, args = {}, token) =>
      dispatcher.call(name, args, {
        progressToken: token,
        sendNotification: () => Promise.resolve(),
        signal: new AbortController().signal,
      }),
    close: () => rt.close(),
  };
}

/** The JSON body of a tool result's text content. */
export function bodyOf(r: unknown): Record<string, unknown> {
  const c = ((r as { content: unknown }).content as { type: string; text: string }[])[0];
  return JSON.parse(c.text);
}

/** Polls until `fn` is true (or throws after `ms`). */
export async function waitFor(fn: () => boolean | Promise<boolean>, ms = 20_000, what = "condition"): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Resolves like `p`, or rejects after `ms` (a generous bound on waiting for an event, never a sleep). */
export async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Spawns `cruxe serve-mcp` over stdio and connects the SDK's Client to it. */
export async function stdioClient(
  home: string,
  args: string[],
  capabilities: Record<string, unknown> = {},
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), "serve-mcp", ...args],
    env: { ...Deno.env.toObject(), CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1" },
    stderr: "pipe",
    cwd: REPO_ROOT,
  });
  let err = "";
  transport.stderr?.on("data", (d: Uint8Array) => err += new TextDecoder().decode(d));
  const client = new Client({ name: "cruxe-test", version: "1.0.0" }, { capabilities });
  await client.connect(transport);
  return { client, transport, stderr: () => err };
}

/** A spawned HTTP server once it said its port: stderr so far, and a stop that waits for it to exit. */
export interface SpawnedHttp {
  port: number;
  stderr: () => string;
  stop(): Promise<void>;
}

/**
 * Waits (at most 60 s) for a spawned `serve-mcp --transport http` (stderr
 * piped) to print its listening URL, and keeps reading stderr until the
 * process closes it. Throws, after stopping it, when it never says its port.
 */
export async function awaitHttpPort(child: Deno.ChildProcess): Promise<SpawnedHttp> {
  let err = "";
  const reader = child.stderr.getReader();
  const dec = new TextDecoder();
  let port = 0;
  const end = Date.now() + 60_000;
  while (!port && Date.now() < end) {
    const { value, done } = await reader.read();
    if (done) break;
    err += dec.decode(value);
    port = Number(err.match(/MCP over HTTP on http:\/\/[^\s]+:(\d+)\//)?.[1] ?? 0);
  }
  const drained = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) break;
      err += dec.decode(value);
    }
    reader.releaseLock();
  })();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    await child.status;
    await drained;
  };
  if (!port) {
    await stop();
    throw new Error(`server did not start: ${err}`);
  }
  return { port, stderr: () => err, stop };
}
