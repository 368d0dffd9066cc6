/**
 * The README's complete `config.json` example is the config Cruxe reads:
 * every key in it is known (no "unknown key" warning), it resolves without
 * error, and a misspelt key is still reported with the nearest known one.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { unknownConfigKeys } from "../src/cli/context.ts";
import { resolveConfig } from "../src/core/config.ts";
import { CruxeError } from "../src/core/errors.ts";
import { readerPoolSize } from "../src/mcp/reader_pool.ts";
import { REPO_ROOT } from "./mcp_helpers.ts";

/** The first ```json block after the README's config-file sentence. */
function readmeConfigExample(): Record<string, unknown> {
  const readme = Deno.readTextFileSync(join(REPO_ROOT, "README.md"));
  const from = readme.indexOf("may set every key below");
  assert.ok(from > 0, "the README introduces its config example");
  const block = readme.slice(from).match(/```json\n([\s\S]*?)\n```/);
  assert.ok(block, "the README shows a config.json example");
  return JSON.parse(block[1]);
}

Deno.test("every key of the README's config example is known and resolves", () => {
  const example = readmeConfigExample();
  assert.deepEqual(unknownConfigKeys(example), []);
  const config = resolveConfig({}, "linux", example);
  assert.equal(config.maxFileBytes, example.maxFileBytes);
  assert.equal(config.maxFullTextBytes, example.maxFullTextBytes);
  assert.equal(config.watch.mode, (example.watch as { mode: string }).mode);
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
