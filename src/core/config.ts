/** Cruxe's settings: defaults, the config file's shape, and environment overrides. */
import { join } from "node:path";
import { CruxeError } from "./errors.ts";

/**
 * How a workspace is kept live: `auto` watches filesystem events and falls
 * back to stat polling when events cannot be had; `poll` always polls; `off`
 * leaves syncing to `sync_repo`.
 */
export type WatchMode = "auto" | "poll" | "off";

/** The live-index settings (config key `watch`; `CRUXE_WATCH`, `CRUXE_WATCH_POLL_MS`). */
export interface WatchConfig {
  mode: WatchMode;
  /** Shortest time between two polling scans (the interval also grows with the scan's cost). */
  pollIntervalMs: number;
  /** Per-workspace mode, by absolute workspace path (wins over `mode`). */
  workspaces: Record<string, WatchMode>;
}

const WATCH_MODES: readonly WatchMode[] = ["auto", "poll", "off"];

function watchMode(v: unknown, where: string): WatchMode {
  if (WATCH_MODES.includes(v as WatchMode)) return v as WatchMode;
  throw new CruxeError(
    "invalid_input",
    `${where} must be one of ${WATCH_MODES.join(", ")} (got ${JSON.stringify(v)})`,
    {
      field: where,
    },
  );
}

/** Every setting Cruxe reads. */
export interface CruxeConfig {
  /** Where stores live (`CRUXE_HOME`). */
  home: string;
  /** Query worker threads (`CRUXE_READER_WORKERS`: a number, 0 or `off` for none); null: sized by the cores. */
  readerWorkers: number | null;
  /** Indexed commits kept per refs store (`CRUXE_MAX_REF_STORES`, 1..1000, default 8). */
  maxRefStores: number;
  /**
   * Test only (`CRUXE_TEST_READER_STALL_MS`): every query a reader worker answers first blocks it this many ms,
   * as a slow SQLite query would. 0 in production.
   */
  testReaderStallMs: number;
  /** Test only (`CRUXE_TEST_READER_WARM_STALL_MS`): a new reader worker blocks this many ms before it is warm. */
  testReaderWarmStallMs: number;
  /** Test only (`CRUXE_TEST_MAX_PAGE_COUNT`): stores opened for writing are capped at this many pages. */
  testMaxPageCount: number | null;
  /** Test hook (`CRUXE_TEST_WORKER_STALL_MS`): a team worker holds each built job this long before publishing it. */
  testWorkerStallMs: number;
  /** The HTTP bearer token from the environment (`CRUXE_AUTH_TOKEN`); `--auth-token` wins over it. */
  authToken: string | null;
  /** Files larger than this are skipped when indexing (`CRUXE_MAX_FILE_BYTES`, default 16 MiB). */
  maxFileBytes: number;
  /**
   * Files larger than this (but within `maxFileBytes`) give their symbols and
   * references only: no chunks and no full text (`CRUXE_MAX_FULLTEXT_BYTES`, default 1 MiB).
   */
  maxFullTextBytes: number;
  /** Parse workers (default: one per core, at least 2, at most 4). */
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
  /** The live index: watching, polling or off. */
  watch: WatchConfig;
  /** The MCP tools served (profile or tool names, as `serve-mcp --tools`); null: the default set. */
  tools: string[] | null;
  /** A team store's `postgres://` URL (as `--store`, which wins); null: the SQLite stores under `home`. */
  store: string | null;
}

/** Keys a config file may set (every field of `CruxeConfig`). */
export const CONFIG_FILE_KEYS = [
  "home",
  "maxFileBytes",
  "maxFullTextBytes",
  "workers",
  "workerRecycleFiles",
  "maxAutoWorkspaces",
  "warmsetCapacity",
  "allowGlobalScope",
  "llm",
  "embed",
  "repoNames",
  "watch",
  "tools",
  "store",
] as const satisfies readonly (keyof CruxeConfig)[];

/** Keys of the config file's `watch` block. */
export const WATCH_CONFIG_KEYS = ["mode", "pollIntervalMs", "workspaces"] as const;

/** Keys of the config file's `llm` object. */
export const LLM_CONFIG_KEYS = [
  "url",
  "model",
  "apiKey",
  "timeoutMs",
] as const satisfies readonly (keyof CruxeConfig["llm"])[];

/**
 * Parse workers by default: one per core (at least 2, at most 4). The writer
 * thread comes on top, so the cores stay busy while it waits for results;
 * one more parser than cores only adds a WebAssembly and JavaScript heap
 * (about 130-170 MiB on the Go tree) and switching between threads.
 */
export function defaultWorkers(
  cores = typeof navigator !== "undefined" ? navigator.hardwareConcurrency || 2 : 2,
): number {
  return Math.max(2, Math.min(4, cores));
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
 * The environment variables that hold whole numbers, with the range each
 * accepts (and a word it takes besides, like `off`). Every one is checked
 * when the config is built, so a bad value stops any command at once.
 */
const NUMERIC_ENV: Record<string, { min: number; max?: number; word?: string }> = {
  CRUXE_MAX_FILE_BYTES: { min: 1 },
  CRUXE_MAX_FULLTEXT_BYTES: { min: 1 },
  CRUXE_WORKERS: { min: 1 },
  CRUXE_WORKER_RECYCLE_FILES: { min: 1 },
  CRUXE_LLM_TIMEOUT_MS: { min: 1 },
  CRUXE_EMBED_TIMEOUT_MS: { min: 1 },
  CRUXE_WATCH_POLL_MS: { min: 50 },
  CRUXE_MAX_REF_STORES: { min: 1, max: 1000 },
  CRUXE_READER_WORKERS: { min: 0, word: "off" },
};

/** `value` as a whole number in `name`'s range (`NUMERIC_ENV`), or `invalid_input` naming `where`. */
function wholeNumber(value: unknown, name: string, where: string): number {
  const { min, max = Number.MAX_SAFE_INTEGER, word } = NUMERIC_ENV[name];
  const text = typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : "";
  const n = /^\d{1,15}$/.test(text) ? Number(text) : NaN;
  if (n >= min && n <= max) return n;
  const range = (max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`) +
    (word ? `, or ${word}` : "");
  throw new CruxeError("invalid_input", `${where} must be a whole number, ${range} (got ${JSON.stringify(value)})`, {
    field: where,
  });
}

/**
 * The whole number the environment variable `name` sets: `fallback` when it
 * is unset or blank, else its value, or `invalid_input` naming the variable
 * when that is not a whole number in its range. (Its `word`, like `off`, is
 * the caller's to look for first.)
 */
export function envNumber(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  return raw === undefined || raw.trim() === "" ? fallback : wholeNumber(raw, name, name);
}

/** Checks every variable of `NUMERIC_ENV` that is set; throws `invalid_input` naming the first bad one. */
function checkNumericEnv(env: Record<string, string | undefined>): void {
  for (const [name, rule] of Object.entries(NUMERIC_ENV)) {
    if (rule.word === undefined || env[name]?.trim() !== rule.word) envNumber(env, name, 0);
  }
}

/**
 * A numeric setting: the environment variable `name` when set, else the config
 * file's value (checked against the same range, naming `fileKey`), else `fallback`.
 */
function numberSetting(
  env: Record<string, string | undefined>,
  name: string,
  fileValue: unknown,
  fileKey: string,
  fallback: number,
): number {
  const fromFile = fileValue === undefined ? fallback : wholeNumber(fileValue, name, `config key ${fileKey}`);
  return envNumber(env, name, fromFile);
}

/**
 * Builds the effective config: defaults, then the config file's fields, then
 * environment variables (which win). A numeric environment variable or file
 * value that is not a whole number in its range is `invalid_input` naming it.
 */
export function resolveConfig(
  env: Record<string, string | undefined>,
  os: string,
  file: Partial<CruxeConfig> = {},
): CruxeConfig {
  checkNumericEnv(env);
  const num = (name: string, fileValue: unknown, fileKey: string, d: number) =>
    numberSetting(env, name, fileValue, fileKey, d);
  const fileLlm: Partial<CruxeConfig["llm"]> = file.llm ?? {};
  const fileEmbed: Partial<CruxeConfig["embed"]> = file.embed ?? {};
  return {
    home: env.CRUXE_HOME ?? file.home ?? defaultHome(env, os),
    readerWorkers: readerWorkersSetting(env),
    maxRefStores: envNumber(env, "CRUXE_MAX_REF_STORES", DEFAULT_MAX_REF_STORES),
    testReaderStallMs: testHookNumber("CRUXE_TEST_READER_STALL_MS", env) ?? 0,
    testReaderWarmStallMs: testHookNumber("CRUXE_TEST_READER_WARM_STALL_MS", env) ?? 0,
    testMaxPageCount: testHookNumber("CRUXE_TEST_MAX_PAGE_COUNT", env),
    testWorkerStallMs: testHookNumber("CRUXE_TEST_WORKER_STALL_MS", env) ?? 0,
    authToken: env.CRUXE_AUTH_TOKEN ?? null,
    maxFileBytes: num("CRUXE_MAX_FILE_BYTES", file.maxFileBytes, "maxFileBytes", 16 * 1024 * 1024),
    maxFullTextBytes: num("CRUXE_MAX_FULLTEXT_BYTES", file.maxFullTextBytes, "maxFullTextBytes", 1024 * 1024),
    workers: num("CRUXE_WORKERS", file.workers, "workers", defaultWorkers()),
    workerRecycleFiles: num("CRUXE_WORKER_RECYCLE_FILES", file.workerRecycleFiles, "workerRecycleFiles", 4000),
    maxAutoWorkspaces: file.maxAutoWorkspaces ?? 10,
    warmsetCapacity: file.warmsetCapacity ?? 3,
    allowGlobalScope: env.ALLOW_GLOBAL_SCOPE !== undefined
      ? env.ALLOW_GLOBAL_SCOPE === "true"
      : file.allowGlobalScope ?? false,
    llm: {
      url: env.CRUXE_LLM_URL ?? fileLlm.url ?? null,
      model: env.CRUXE_LLM_MODEL ?? fileLlm.model ?? null,
      apiKey: env.CRUXE_LLM_API_KEY ?? fileLlm.apiKey ?? null,
      timeoutMs: num("CRUXE_LLM_TIMEOUT_MS", fileLlm.timeoutMs, "llm.timeoutMs", 30000),
    },
    embed: {
      url: env.CRUXE_EMBED_URL ?? fileEmbed.url ?? null,
      model: env.CRUXE_EMBED_MODEL ?? fileEmbed.model ?? null,
      apiKey: env.CRUXE_EMBED_API_KEY ?? fileEmbed.apiKey ?? null,
      timeoutMs: num("CRUXE_EMBED_TIMEOUT_MS", fileEmbed.timeoutMs, "embed.timeoutMs", 30000),
    },
    repoNames: file.repoNames ?? {},
    watch: resolveWatch(env, file.watch),
    tools: toolsSetting(file.tools),
    store: typeof file.store === "string" ? file.store : null,
  };
}

/** Default number of indexed commits kept per refs store. */
const DEFAULT_MAX_REF_STORES = 8;

/** `CRUXE_READER_WORKERS`: `off` is 0, a number is kept (at most 16), unset is null (sized by the cores later). */
function readerWorkersSetting(env: Record<string, string | undefined>): number | null {
  const raw = env.CRUXE_READER_WORKERS?.trim();
  if (!raw) return null;
  if (raw === "off") return 0;
  return Math.min(envNumber(env, "CRUXE_READER_WORKERS", 0), 16);
}

/** The environment this process was given, or none when it may not read it. */
export function processEnv(): Record<string, string> {
  try {
    return Deno.env.toObject();
  } catch {
    return {};
  }
}

/**
 * A test-only hook's whole number from the environment (`CRUXE_TEST_*`), or
 * null when unset, not a positive whole number, or the environment cannot be
 * read. Product settings never come from here.
 */
function testHookNumber(name: `CRUXE_TEST_${string}`, env?: Record<string, string | undefined>): number | null {
  let raw: string | undefined;
  try {
    raw = env ? env[name] : Deno.env.get(name);
  } catch {
    return null;
  }
  const n = Number(raw);
  return raw && Number.isInteger(n) && n > 0 ? n : null;
}

/** The config file's `tools`: a list of names or one comma-separated string; anything else is `invalid_input`. */
function toolsSetting(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value;
  throw new CruxeError("invalid_input", 'config key "tools" must be a list of profile or tool names', {
    key: "tools",
  });
}

/** The `watch` settings: config file fields, then `CRUXE_WATCH` / `CRUXE_WATCH_POLL_MS`; bad values are `invalid_input`. */
function resolveWatch(env: Record<string, string | undefined>, file: Partial<WatchConfig> | undefined): WatchConfig {
  const f: Partial<WatchConfig> = file ?? {};
  const poll = numberSetting(env, "CRUXE_WATCH_POLL_MS", f.pollIntervalMs, "watch.pollIntervalMs", 2000);
  const workspaces: Record<string, WatchMode> = {};
  for (const [path, m] of Object.entries(f.workspaces ?? {})) {
    workspaces[path] = watchMode(m, `watch.workspaces[${path}]`);
  }
  return {
    mode: env.CRUXE_WATCH ? watchMode(env.CRUXE_WATCH, "CRUXE_WATCH") : watchMode(f.mode ?? "auto", "watch.mode"),
    pollIntervalMs: poll,
    workspaces,
  };
}
