/**
 * `cruxe doctor`'s live-index checks: per registered workspace, the watch
 * mode the config gives it and whether file events can really be had there
 * (a trial of the live index's own watch, closed at once; a network file system), each
 * problem with its fix; and the inotify limits on Linux.
 * Requires `--allow-read` on the workspaces (the inotify limits are read
 * only with every permission).
 */
import type { CruxeConfig } from "../../core/config.ts";
import type { ProjectRow } from "../../state/registry.ts";
import { configuredWatchMode, INOTIFY_FIX, isWatchLimitError, networkFileSystem } from "../../index/watch_mode.ts";
import { TreeWatcher } from "../../index/watcher.ts";
import type { Check } from "./doctor_check.ts";

/**
 * The inotify limits. Deno lets a program read `/proc/sys` only with every
 * permission, which neither the `cruxe` task nor the binary has (and Cruxe
 * runs no other program to read them): then the check says how to see them,
 * and that reaching the limit is detected when watching starts.
 */
function inotifyLimits(): Check | null {
  if (Deno.build.os !== "linux") return null;
  try {
    const read = (n: string) => Deno.readTextFileSync(`/proc/sys/fs/inotify/${n}`).trim();
    const watches = Number(read("max_user_watches"));
    return {
      check: "inotify limits",
      status: watches < 65536 ? "warn" : "ok",
      detail: `max_user_watches=${watches}, max_user_instances=${read("max_user_instances")} ` +
        "(one watch per directory of every watched workspace)",
      fix: watches < 65536 ? INOTIFY_FIX : undefined,
    };
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) {
      return {
        check: "inotify limits",
        status: "ok",
        detail: "not read (Deno reads /proc/sys only with --allow-all; `sysctl fs.inotify` shows them); " +
          "a watch that reaches the limit falls back to polling and says so",
      };
    }
    return { check: "inotify limits", status: "warn", detail: `unknown (${(e as Error).message})` };
  }
}

/** What the live index will do for one workspace, tried for real. */
function workspaceWatch(config: CruxeConfig, p: ProjectRow): Check {
  const check = `watch ${p.name}`;
  const mode = configuredWatchMode(config, p.repo_root);
  if (mode === "off") return { check, status: "ok", detail: `${p.repo_root}: off (config); sync with sync_repo` };
  if (mode === "poll") return { check, status: "ok", detail: `${p.repo_root}: polling (config)` };
  const netfs = networkFileSystem(p.repo_root);
  if (netfs) {
    return {
      check,
      status: "warn",
      detail: `${p.repo_root} is on ${netfs}: change events are unreliable there, so it is polled`,
      fix: `to silence this, set "watch": {"workspaces": {"${p.repo_root}": "poll"}} in the config`,
    };
  }
  try {
    const t0 = performance.now();
    const w = new TreeWatcher(p.repo_root, { onChange() {}, onIgnored() {}, onBatch() {}, onError() {} });
    const ms = (performance.now() - t0).toFixed(0);
    w.close();
    const unreadable = [...w.unreadable.keys()];
    if (unreadable.length) {
      return {
        check,
        status: "warn",
        detail: `${p.repo_root}: file events, except in ${unreadable.length} unreadable director` +
          `${unreadable.length === 1 ? "y" : "ies"} (${unreadable.slice(0, 3).join(", ")}); the watch took ${ms} ms`,
        fix: "make those directories readable by the server's user, or ignore them in .cruxeignore",
      };
    }
    return { check, status: "ok", detail: `${p.repo_root}: file events (the watch took ${ms} ms)` };
  } catch (e) {
    const limit = isWatchLimitError(e as Error);
    return {
      check,
      status: "warn",
      detail: `${p.repo_root}: file events unavailable (${(e as Error).message}); it will be polled`,
      fix: limit ? INOTIFY_FIX : `set "watch": {"workspaces": {"${p.repo_root}": "poll"}} in the config`,
    };
  }
}

/** The live-index checks for every registered workspace. */
export function watchChecks(config: CruxeConfig, projects: ProjectRow[]): Check[] {
  const out: Check[] = [];
  const limits = inotifyLimits();
  if (limits) out.push(limits);
  for (const p of projects) out.push(workspaceWatch(config, p));
  return out;
}
