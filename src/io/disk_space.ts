/**
 * Whether the file system holding a store has room left. Asked only once a
 * write has failed, to tell a full disk from a failing one (SQLite reports
 * both as an I/O error when it cannot create its `-shm`/`-wal` files).
 * Requires `--allow-sys=statfs`, or else `--allow-write` on the directory
 * (a probe file is written and removed instead).
 */
import { statfsSync } from "node:fs";
import { dirname, join } from "node:path";

/** Free bytes below which a disk counts as full: less than SQLite needs to open a store and log one write. */
export const FULL_BELOW_BYTES = 1024 * 1024;

/** The nearest existing directory at or above `path`. */
function existingDir(path: string): string {
  for (let p = path;; p = dirname(p)) {
    try {
      if (Deno.statSync(p).isDirectory) return p;
    } catch { /* absent or unreadable: look higher */ }
    if (dirname(p) === p) return p;
  }
}

/**
 * True when the disk holding `path` has less than `FULL_BELOW_BYTES` free
 * for this user. Without permission to ask the file system (a sandbox grants
 * no `sys`), a probe file of that size is written beside it: `ENOSPC` means
 * full. False when neither can tell (the directory cannot be written).
 */
export function diskFull(path: string): boolean {
  const dir = existingDir(path);
  try {
    const s = statfsSync(dir);
    return Number(s.bavail) * Number(s.bsize) < FULL_BELOW_BYTES;
  } catch { /* no sys permission: probe */ }
  const probe = join(dir, `.cruxe-space-probe-${Deno.pid}`);
  try {
    Deno.writeFileSync(probe, new Uint8Array(FULL_BELOW_BYTES));
    return false;
  } catch (e) {
    const code = (e as { code?: string }).code;
    return code === "ENOSPC" || /No space left on device|os error 28\b/.test((e as Error).message);
  } finally {
    try {
      Deno.removeSync(probe);
    } catch { /* never created */ }
  }
}
