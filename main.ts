/** Cruxe's entry point: the same module under `deno run`, `deno task` and the compiled binary. */
import { main } from "./src/cli/main.ts";

if (import.meta.main) {
  const code = await main(Deno.args);
  Deno.exit(code);
}
