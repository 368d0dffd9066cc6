/** Stable identities: project ids, symbol handles and result handles. */
import { createHash } from "node:crypto";

/** Hex digest (sha256) of the given parts joined by NUL. */
export function digest(...parts: string[]): string {
  const h = createHash("sha256");
  for (let i = 0; i < parts.length; i++) {
    if (i) h.update("\0");
    h.update(parts[i]);
  }
  return h.digest("hex");
}

/**
 * A fast, stable, non-cryptographic 128-bit hash (four 32-bit lanes) as 32 hex
 * digits. Used for handles computed per symbol, where sha256 through the
 * node:crypto layer costs more than the parse itself.
 */
export function fastHash(...parts: string[]): string {
  let h1 = 0x811c9dc5 ^ parts.length, h2 = 0x01000193, h3 = 0x9e3779b9, h4 = 0x85ebca6b;
  for (let p = 0; p < parts.length; p++) {
    const s = parts[p];
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
      h3 = Math.imul(h3 ^ c, 0x27d4eb2f);
      h4 = Math.imul(h4 ^ c, 0x165667b1);
    }
    h1 = Math.imul(h1 ^ 0xff, 0x01000193); // separator between parts
    h2 = Math.imul(h2 ^ 0xfe, 0x5bd1e995);
  }
  return hex8(mix(h1, h3)) + hex8(mix(h2, h1)) + hex8(mix(h3, h4)) + hex8(mix(h4, h2));
}

function mix(h: number, k: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) ^ k;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** An unsigned 32-bit number as 8 lower-case hex digits. */
function hex8(x: number): string {
  return HEX_BYTE[x >>> 24] + HEX_BYTE[(x >>> 16) & 255] + HEX_BYTE[(x >>> 8) & 255] + HEX_BYTE[x & 255];
}

/** A content hash for the file manifest (sha1 hex: fast, collision risk irrelevant here). */
export function contentHash(bytes: Uint8Array): string {
  return createHash("sha1").update(bytes).digest("hex");
}

/** Project id: the first 16 hex digits of a hash of the canonical path. */
export function projectId(canonicalPath: string): string {
  return digest(canonicalPath).slice(0, 16);
}

/**
 * `symbol_stable_id`: from language, kind, qualified name and signature only,
 * so it survives the symbol moving to other lines.
 */
export function symbolStableId(
  language: string,
  kind: string,
  qualifiedName: string,
  signature: string,
): string {
  return "b3:" + fastHash(language, kind, qualifiedName, signature.replace(/\s+/g, " ").trim());
}

/** `symbol_id`: identity of one symbol row (path + stable id + line). */
export function symbolId(path: string, stableId: string, lineStart: number): string {
  return "sym_" + fastHash(path, stableId, String(lineStart)).slice(0, 24);
}

/** `result_id` for a non-symbol result (snippet or file) of the index. */
export function resultId(prefix: "snip" | "file", path: string, lineStart = 0, lineEnd = 0): string {
  return `${prefix}_` + fastHash(path, String(lineStart), String(lineEnd)).slice(0, 24);
}

/** A short random job id. */
export function newJobId(): string {
  return crypto.randomUUID().replace(/-/g, "").slice(0, 12);
}
