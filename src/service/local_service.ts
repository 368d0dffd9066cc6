/**
 * The service for one command-line call: the same runtime and dispatch
 * pipeline a server runs (routing, index gates, validation, compaction,
 * metadata), without watching, prewarming, reader workers or background
 * freshness scans, so `cruxe <command> --json` answers exactly what the tool
 * answers over MCP.
 */
import type { CruxeConfig } from "../core/config.ts";
import type { Registry } from "../state/registry.ts";
import { Dispatcher } from "./dispatch.ts";
import type { ToolResult } from "./envelope.ts";
import { ServerRuntime } from "./runtime.ts";
import { TOOLS } from "./tools/registry.ts";

/** A service answering calls in this process until closed. */
export interface LocalService {
  /** Calls `tool` with `args`, as an MCP client's `tools/call` would. */
  call(tool: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** Stops what the calls started and closes every store (the registry too). */
  close(): void;
}

/** Opens the service over `registry` with `config`; relative `workspace` arguments resolve against `cwd`. */
export function openLocalService(config: CruxeConfig, registry: Registry, cwd: string): LocalService {
  const rt = new ServerRuntime(config, registry, {
    prewarm: false,
    watch: false,
    readerWorkers: 0,
    // One call, then the process ends: a background freshness scan would only cost its worker's start.
    freshnessIntervalMs: Infinity,
    router: {
      startupWorkspaces: [],
      autoWorkspace: false,
      allowedRoots: [],
      maxAutoWorkspaces: config.maxAutoWorkspaces,
      cwd,
    },
  });
  const dispatcher = new Dispatcher(rt, TOOLS);
  const signal = new AbortController().signal;
  return {
    call: (tool, args) => dispatcher.call(tool, args, { sendNotification: () => Promise.resolve(), signal }),
    close: () => rt.close(),
  };
}
