/**
 * The sandbox test's entry for the re-executed server (`deno run`): the raw
 * probe, then Cruxe's CLI with the same arguments, as `main.ts` runs it.
 */
import { main } from "../../src/cli/main.ts";
import { runRawProbe } from "./raw_probe.ts";

await runRawProbe();
Deno.exit(await main(Deno.args));
