/**
 * The build fingerprint of an index: a SHA-256 over the sources that decide
 * what an index contains (everything under `src/index/` and `src/state/`,
 * `src/core/identifiers.ts` and `version.ts`) and over the grammar files'
 * names and sizes. The eval home reuses an index only when it was built
 * under the same fingerprint; any extractor, chunker, scanner or schema
 * change rebuilds it. Needs read access to the sources.
 */
import { digest } from "../../src/core/ids.ts";

const ROOT = new URL("../../", import.meta.url);
const SOURCES = ["src/index/", "src/state/", "src/core/identifiers.ts", "src/core/version.ts"];
/** Folders under SOURCES that only read an index: changing them never changes what an index holds. */
const READ_ONLY = ["src/state/read/"];

function files(rel: string): string[] {
  const u = new URL(rel, ROOT);
  if (!rel.endsWith("/")) return [rel];
  const out: string[] = [];
  for (const e of Deno.readDirSync(u)) {
    if (e.isDirectory && !READ_ONLY.includes(`${rel}${e.name}/`)) out.push(...files(`${rel}${e.name}/`));
    else if (e.isFile && (e.name.endsWith(".ts") || e.name.endsWith(".scm"))) out.push(rel + e.name);
  }
  return out;
}

/** The fingerprint of the current checkout (64 hex characters); equal sources give equal fingerprints. */
export function buildFingerprint(): string {
  const parts: string[] = [];
  for (const f of SOURCES.flatMap(files).sort()) parts.push(f, Deno.readTextFileSync(new URL(f, ROOT)));
  const grammars = new URL("grammars/", ROOT);
  const wasm = [...Deno.readDirSync(grammars)].filter((e) => e.name.endsWith(".wasm")).map((e) => e.name).sort();
  for (const g of wasm) parts.push(g, String(Deno.statSync(new URL(g, grammars)).size));
  return digest(...parts);
}
