/** Test helper: runs the `cruxe` CLI as a subprocess with its own home (the team-store tests' way to call it). */

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const dec = new TextDecoder();

/** What a `cruxe` run gave: exit code, output, and stdout parsed when `--json` was given. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

/** Runs `cruxe args…` with `CRUXE_HOME=home` (and `env`); killed after two minutes (a hang fails). */
export async function runCruxe(home: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: { CRUXE_HOME: home, ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  const stdout = dec.decode(out.stdout);
  const json = args.includes("--json") && stdout.trim() ? JSON.parse(stdout) : null;
  return { code: out.code, stdout, stderr: dec.decode(out.stderr), json };
}

/** Spawns `cruxe args…` with `CRUXE_HOME=home` (and `env`), stdout and stderr piped. */
export function spawnCruxe(home: string, args: string[], env: Record<string, string> = {}): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: { CRUXE_HOME: home, ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}
