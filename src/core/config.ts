/** Cruxe's settings: defaults, the config file's shape, and environment overrides. */
import { join } from "node:path";

/** Every setting Cruxe reads. */
export interface CruxeConfig {
  /** Where stores live (`CRUXE_HOME`). */
  home: string;
  /** Files larger than this are skipped when indexing. */
  maxFileBytes: number;
  /** Parse workers (default: cores + 1, at most 4). */
  workers: number;
  /** Files a worker parses before it is recycled (WASM heaps never shrink). */
  workerRecycleFiles: number;
  /** Max auto-discovered workspaces before LRU eviction. */
  maxAutoWorkspaces: number;
  /** Warmset capacity. */
  warmsetCapacity: number;
  /** Allow `scope: {type: "all"}` (`ALLOW_GLOBAL_SCOPE=true`). */
  allowGlobalScope: boolean;
  /** LLM endpoint for ask_code (OpenAI-compatible or Ollama). */
  llm: { url: string | null; model: string | null; apiKey: string | null; timeoutMs: number };
  /** Optional embeddings endpoint for the semantic layer (OpenAI-compatible or Ollama); off when `url` is null. */
  embed: { url: string | null; model: string | null; apiKey: string | null; timeoutMs: number };
  /** Names given to repositories (path -> name) for multi-repo scope. */
  repoNames: Record<string, string>;
}

/** Keys a config file may set (every field of `CruxeConfig`). */
export const CONFIG_FILE_KEYS = [
  "home",
  "maxFileBytes",
  "workers",
  "workerRecycleFiles",
  "maxAutoWorkspaces",
  "warmsetCapacity",
  "allowGlobalScope",
  "llm",
  "embed",
  "repoNames",
] as const satisfies readonly (keyof CruxeConfig)[];

/** Keys of the config file's `llm` object. */
export const LLM_CONFIG_KEYS = [
  "url",
  "model",
  "apiKey",
  "timeoutMs",
] as const satisfies readonly (keyof CruxeConfig["llm"])[];

/**
 * Parse workers by default: one per core plus one, because the writer thread
 * waits on parsers part of the time; at most 4, since every worker holds its
 * own WebAssembly heap.
 */
export function defaultWorkers(): number {
  const cores = typeof navigator !== "undefined" ? navigator.hardwareConcurrency || 2 : 2;
  return Math.max(2, Math.min(4, cores + 1));
}

/** The per-user data directory for the given platform and environment. */
export function defaultHome(env: Record<string, string | undefined>, os: string): string {
  if (env.CRUXE_HOME) return env.CRUXE_HOME;
  const home = env.HOME ?? env.USERPROFILE ?? ".";
  if (os === "windows") return join(env.LOCALAPPDATA ?? join(home, "AppData", "Local"), "cruxe");
  if (os === "darwin") return join(home, "Library", "Application Support", "cruxe");
  return join(env.XDG_DATA_HOME ?? join(home, ".local", "share"), "cruxe");
}

/**
 * Builds the effective config: defaults, then the config file's fields, then
 * environment variables (which win).
 */
export function resolveConfig(
  env: Record<string, string | undefined>,
  os: string,
  file: Partial<CruxeConfig> = {},
): CruxeConfig {
  const num = (v: string | undefined, d: number) => {
    const n = v === undefined ? NaN : Number(v);
    return Number.isFinite(n) && n > 0 ? n : d;
  };
  const fileLlm: Partial<CruxeConfig["llm"]> = file.llm ?? {};
  const fileEmbed: Partial<CruxeConfig["embed"]> = file.embed ?? {};
  return {
    home: env.CRUXE_HOME ?? file.home ?? defaultHome(env, os),
    maxFileBytes: num(env.CRUXE_MAX_FILE_BYTES, file.maxFileBytes ?? 1024 * 1024),
    workers: num(env.CRUXE_WORKERS, file.workers ?? defaultWorkers()),
    workerRecycleFiles: num(env.CRUXE_WORKER_RECYCLE_FILES, file.workerRecycleFiles ?? 4000),
    maxAutoWorkspaces: file.maxAutoWorkspaces ?? 10,
    warmsetCapacity: file.warmsetCapacity ?? 3,
    allowGlobalScope: env.ALLOW_GLOBAL_SCOPE !== undefined
      ? env.ALLOW_GLOBAL_SCOPE === "true"
      : file.allowGlobalScope ?? false,
    llm: {
      url: env.CRUXE_LLM_URL ?? fileLlm.url ?? null,
      model: env.CRUXE_LLM_MODEL ?? fileLlm.model ?? null,
      apiKey: env.CRUXE_LLM_API_KEY ?? fileLlm.apiKey ?? null,
      timeoutMs: num(env.CRUXE_LLM_TIMEOUT_MS, fileLlm.timeoutMs ?? 30000),
    },
    embed: {
      url: env.CRUXE_EMBED_URL ?? fileEmbed.url ?? null,
      model: env.CRUXE_EMBED_MODEL ?? fileEmbed.model ?? null,
      apiKey: env.CRUXE_EMBED_API_KEY ?? fileEmbed.apiKey ?? null,
      timeoutMs: num(env.CRUXE_EMBED_TIMEOUT_MS, fileEmbed.timeoutMs ?? 30000),
    },
    repoNames: file.repoNames ?? {},
  };
}
