/**
 * The README's complete `config.json` example is the config Cruxe reads:
 * every key in it is known (no "unknown key" warning), it resolves without
 * error, and a misspelt key is still reported with the nearest known one.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { unknownConfigKeys } from "../src/cli/context.ts";
import { resolveConfig } from "../src/core/config.ts";
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
