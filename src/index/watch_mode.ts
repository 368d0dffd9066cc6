/**
 * How a workspace is to be kept live, decided before any watch starts: the
 * mode the config gives it, whether its file system is a network one (where
 * change events are unreliable), and what a watch error means (the inotify
 * limit, with its fix). Shared by the live indexer and `cruxe doctor`.
 * Requires `--allow-read` on `/proc/self/mountinfo` (Linux) and on configured paths.
 */
import { realpathSync } from "node:fs";
import type { CruxeConfig, WatchMode } from "../core/config.ts";

/** The fix for the commonest reason events cannot be had. */
export const INOTIFY_FIX = "sudo sysctl fs.inotify.max_user_watches=524288 fs.inotify.max_user_instances=1024 " +
  "(persist it in /etc/sysctl.d/), then restart the server";

/** The watch mode the config gives a workspace (its own entry in `watch.workspaces`, else `watch.mode`). */
export function configuredWatchMode(config: CruxeConfig, repoRoot: string): WatchMode {
  const w = config.watch;
  if (w.workspaces[repoRoot]) return w.workspaces[repoRoot];
  for (const [path, mode] of Object.entries(w.workspaces)) {
    try {
      if (realpathSync(path) === repoRoot) return mode;
    } catch { /* a configured path that does not exist matches nothing */ }
  }
  return w.mode;
}

/** True when a watch error says the inotify limits are exhausted. */
export function isWatchLimitError(e: Error): boolean {
  return /watch limit|No space left|Too many open files|inotify/i.test(e.message);
}

/**
 * The kind of network or remote file system `path` is on (nfs, cifs, ...),
 * or null for a local one or when the mount table cannot be read (Linux only:
 * `/proc/self/mountinfo`).
 */
export function networkFileSystem(path: string): string | null {
  if (Deno.build.os !== "linux") return null;
  let text: string;
  try {
    text = Deno.readTextFileSync("/proc/self/mountinfo");
  } catch {
    return null;
  }
  let best = "";
  let type = "";
  for (const line of text.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!right) continue;
    const mount = (left.split(" ")[4] ?? "").replace(/\\040/g, " ");
    const within = mount === "/" || path === mount || path.startsWith(mount + "/");
    if (within && mount.length >= best.length) {
      best = mount;
      type = right.split(" ")[0];
    }
  }
  return /^(nfs\d?|cifs|smb\d?|smbfs|9p|sshfs|fuse\.sshfs|fuse\.rclone|afs|ceph|glusterfs|davfs|fuse\.davfs)$/
      .test(type)
    ? type
    : null;
}
