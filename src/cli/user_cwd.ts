/**
 * The directory the user typed the command in. `deno task` runs tasks in the
 * directory of `deno.json` (Cruxe's own checkout) and sets `INIT_CWD` to where
 * it was started; anywhere else the process's working directory is the answer.
 * Requires `--allow-env` (read of `INIT_CWD`) and `--allow-read` (realpath).
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

function sameDir(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * `INIT_CWD` when the process runs in Cruxe's own checkout (as `deno task`
 * makes it) and `INIT_CWD` is set, else `Deno.cwd()`. A compiled binary or a
 * plain `deno run` elsewhere always gets `Deno.cwd()`.
 */
export function userCwd(env: (name: string) => string | undefined = (n) => Deno.env.get(n)): string {
  const cwd = Deno.cwd();
  const init = env("INIT_CWD");
  if (!init) return cwd;
  const here = new URL("../../", import.meta.url);
  if (here.protocol !== "file:") return cwd;
  return sameDir(cwd, fileURLToPath(here)) ? init : cwd;
}
