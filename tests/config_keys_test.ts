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
  return { ...(v as Json), "/tmp/added-by-test": path[0] === "watch" ? "off" : "added" };
}

Deno.test("every key of the README's config example is known and is read: each value set reaches the config", () => {
  const example = readmeConfigExample();
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
