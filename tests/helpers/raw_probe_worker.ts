/**
 * The sandbox test's entry for the worker-sandboxed server: the raw probe,
 * then the CLI command, as `src/cli/sandbox_worker.ts` runs it.
 */
import { main } from "../../src/cli/main.ts";
import { runRawProbe } from "./raw_probe.ts";

self.onmessage = async (e: MessageEvent<{ argv: string[] }>) => {
  await runRawProbe();
  const exit = await main(e.data.argv);
  self.postMessage({ exit });
};
