/**
 * No function or method of `src/` runs over 80 lines unless this file lists
 * it with the reason it stays whole (the function's own comment says the
 * same). A long function is split along its steps instead; the list is for
 * what cannot be split without making it harder to read.
 */
import assert from "node:assert/strict";
import { type LongFunction, longFunctions } from "../scripts/long_functions.ts";

const MAX_LINES = 80;

/** The long functions allowed: file, name (as `scripts/long_functions.ts` names it) and why. */
const ALLOWED: { file: string; name: string; reason: string }[] = [
  {
    file: "src/mcp/http1_server.ts",
    name: "serveHttp1",
    reason: "the listener, the idle-connection set and the closing flag are shared by the accept loop, each " +
      "connection and shutdown, so they live in one closure",
  },
];

const key = (f: { file: string; name: string }) => `${f.file} ${f.name}`;
/** Every function of src/ with its length, measured once for both tests. */
const everyFunction = longFunctions(0);
const describe = (f: LongFunction) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`;

Deno.test(`no function of src/ is over ${MAX_LINES} lines without a listed reason`, async () => {
  const long = (await everyFunction).filter((f) => f.lines > MAX_LINES);
  const allowed = new Set(ALLOWED.map(key));
  const unlisted = long.filter((f) => !allowed.has(key(f))).map(describe);
  assert.deepEqual(unlisted, [], `split these along their steps (or list them with a reason):\n${unlisted.join("\n")}`);
  const found = new Set(long.map(key));
  const stale = ALLOWED.filter((a) => !found.has(key(a))).map(key);
  assert.deepEqual(stale, [], `listed but no longer over ${MAX_LINES} lines (remove them):\n${stale.join("\n")}`);
  assert.ok(ALLOWED.every((a) => a.reason.trim().length > 20), "every listed function says why it stays whole");
});

Deno.test("the long-function finder measures and names functions, methods and arrows", async () => {
  const all = await longFunctions(0);
  const names = new Set(
    all.filter((f) => f.file === "scripts/long_functions.ts" || f.file.startsWith("src/")).map(key),
  );
  assert.ok(all.length > 1000, `only ${all.length} functions found in src/`);
  // A declaration, a class method and an arrow assigned to a constant, each found under its own name.
  assert.ok(names.has("src/mcp/http1_server.ts serveHttp1"));
  assert.ok(names.has("src/index/job_runner.ts JobRunner.start"));
  assert.ok(all.some((f) => f.file === "src/core/config.ts" && f.name === "processEnv"));
  const serve = all.find((f) => f.name === "serveHttp1")!;
  assert.ok(serve.lines > MAX_LINES && serve.line > 1);
});
