/**
 * The one place grammar `.wasm` files are found: `grammars/` beside the
 * sources. `deno compile --include grammars` embeds that folder, and the same
 * URL lookup then reads from the binary, so `deno run` and the compiled
 * executable take the same path. In state, with the other rules for reading
 * files, because the parser and the health checks both need it. Requires
 * `--allow-read` on `grammars/`.
 */

const GRAMMAR_DIR = new URL("../../grammars/", import.meta.url);

/** URL of a grammar asset by file name. */
export function grammarUrl(file: string): URL {
  return new URL(file, GRAMMAR_DIR);
}

/** Bytes of a grammar asset; throws Deno.errors.NotFound when missing. */
export function readGrammar(file: string): Uint8Array {
  return Deno.readFileSync(grammarUrl(file));
}

/** True when the asset is present. */
export function hasGrammar(file: string): boolean {
  try {
    return Deno.statSync(grammarUrl(file)).isFile;
  } catch {
    return false;
  }
}
