/**
 * Start-up of the `cruxe` command on PATH (`bin/cruxe`, what `npm link`
 * installs) against `rg` in the same hyperfine run: `--version`, and
 * `locate NAME` / `search QUERY` on an indexed repository (default: this
 * one), each answered by a fresh process. Prints mean, median and max per
 * command and whether it meets its target (--version ≤ 150 ms, queries ≤ 300 ms).
 * Needs `hyperfine` and `rg` on PATH.
 * Usage: deno task bench:startup [CORPUS] [--name NAME] [--query Q] [--runs N] [--json]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const { values: v, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    name: { type: "string", default: "WorkspaceRouter" },
    query: { type: "string", default: "workspace router" },
    runs: { type: "string", default: "20" },
    json: { type: "boolean", default: false },
  },
});
const corpus = positionals[0] ?? ROOT;
const cruxe = join(ROOT, "bin", "cruxe");

/** True when `cmd` runs (exit code ignored). */
async function found(cmd: string): Promise<boolean> {
  try {
    await new Deno.Command(cmd, { args: ["--version"], stdout: "null", stderr: "null" }).output();
    return true;
  } catch {
    return false;
  }
}

for (const tool of ["hyperfine", "rg"]) {
  if (!await found(tool)) {
    console.error(`${tool} is not on PATH (Debian: apt-get install -y hyperfine ripgrep)`);
    Deno.exit(2);
  }
}

const home = Deno.makeTempDirSync({ prefix: "cruxe-startup-" });
const env = { ...Deno.env.toObject(), CRUXE_HOME: home, NO_COLOR: "1" };
try {
  const indexed = await new Deno.Command(cruxe, { args: ["index", corpus], env, stdout: "null", stderr: "piped" })
    .output();
  if (!indexed.success) throw new Error(`cruxe index ${corpus}: ${new TextDecoder().decode(indexed.stderr)}`);
  const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const commands: [string, string, number | null][] = [
    ["cruxe --version", `${q(cruxe)} --version`, 150],
    [`cruxe locate ${v.name}`, `${q(cruxe)} locate ${q(v.name!)}`, 300],
    [`cruxe search "${v.query}"`, `${q(cruxe)} search ${q(v.query!)}`, 300],
    [`rg -n ${v.name}`, `rg -n ${q(v.name!)}`, null],
    [`rg -n "${v.query}"`, `rg -n ${q(v.query!)}`, null],
  ];
  const out = join(home, "hyperfine.json");
  const args = ["-N", "-i", "-w", "3", "-r", v.runs!, "--export-json", out, "--style", "none"];
  for (const [label, cmd] of commands) args.push("-n", label, cmd);
  const run = await new Deno.Command("hyperfine", { args, cwd: corpus, env, stdout: "null", stderr: "inherit" })
    .output();
  if (!run.success) throw new Error("hyperfine failed");
  const results = JSON.parse(Deno.readTextFileSync(out)).results as {
    command: string;
    mean: number;
    median: number;
    max: number;
  }[];
  const rows = results.map((r, i) => ({
    command: r.command,
    mean_ms: +(r.mean * 1000).toFixed(1),
    median_ms: +(r.median * 1000).toFixed(1),
    max_ms: +(r.max * 1000).toFixed(1),
    target_ms: commands[i][2],
    met: commands[i][2] === null ? null : r.median * 1000 <= commands[i][2]!,
  }));
  if (v.json) console.log(JSON.stringify({ corpus, cpus: navigator.hardwareConcurrency, rows }, null, 2));
  else {
    console.log(`corpus ${corpus}, ${navigator.hardwareConcurrency} cpus, ${v.runs} runs each`);
    console.log(`${"command".padEnd(36)} ${"mean".padStart(8)} ${"median".padStart(8)} ${"max".padStart(8)}  target`);
    for (const r of rows) {
      const target = r.target_ms === null ? "" : `≤ ${r.target_ms} ms ${r.met ? "met" : "NOT met"}`;
      console.log(
        `${r.command.padEnd(36)} ${r.mean_ms.toFixed(1).padStart(8)} ${r.median_ms.toFixed(1).padStart(8)} ${
          r.max_ms.toFixed(1).padStart(8)
        }  ${target}`,
      );
    }
  }
} finally {
  Deno.removeSync(home, { recursive: true });
}
