/**
 * Worker for the freshness check: a stat-only scan of a repository (the same
 * scan the indexer uses) summarised as a fingerprint, off the serving thread.
 * Requires `--allow-read` on the repository and `--allow-run=git`.
 */
/// <reference lib="deno.worker" />
import { type ScannedFile, scanRepository } from "./scan.ts";
import { languageForPath } from "./languages/registry.ts";

/** Request: which repository to fingerprint. */
export interface FreshnessRequest {
  id: number;
  root: string;
  maxFileBytes: number;
  useGit: boolean;
  /** Also return the scanned files themselves (polling and the live index's catch-up compare them). */
  list?: boolean;
}

/** Reply: the fingerprint (or the error). */
export interface FreshnessReply {
  id: number;
  fingerprint?: Fingerprint;
  /** The scan's files, when `list` was asked. */
  files?: ScannedFile[];
  /** How long the scan itself took (ms). */
  scanMs?: number;
  error?: string;
}

/** What a stat-only scan says about a working tree. */
export interface Fingerprint {
  /** Files with a known language extension. */
  files: number;
  /** Newest mtime among them (ms). */
  maxMtimeMs: number;
  /** Order-independent digest of (path, size, mtime) of those files. */
  digest: string;
}

self.onmessage = async (e: MessageEvent<FreshnessRequest>) => {
  const { id, root, maxFileBytes, useGit, list } = e.data;
  try {
    const t0 = performance.now();
    const scan = await scanRepository(root, { maxFileBytes, useGit });
    const scanMs = performance.now() - t0;
    let files = 0;
    let maxMtimeMs = 0;
    let acc = 0;
    for (const f of scan.files) {
      if (!languageForPath(f.path)) continue;
      files++;
      if (f.mtimeMs > maxMtimeMs) maxMtimeMs = f.mtimeMs;
      acc = (acc + hash32(`${f.path}\0${f.size}\0${f.mtimeMs}`)) % 0x1fffffffffffff;
    }
    const fingerprint = { files, maxMtimeMs, digest: acc.toString(16) };
    self.postMessage({ id, fingerprint, scanMs, ...(list ? { files: scan.files } : {}) } satisfies FreshnessReply);
  } catch (err) {
    self.postMessage({ id, error: (err as Error).message } satisfies FreshnessReply);
  }
};

/** FNV-1a 32-bit: summed per file, so the order of the scan does not matter. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
