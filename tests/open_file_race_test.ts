/**
 * open_file against a repository that changes under it: a Worker swaps
 * `d/` between a real directory and a symlink to a directory outside (and,
 * second case, `f.txt` between a real file and a symlink to a file outside)
 * while open_file is called in a tight loop. Not one answer may carry the
 * outside file's content, and every refusal must be `forbidden` or
 * `file_not_found` (never `internal_error`, never a message naming the
 * outside path) — also in a process whose `--allow-read` covers only the
 * repository. Bounded: fixed call counts, and the flipper stops itself.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CruxeError } from "../src/core/errors.ts";
import { openFile } from "../src/query/open_file.ts";

const MARKER = `RACE-OUTSIDE-${crypto.randomUUID()}`;
const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "cruxe-race-" }));
const repo = join(base, "repo");
const outside = join(base, "outside");
Deno.mkdirSync(join(repo, "d"), { recursive: true });
Deno.mkdirSync(outside);
Deno.writeTextFileSync(join(outside, ".bashrc"), `export SECRET=${MARKER}\n`);
Deno.writeTextFileSync(join(repo, "d/.bashrc"), "alias inside=1\n");
Deno.symlinkSync(outside, join(repo, "d.link"));
Deno.writeTextFileSync(join(repo, "f.txt"), "inside file\n");
Deno.symlinkSync(join(outside, ".bashrc"), join(repo, "f.txt.link"));

const CALLS_PER_CASE = 10_000;
const REFUSALS = new Set(["forbidden", "file_not_found"]);

/**
 * Starts the flipper Worker on `entry` and resolves once it is flipping; the
 * resolved function stops it and resolves to its flip count.
 */
async function startFlipper(entry: string): Promise<() => Promise<number>> {
  const stop = new SharedArrayBuffer(4);
  const worker = new Worker(new URL("./helpers/race_flipper.ts", import.meta.url), { type: "module" });
  const started = Promise.withResolvers<void>();
  const done = new Promise<number>((resolve, reject) => {
    worker.onmessage = (e) => e.data.started ? started.resolve() : resolve(e.data.flips);
    worker.onerror = (e) => {
      e.preventDefault();
      const err = new Error(`flipper failed: ${e.message}`);
      started.reject(err);
      reject(err);
    };
  });
  worker.postMessage({ entry, stop, maxMs: 30_000 });
  await started.promise;
  return async () => {
    Atomics.store(new Int32Array(stop), 0, 1);
    try {
      return await done;
    } finally {
      worker.terminate();
    }
  };
}

/** Calls open_file `n` times on `path`; counts leaks, inside reads and error codes. */
function hammer(path: string, n: number): { leaks: number; inside: number; codes: Record<string, number> } {
  let leaks = 0, inside = 0;
  const codes: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    try {
      const r = openFile(repo, { path });
      if (r.content.includes(MARKER)) leaks++;
      else inside++;
    } catch (e) {
      const code = e instanceof CruxeError ? e.code : `uncaught ${(e as Error)?.name}: ${(e as Error)?.message}`;
      codes[code] = (codes[code] ?? 0) + 1;
      if (e instanceof CruxeError && (e.message + JSON.stringify(e.data)).includes(outside)) {
        codes["names the outside path"] = (codes["names the outside path"] ?? 0) + 1;
      }
    }
  }
  return { leaks, inside, codes };
}

for (const [what, entry, path] of [["directory", "d", "d/.bashrc"], ["file", "f.txt", "f.txt"]] as const) {
  Deno.test(`open_file race: ${what} swapped with a symlink to outside leaks nothing`, async () => {
    const stopFlipper = await startFlipper(join(repo, entry));
    const t0 = performance.now();
    const r = hammer(path, CALLS_PER_CASE);
    const ms = Math.round(performance.now() - t0);
    const flips = await stopFlipper();
    console.log(
      `${what} swap: ${CALLS_PER_CASE} calls in ${ms} ms, ${flips} flips, ${r.leaks} leaks, ` +
        `${r.inside} inside reads, codes ${JSON.stringify(r.codes)}`,
    );
    assert.equal(r.leaks, 0, `outside content returned ${r.leaks} times`);
    const bad = Object.keys(r.codes).filter((c) => !REFUSALS.has(c));
    assert.deepEqual(bad, [], JSON.stringify(r.codes));
    // The race really happened: both the inside file and refusals were seen.
    assert.ok(flips > 100 && r.inside > 0 && Object.keys(r.codes).length > 0, JSON.stringify({ flips, ...r }));
  });
}

Deno.test("open_file race under --allow-read limited to the repository: no leak, no internal_error, no outside path", async () => {
  const stopFlipper = await startFlipper(join(repo, "d"));
  const stopFileFlipper = await startFlipper(join(repo, "f.txt"));
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-check",
        "--no-prompt",
        `--allow-read=${repo}`,
        new URL("./helpers/open_file_probe.ts", import.meta.url).pathname,
        JSON.stringify({
          root: repo,
          paths: ["d/.bashrc", "f.txt"],
          outside,
          marker: MARKER,
          maxCalls: 6_000,
          maxMs: 15_000,
        }),
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
  } finally {
    await stopFlipper();
    await stopFileFlipper();
  }
  const text = new TextDecoder().decode(out.stdout);
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const r = JSON.parse(text) as { calls: number; leaks: number; named: number; codes: Record<string, number> };
  console.log(`sandboxed: ${text.trim()}`);
  assert.equal(r.leaks, 0);
  assert.equal(r.named, 0, "an answer named the outside path");
  const bad = Object.keys(r.codes).filter((c) => c !== "ok" && !REFUSALS.has(c));
  assert.deepEqual(bad, [], text);
  assert.ok(r.calls >= 1_000, text);
});

globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
