/**
 * The compiled binary's sandboxed server: a Worker started by `sandbox.ts`
 * with narrow `deno.permissions`, running the same CLI command. The
 * environment already carries `CRUXE_SANDBOXED=1`, so the command serves
 * instead of sandboxing again. Posts `{exit}` when the command ends.
 */
import { main } from "./main.ts";

self.onmessage = async (e: MessageEvent<{ argv: string[] }>) => {
  const exit = await main(e.data.argv);
  self.postMessage({ exit });
};
