/**
 * Worker entry: parses files and answers extractions and chunks, either to
 * its parent directly or over a MessagePort handed to it (then the job
 * worker is the one talking to it). Requires `--allow-read` on `grammars/`.
 */
/// <reference lib="deno.worker" />
import { parseAndExtract } from "./parser.ts";
import { chunkFile } from "./chunker.ts";
import type { ParseResult, ParseTask } from "./worker_pool.ts";
import { buildFileRows } from "../state/file_rows.ts";

function lineCount(s: string): number {
  let n = 1;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

async function handle(t: ParseTask): Promise<ParseResult> {
  try {
    const ex = await parseAndExtract(t.facts.language, t.facts.path, t.source);
    const facts = { ...t.facts, lineCount: lineCount(t.source), parseError: t.facts.parseError ?? ex.parseError };
    const rows = buildFileRows(facts, ex.symbols, ex.refs, chunkFile(t.source, ex.symbols));
    return { id: t.id, rows, problem: ex.parseError };
  } catch (err) {
    const problem = `extraction failed: ${err instanceof Error ? err.message : String(err)}`;
    const facts = { ...t.facts, lineCount: lineCount(t.source), parseError: problem };
    const rows = buildFileRows(facts, [], [], chunkFile(t.source, []));
    return { id: t.id, rows, problem };
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
