/**
 * Worker entry: parses files and answers extractions and chunks, either to
 * its parent directly or over a MessagePort handed to it (then the job
 * worker is the one talking to it). Requires `--allow-read` on `grammars/`.
 */
/// <reference lib="deno.worker" />
import { parseAndExtract } from "./parser.ts";
import { chunkFile } from "./chunker.ts";
import type { ParseResult, ParseTask } from "./worker_pool.ts";

async function handle(t: ParseTask): Promise<ParseResult> {
  try {
    const ex = await parseAndExtract(t.language, t.path, t.source);
    return { id: t.id, ok: true, extraction: ex, chunks: chunkFile(t.source, ex.symbols) };
  } catch (err) {
    return {
      id: t.id,
      ok: false,
      error: err instanceof Error ? err.message : String(err),
      chunks: chunkFile(t.source, []),
    };
  }
}

self.onmessage = async (e: MessageEvent<ParseTask | { type: "port"; port: MessagePort }>) => {
  const m = e.data;
  if ("type" in m && m.type === "port") {
    m.port.onmessage = async (pe: MessageEvent<ParseTask>) => m.port.postMessage(await handle(pe.data));
    return;
  }
  self.postMessage(await handle(m as ParseTask));
};
