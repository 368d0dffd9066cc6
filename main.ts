/**
 * Cruxe's entry point: the same module under `deno run`, `deno task` and the compiled binary.
 * `--version` alone loads nothing else; any other command loads the CLI.
 */
import { versionLine } from "./src/core/version.ts";

if (import.meta.main) {
  const args = Deno.args;
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    console.log(versionLine());
    Deno.exit(0);
  }
  const { main } = await import("./src/cli/main.ts");
  const code = await main(args);
  Deno.exit(code);
}
