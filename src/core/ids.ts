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
  return "b3:" + digest(language, kind, qualifiedName, signature.replace(/\s+/g, " ").trim()).slice(0, 32);
}

/** `symbol_id`: identity of one symbol row (path + stable id + line). */
export function symbolId(path: string, stableId: string, lineStart: number): string {
  return "sym_" + digest(path, stableId, String(lineStart)).slice(0, 24);
}

/** `result_id` for a non-symbol result (snippet or file) of the index. */
export function resultId(prefix: "snip" | "file", path: string, lineStart = 0, lineEnd = 0): string {
  return `${prefix}_` + digest(path, String(lineStart), String(lineEnd)).slice(0, 24);
}

/** A short random job id. */
export function newJobId(): string {
  return crypto.randomUUID().replace(/-/g, "").slice(0, 12);
}
