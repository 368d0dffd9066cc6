/**
 * Which processes are alive, told by file locks under the Cruxe home: a
 * process that runs jobs holds an exclusive lock on `run/<pid>.lock` for its
 * whole life; the OS drops it when the process dies (even on kill -9), so a
 * later process can tell a crashed job from a running one without /proc.
 * Requires `--allow-read`/`--allow-write` on the home directory.
 */
import { join } from "node:path";

/** The liveness locks this process holds, by path: one per home it runs jobs in, each taken once. */
const held = new Map<string, Deno.FsFile>();

function lockPath(home: string, pid: number): string {
  return join(home, "run", `${pid}.lock`);
}

/**
 * Takes this process's liveness lock in `home` (idempotent per home: a
 * process running jobs in two homes, such as a team worker's scratch home
 * beside the user's, holds one lock in each and never waits on its own).
 */
export function holdProcessLock(home: string): void {
  const p = lockPath(home, Deno.pid);
  if (held.has(p)) return;
  Deno.mkdirSync(join(home, "run"), { recursive: true });
  const f = Deno.openSync(p, { create: true, write: true });
  f.lockSync(true);
  held.set(p, f);
}

/** True when the process `pid` holds its liveness lock in `home`. */
export function processAlive(home: string, pid: number): boolean {
  if (pid === Deno.pid) return true;
  const p = lockPath(home, pid);
  let f: Deno.FsFile;
  try {
    f = Deno.openSync(p, { write: true });
  } catch {
    return false; // never took a lock, or cleaned up: not running jobs
  }
  try {
    if (!f.tryLockSync(true)) return true;
    f.unlockSync();
    try {
      Deno.removeSync(p);
    } catch { /* raced with another checker */ }
    return false;
  } finally {
    f.close();
  }
}
