/**
 * What every command starts from: the effective config (`--config`, env),
 * the registry, and startup reconciliation of interrupted jobs.
 * Requires `--allow-env`, `--allow-read`/`--allow-write` on the Cruxe home.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type CruxeConfig, resolveConfig } from "../core/config.ts";
import { CruxeError } from "../core/errors.ts";
import { Registry } from "../state/registry.ts";
import { processAlive } from "../state/process_lock.ts";

/** Opened state shared by a command's run. */
export interface CliContext {
  config: CruxeConfig;
  registry: Registry;
  /** Jobs this start marked interrupted. */
  interruptedAtStart: number;
}

function readConfigFile(path: string | undefined, home: string): Partial<CruxeConfig> {
  const p = path ?? join(home, "config.json");
  if (!existsSync(p)) {
    if (path) throw new CruxeError("invalid_input", `Config file ${path} does not exist`);
    return {};
  }
  try {
    return JSON.parse(readFileSync(p, "utf8"));
  } catch (e) {
    throw new CruxeError("invalid_input", `Config file ${p} is not valid JSON: ${(e as Error).message}`);
  }
}

/** The effective config (`--config` file or `<home>/config.json`, then the environment). */
export function loadConfig(configPath?: string): CruxeConfig {
  const env = Deno.env.toObject();
  const base = resolveConfig(env, Deno.build.os);
  return resolveConfig(env, Deno.build.os, readConfigFile(configPath, base.home));
}

/** Loads config and opens the registry (a damaged one is `storage_unavailable` naming the file and the fix). */
export function openContext(configPath?: string): CliContext {
  const config = loadConfig(configPath);
  const registry = Registry.open(config.home);
  const interruptedAtStart = registry.reconcileInterrupted((pid) => processAlive(config.home, pid));
  return { config, registry, interruptedAtStart };
}
