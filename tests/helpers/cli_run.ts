/** Running the `cruxe` CLI as a user would, in a subprocess with a private home and nothing else of the environment. */
import { join } from "node:path";
import { REPO_ROOT } from "../mcp_helpers.ts";

const dec = new TextDecoder();

/** Runs `cruxe args…` in `cwd` with the home `home`; resolves to its exit code, stdout and stderr. */
export async function runCruxe(
  home: string,
  cwd: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(REPO_ROOT, "main.ts"), ...args],
    cwd,
    env: { CRUXE_HOME: home, NO_COLOR: "1", PATH: Deno.env.get("PATH") ?? "" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
