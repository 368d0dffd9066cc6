/**
 * The guide's (docs/GUIDE.md) complete `config.json` example is the config Cruxe reads:
 * every key in it is known (no "unknown key" warning), it resolves without
 * error, and a misspelt key is still reported with the nearest known one.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { unknownConfigKeys } from "../src/cli/context.ts";
import { defaultWorkers, resolveConfig } from "../src/core/config.ts";
import { CruxeError } from "../src/core/errors.ts";
import { readerPoolSize } from "../src/service/reader_pool.ts";
import { REPO_ROOT } from "./mcp_helpers.ts";

/** The first ```json block after the guide's config-file sentence. */
function guideConfigExample(): Record<string, unknown> {
  const guide = Deno.readTextFileSync(join(REPO_ROOT, "docs", "GUIDE.md"));
  const from = guide.indexOf("may set every key below");
  assert.ok(from > 0, "the guide introduces its config example");
  const block = guide.slice(from).match(/```json\n([\s\S]*?)\n```/);
  assert.ok(block, "the guide shows a config.json example");
  return JSON.parse(block[1]);
}

type Json = Record<string, unknown>;

/** Every leaf of `o` as [path, value] (a map such as `repoNames` is one leaf). */
function leaves(o: Json, prefix: string[] = []): [string[], unknown][] {
  return Object.entries(o).flatMap(([k, v]) => {
    const path = [...prefix, k];
    const isMap = k === "repoNames" || k === "workspaces";
    return v && typeof v === "object" && !Array.isArray(v) && !isMap ? leaves(v as Json, path) : [[path, v]];
  });
}

function at(o: unknown, path: string[]): unknown {
  return path.reduce((x, k) => (x as Json | undefined)?.[k], o);
}

function setAt(o: Json, path: string[], v: unknown): void {
  const parent = path.slice(0, -1).reduce((x, k) => x[k] as Json, o);
  parent[path[path.length - 1]] = v;
}

/** A value for a leaf that differs from `v` and is still valid for its key. */
function another(path: string[], v: unknown): unknown {
  if (path.join(".") === "watch.mode") return v === "poll" ? "off" : "poll";
  if (typeof v === "number") return v + 7;
  if (typeof v === "boolean") return !v;
  if (typeof v === "string") return `${v}-changed`;
  if (v === null) return "set-by-test";
  if (Array.isArray(v)) return [...v, "ask"]; // the one list key (tools): one more profile name
  return { ...(v as Json), "/tmp/added-by-test": path[0] === "watch" ? "off" : "added" };
}

Deno.test("every key of the guide's config example is known and is read: each value set reaches the config", () => {
  const example = guideConfigExample();
  assert.deepEqual(unknownConfigKeys(example), []);
  const all = leaves(example);
  assert.ok(all.length >= 20, `${all.length} keys`);
  // As written, the example resolves to its own values.
  const asWritten = resolveConfig({}, "linux", example);
  for (const [path, v] of all) assert.deepEqual(at(asWritten, path), v, path.join("."));
  // Every value changed (away from the example and from the default), each change reaches the resolved config.
  const changed = structuredClone(example);
  for (const [path, v] of all) setAt(changed, path, another(path, v));
  const defaults = resolveConfig({}, "linux");
  const config = resolveConfig({}, "linux", changed);
  for (const [path] of all) {
    const want = at(changed, path);
    assert.notDeepEqual(at(defaults, path), want, `${path.join(".")}: the test value is not the default`);
    assert.deepEqual(at(config, path), want, path.join("."));
  }
});

Deno.test("misspelt keys, top level and inside watch, are named with the nearest known key", () => {
  const warnings = unknownConfigKeys({ maxFileByte: 1, watch: { pollInterval: 100 } });
  assert.equal(warnings.length, 2, warnings.join("; "));
  assert.match(warnings[0], /"maxFileByte".*"maxFileBytes"/);
  assert.match(warnings[1], /"watch\.pollInterval".*"watch\.pollIntervalMs"/);
});

/** Every environment variable Cruxe reads as a number, with its smallest and largest accepted value. */
const NUMERIC_VARS: [string, number, number | null][] = [
  ["CRUXE_MAX_FILE_BYTES", 1, null],
  ["CRUXE_MAX_FULLTEXT_BYTES", 1, null],
  ["CRUXE_WORKERS", 1, null],
  ["CRUXE_WORKER_RECYCLE_FILES", 1, null],
  ["CRUXE_LLM_TIMEOUT_MS", 1, null],
  ["CRUXE_EMBED_TIMEOUT_MS", 1, null],
  ["CRUXE_WATCH_POLL_MS", 50, null],
  ["CRUXE_MAX_REF_STORES", 1, 1000],
  ["CRUXE_READER_WORKERS", 0, null],
];

const refusesNaming = (field: string) => (e: unknown) =>
  e instanceof CruxeError && e.code === "invalid_input" && e.message.includes(field) &&
  (e.data as { field?: string })?.field === field;

Deno.test("a numeric environment variable that is not a whole number in its range is invalid_input naming it", () => {
  const bad = ["abc", "-1", "1.5", "1e3", "0x10", "12abc", "Infinity", "NaN", "+5", "1 2", "\u0661"];
  for (const [name, min, max] of NUMERIC_VARS) {
    for (const value of [...bad, String(min - 1), ...(max === null ? [] : [String(max + 1)])]) {
      assert.throws(() => resolveConfig({ [name]: value }, "linux"), refusesNaming(name), `${name}=${value}`);
    }
    // In range (also padded with spaces): accepted; blank: the default, like unset.
    assert.doesNotThrow(() => resolveConfig({ [name]: ` ${max ?? min + 7} ` }, "linux"), name);
    assert.deepEqual(resolveConfig({ [name]: "  " }, "linux"), resolveConfig({}, "linux"), `${name} blank`);
  }
  assert.equal(resolveConfig({ CRUXE_MAX_FILE_BYTES: " 2048 " }, "linux").maxFileBytes, 2048);
  assert.equal(resolveConfig({ CRUXE_WATCH_POLL_MS: "50" }, "linux").watch.pollIntervalMs, 50);
  assert.doesNotThrow(() => resolveConfig({ CRUXE_READER_WORKERS: "off" }, "linux"));
  assert.equal(readerPoolSize({ CRUXE_READER_WORKERS: "3" }), 3);
  assert.throws(() => readerPoolSize({ CRUXE_READER_WORKERS: "lots" }), refusesNaming("CRUXE_READER_WORKERS"));
});

Deno.test("a numeric config file value that is not a whole number in its range is invalid_input naming the key", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ maxFileBytes: "abc" }, "maxFileBytes"],
    [{ maxFileBytes: -1 }, "maxFileBytes"],
    [{ workers: 1.5 }, "workers"],
    [{ llm: { timeoutMs: "soon" } }, "llm.timeoutMs"],
    [{ watch: { pollIntervalMs: 10 } }, "watch.pollIntervalMs"],
  ];
  for (const [file, key] of cases) {
    assert.throws(() => resolveConfig({}, "linux", file), refusesNaming(`config key ${key}`), JSON.stringify(file));
  }
  assert.equal(resolveConfig({}, "linux", { maxFileBytes: 4096 }).maxFileBytes, 4096);
  assert.equal(resolveConfig({ CRUXE_MAX_FILE_BYTES: "8192" }, "linux", { maxFileBytes: 4096 }).maxFileBytes, 8192);
});

Deno.test("parse workers default to one per core, at least 2 and at most 4 (the writer thread comes on top)", () => {
  assert.deepEqual([1, 2, 3, 4, 16].map((cores) => defaultWorkers(cores)), [2, 2, 3, 4, 4]);
});
