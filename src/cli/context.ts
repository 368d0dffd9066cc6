/**
 * What every command starts from: the effective config (`--config`, env),
 * the registry, and startup reconciliation of interrupted jobs.
 * Requires `--allow-env`, `--allow-read`/`--allow-write` on the Cruxe home (and `--allow-read` on the config file).
 */
import { join } from "node:path";
import {
  CONFIG_FILE_KEYS,
  type CruxeConfig,
  LLM_CONFIG_KEYS,
  processEnv,
  resolveConfig,
  WATCH_CONFIG_KEYS,
} from "../core/config.ts";
import { warn } from "../core/log.ts";
import { nearest } from "./args.ts";
import { readConfigObject } from "./config_file.ts";
import { CruxeError } from "../core/errors.ts";
import { Registry } from "../state/registry.ts";
import { capStorePages } from "../state/db.ts";
import { processAlive } from "../io/process_lock.ts";

/** Opened state shared by a command's run. */
export interface CliContext {
  config: CruxeConfig;
  registry: Registry;
  /** Jobs this start marked interrupted. */
  interruptedAtStart: number;
}

function readConfigFile(path: string | undefined, home: string): Partial<CruxeConfig> {
  const p = path ?? join(home, "config.json");
  const parsed = readConfigObject(p);
  if (!parsed) {
    if (path) throw new CruxeError("invalid_input", `Config file ${path} does not exist`, { path });
    return {};
  }
  for (const w of unknownConfigKeys(parsed)) warn(`config file ${p}: ${w}`);
  return parsed as Partial<CruxeConfig>;
}

/**
 * One sentence per key of a config file that Cruxe does not read (it is
 * ignored), naming the nearest known key.
 */
export function unknownConfigKeys(file: Record<string, unknown>): string[] {
  const out: string[] = [];
  const check = (obj: Record<string, unknown>, known: readonly string[], prefix: string) => {
    for (const k of Object.keys(obj)) {
      if (known.includes(k)) continue;
      const near = nearest(k, known);
      out.push(`unknown key "${prefix}${k}" is ignored${near ? `; did you mean "${prefix}${near}"?` : ""}`);
    }
  };
  check(file, CONFIG_FILE_KEYS, "");
  // The embeddings endpoint takes the same keys as the LLM one.
  const blocks: [string, readonly string[]][] = [["llm", LLM_CONFIG_KEYS], ["embed", LLM_CONFIG_KEYS], [
    "watch",
    WATCH_CONFIG_KEYS,
  ]];
  for (const [key, known] of blocks) {
    const block = file[key];
    if (typeof block === "object" && block !== null && !Array.isArray(block)) {
      check(block as Record<string, unknown>, known, `${key}.`);
    }
  }
  return out;
}

/** The effective config (`--config` file or `<home>/config.json`, then the environment). */
export function loadConfig(configPath?: string): CruxeConfig {
  const env = processEnv();
  const base = resolveConfig(env, Deno.build.os);
  return resolveConfig(env, Deno.build.os, readConfigFile(configPath, base.home));
}

/**
 * Loads config and opens the registry (a damaged one is `storage_unavailable`
 * naming the file and the fix; on a full disk it is opened read-only).
 */
export function openContext(configPath?: string): CliContext {
  const config = loadConfig(configPath);
  capStorePages(config.testMaxPageCount);
  const registry = Registry.open(config.home);
  // A full disk leaves the registry read-only: queries still answer from the existing indexes.
  const interruptedAtStart = registry.writeOrReadOnly(() =>
    registry.reconcileInterrupted((pid) => processAlive(config.home, pid))
  );
  return { config, registry, interruptedAtStart };
}
