/**
 * The workspace router: middleware that turns a call's optional `workspace`
 * into a registered project before any tool runs, by the rules below, so
 * every transport resolves workspaces the same way. Tools never resolve
 * workspaces.
 *
 * - omitted: the first `--workspace` of the server, else the registered
 *   project containing the server's working directory, else the most
 *   recently used workspace;
 * - a path (relative ones resolve against the server's working directory
 *   first) at or under a registered project: that project;
 * - unknown without `--auto-workspace`: `workspace_not_registered`;
 * - unknown with `--auto-workspace`: realpath (a path through a symlink is
 *   served as its canonical target; a symlink the permission sandbox cannot
 *   read is resolved by the launcher, see `launcher_resolver.ts`), then
 *   component-wise check against every (realpath'd) `--allowed-root`
 *   (`workspace_not_allowed` outside), LRU eviction past `--max-auto-workspaces`, registration with
 *   `auto_discovered = 1` and a background bootstrap job that concurrent
 *   first requests share.
 * Requires `--allow-read` on the requested path (realpath, stat).
 */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { CruxeError } from "../core/errors.ts";
import { isWithinAnyRoot } from "../core/path_policy.ts";
import { info, warn } from "../core/log.ts";
import { checkRootUnmoved, outsideSandbox } from "../io/workspace_dir.ts";
import { resolveThroughLauncher } from "../io/launcher_resolver.ts";
import type { JobRunner } from "../index/job_runner.ts";
import type { IndexReaders } from "../query/index_reader.ts";
import type { ProjectRow, Registry } from "../state/registry.ts";

/** The workspace a call was routed to by the router middleware. */
export interface RoutedWorkspace {
  project: ProjectRow;
  /** The registered workspace path the call resolved to. */
  workspace: string;
  /** True when this call registered the workspace and started its bootstrap index. */
  bootstrapped: boolean;
}

/** How the router is configured (from `serve-mcp` flags). */
export interface RouterOptions {
  /** Canonical `--workspace` paths, in order; the first is the default. */
  startupWorkspaces: string[];
  autoWorkspace: boolean;
  /** Canonical `--allowed-root` paths. */
  allowedRoots: string[];
  maxAutoWorkspaces: number;
  /** Where relative workspace paths resolve from. */
  cwd: string;
}

/** Hooks the router calls when it drops an evicted workspace's other state. */
export interface EvictionHooks {
  onEvicted?(projectId: string): void;
}

/** How long `last_used_at` updates are coalesced (a registry write per call would cost more than routing). */
const TOUCH_EVERY_MS = 10_000;

/** Resolves workspaces to projects for every call. */
export class WorkspaceRouter {
  private inFlight = new Map<string, number>();
  /** When each workspace's `last_used_at` was last written (writes are coalesced). */
  private touched = new Map<string, number>();
  /** When each workspace was last used in this process (exact order for LRU; the store has second precision). */
  private recency = new Map<string, number>();
  private registering: Promise<unknown> = Promise.resolve();

  constructor(
    private registry: Registry,
    private runner: JobRunner,
    private readers: IndexReaders,
    readonly options: RouterOptions,
    private hooks: EvictionHooks = {},
  ) {}

  /** Resolves a call's `workspace` argument (undefined when omitted). */
  async resolve(workspace: string | undefined): Promise<RoutedWorkspace> {
    if (workspace === undefined) return this.routeTo(this.defaultProject(), false);
    if (typeof workspace !== "string" || !workspace.trim() || workspace.includes("\0")) {
      throw new CruxeError("invalid_input", "workspace must be a non-empty path without NUL bytes", {
        field: "workspace",
      });
    }
    const absolute = isAbsolute(workspace) ? workspace : resolve(this.options.cwd, workspace);
    let real: string | null = null;
    let unreadable = false;
    try {
      real = realpathSync(absolute);
    } catch (e) {
      // Does not exist (decided below), or the permission sandbox cannot see it at all.
      unreadable = e instanceof Deno.errors.NotCapable;
    }
    if (unreadable) {
      // A symlink elsewhere may still lead into an allowed root: the launcher, outside the sandbox, resolves it.
      real = await resolveThroughLauncher(absolute);
      unreadable = real === null;
    }
    const known = this.registry.projectContaining(real ?? resolve(absolute));
    if (known) return this.routeTo(known, false);
    if (!this.options.autoWorkspace) {
      throw new CruxeError(
        "workspace_not_registered",
        `Workspace ${absolute} is not registered. Register it with \`cruxe init --workspace ${absolute}\` ` +
          "(or start the server with --workspace PATH), or start it with --auto-workspace --allowed-root ROOT " +
          "to index workspaces on first use.",
        { workspace: absolute },
      );
    }
    if (unreadable) throw outsideSandbox(absolute);
    if (!real || !isWithinAnyRoot(this.options.allowedRoots, real)) {
      throw new CruxeError(
        "workspace_not_allowed",
        `Workspace ${absolute}${real && real !== absolute ? ` (resolves to ${real})` : ""} is outside every ` +
          `--allowed-root (${this.options.allowedRoots.join(", ")})${real ? "" : " or does not exist"}.`,
        { workspace: absolute, ...(real ? { resolved: real } : {}), allowed_roots: this.options.allowedRoots },
      );
    }
    let isDir = false;
    try {
      isDir = statSync(real).isDirectory();
    } catch { /* unreadable: not a directory for our purposes */ }
    if (!isDir) {
      throw new CruxeError("invalid_input", `Workspace ${real} is not a directory`, { workspace: real });
    }
    return await this.autoRegister(real);
  }

  /** Writes the `last_used_at` updates that were coalesced (at shutdown). */
  flush(): void {
    for (const [path, used] of this.recency) {
      if (used > (this.touched.get(path) ?? -Infinity)) this.registry.touchWorkspace(path);
    }
  }

  /** Marks a project busy for the duration of a call (a busy workspace is never evicted). */
  enter(projectId: string): () => void {
    this.inFlight.set(projectId, (this.inFlight.get(projectId) ?? 0) + 1);
    return () => {
      const n = (this.inFlight.get(projectId) ?? 1) - 1;
      if (n <= 0) this.inFlight.delete(projectId);
      else this.inFlight.set(projectId, n);
    };
  }

  /** The project a call without `workspace` goes to. */
  defaultProject(): ProjectRow {
    for (const w of this.options.startupWorkspaces) {
      const p = this.registry.projectContaining(w);
      if (p) return p;
    }
    const here = this.registry.projectContaining(this.options.cwd);
    if (here) return here;
    const recent = this.registry.listWorkspaces()[0];
    const p = recent ? this.registry.getProject(recent.project_id) : null;
    if (p) return p;
    throw new CruxeError(
      "project_not_found",
      "No workspace is registered. Pass `workspace`, start the server with --workspace PATH, or run `cruxe init`.",
      {},
    );
  }

  /** The registered project at or above a canonical path. */
  private routeTo(project: ProjectRow, bootstrapped: boolean): RoutedWorkspace {
    checkRootUnmoved(project.repo_root); // a root swapped for a symlink is not served until re-registered
    const now = performance.now();
    this.recency.set(project.repo_root, now);
    if (now - (this.touched.get(project.repo_root) ?? -Infinity) >= TOUCH_EVERY_MS) {
      this.touched.set(project.repo_root, now);
      this.registry.touchWorkspace(project.repo_root);
    }
    const ws = this.registry.getWorkspace(project.repo_root);
    // An auto-discovered workspace whose bootstrap never finished (restart, failure) bootstraps again.
    if (!bootstrapped && ws?.auto_discovered && !this.runner.activeFor(project.project_id)) {
      const view = this.readers.view(project);
      if (view.schemaStatus === "not_indexed") {
        this.runner.start(project, { mode: "full", force: false, joinExisting: true });
        bootstrapped = true;
      }
    }
    return { project, workspace: project.repo_root, bootstrapped };
  }

  /** Registers a new auto-discovered workspace (one at a time, so eviction counts stay right). */
  private autoRegister(real: string): Promise<RoutedWorkspace> {
    const run = this.registering.then(async () => {
      const again = this.registry.projectContaining(real);
      if (again) return this.routeTo(again, false);
      await this.evictFor(1);
      const project = this.runner.bootstrapWorkspace(real);
      this.touched.set(project.repo_root, performance.now());
      info(`auto-discovered workspace ${real}; bootstrap indexing started`);
      return this.routeTo(project, true);
    });
    this.registering = run.catch(() => {});
    return run;
  }

  /** Evicts least recently used auto-discovered workspaces until `room` more fit. */
  private async evictFor(room: number): Promise<void> {
    const max = this.options.maxAutoWorkspaces;
    const autos = this.registry.listWorkspaces().filter((w) => w.auto_discovered === 1);
    let excess = autos.length + room - max;
    if (excess <= 0) return;
    // Oldest first: workspaces not used by this process (by stored last_used_at), then by use in this process.
    const order = [...autos].sort((a, b) => {
      const ra = this.recency.get(a.path) ?? -Infinity;
      const rb = this.recency.get(b.path) ?? -Infinity;
      return ra !== rb ? ra - rb : a.last_used_at.localeCompare(b.last_used_at);
    });
    for (const w of order) {
      if (excess <= 0) break;
      if (this.inFlight.has(w.project_id)) continue;
      await this.evict(w.project_id, w.path);
      excess--;
    }
    if (excess > 0) {
      throw new CruxeError(
        "workspace_limit_exceeded",
        `${autos.length} auto-discovered workspaces are registered (--max-auto-workspaces ${max}) and none can be ` +
          "evicted now (all are serving requests). Retry later or raise --max-auto-workspaces.",
        { max_auto_workspaces: max },
      );
    }
  }

  /** Drops one workspace: cancels its job, closes its reader, deletes its store and registry rows. */
  async evict(projectId: string, path: string): Promise<void> {
    await this.runner.cancel(projectId);
    this.readers.invalidate(projectId);
    this.readers.invalidateRefs(projectId);
    this.hooks.onEvicted?.(projectId);
    try {
      Deno.removeSync(this.registry.projectDir(projectId), { recursive: true });
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) warn(`could not delete the store of ${path}: ${(e as Error).message}`);
    }
    this.registry.deleteProject(projectId);
    this.touched.delete(path);
    this.recency.delete(path);
    info(`evicted auto-discovered workspace ${path} (least recently used)`);
  }
}
