/**
 * Worker entry: parses files and answers extractions and chunks, either to
 * its parent directly or over a MessagePort handed to it (then the job
 * worker is the one talking to it). Requires `--allow-read` on `grammars/`.
 */
/// <reference lib="deno.worker" />
import { PARSE_BUDGET_MS, parseAndExtract } from "./parser.ts";
import { chunkFile } from "./chunker.ts";
import { type ParseResult, type ParseTask, postResult } from "./worker_pool.ts";
import { buildFileRows } from "../state/file_rows.ts";
import { isGeneratedFile, isMinifiedSource } from "./generated.ts";

function lineCount(s: string): number {
  let n = 1;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

const strict = new TextDecoder("utf-8", { fatal: true });
const lossy = new TextDecoder("utf-8");

/** The file's text; invalid UTF-8 is decoded with replacement characters and reported. */
function decode(bytes: Uint8Array): { source: string; problem: string | null } {
  try {
    return { source: strict.decode(bytes), problem: null };
  } catch {
    return { source: lossy.decode(bytes), problem: "invalid UTF-8 (decoded with replacement characters)" };
  }
}

async function handle(t: ParseTask): Promise<ParseResult> {
  const { source, problem: encoding } = decode(t.bytes);
  const generated = isGeneratedFile(t.facts.path, source);
  // Above the full-text limit a file gives its symbols and references, not its text.
  const fullText = t.fullText !== false;
  const chunks = (symbols: Parameters<typeof chunkFile>[1]) => fullText ? chunkFile(source, symbols) : [];
  try {
    // Generated and minified files stay locatable by their symbols; their identifier occurrences are not
    // indexed (machine-written uses would crowd out the hand-written ones, at a large share of the store).
    const occurrences = !generated && !isMinifiedSource(source);
    const ex = await parseAndExtract(t.facts.language, t.facts.path, source, PARSE_BUDGET_MS, occurrences);
    const facts = {
      ...t.facts,
      lineCount: lineCount(source),
      parseError: encoding ?? ex.parseError,
      generated,
      fullText,
    };
    const rows = buildFileRows(facts, ex.symbols, ex.refs, chunks(ex.symbols), ex.occurrences);
    return { id: t.id, rows, problem: ex.parseError };
  } catch (err) {
    const problem = `extraction failed: ${err instanceof Error ? err.message : String(err)}`;
    const facts = { ...t.facts, lineCount: lineCount(source), parseError: problem, generated, fullText };
    const rows = buildFileRows(facts, [], [], chunks([]));
    return { id: t.id, rows, problem };
  }
}

self.onmessage = async (e: MessageEvent<ParseTask | { type: "port"; port: MessagePort }>) => {
  const m = e.data;
  if ("type" in m && m.type === "port") {
    m.port.onmessage = async (pe: MessageEvent<ParseTask>) => postResult(m.port, await handle(pe.data));
    return;
  }
  postResult(self, await handle(m as ParseTask));
};
