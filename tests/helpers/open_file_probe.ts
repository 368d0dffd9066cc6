/**
 * Calls open_file in a loop in its own process, so it can run under narrow
 * permissions (`--allow-read` limited to the repository) while another
 * process swaps entries under it. Prints one JSON line: how many calls, how
 * many returned the outside marker, the error codes seen, and how many
 * answers named the outside directory.
 *
 * Args: one JSON object `{ root, paths, outside, marker, maxCalls, maxMs }`.
 */
import { CruxeError } from "../../src/core/errors.ts";
import { openFile } from "../../src/query/open_file.ts";

const { root, paths, outside, marker, maxCalls, maxMs } = JSON.parse(Deno.args[0]) as {
  root: string;
  paths: string[];
  outside: string;
  marker: string;
  maxCalls: number;
  maxMs: number;
};
const end = Date.now() + maxMs;
const codes: Record<string, number> = {};
let calls = 0, leaks = 0, named = 0;
const samples: string[] = [];
while (calls < maxCalls && Date.now() < end) {
  const path = paths[calls % paths.length];
  calls++;
  let text: string;
  try {
    const r = openFile(root, { path });
    text = r.content;
    codes.ok = (codes.ok ?? 0) + 1;
  } catch (e) {
    const code = e instanceof CruxeError ? e.code : `uncaught ${(e as Error)?.name}`;
    codes[code] = (codes[code] ?? 0) + 1;
    text = `${(e as Error)?.message} ${JSON.stringify(e instanceof CruxeError ? e.data : null)}`;
    if (samples.length < 3 && code !== "forbidden" && code !== "file_not_found") samples.push(`${code}: ${text}`);
  }
  if (text.includes(marker)) leaks++;
  if (text.includes(outside)) named++;
}
console.log(JSON.stringify({ calls, leaks, named, codes, samples }));
