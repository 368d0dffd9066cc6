/**
 * The workspace warmset: the most recently used workspaces (by
 * `known_workspaces.last_used_at`, capacity `warmsetCapacity`, default 3)
 * are prewarmed at startup: their index is opened and the index file is
 * read once so the OS page cache holds it (name lookups read the index file
 * itself; nothing is built in memory). `health` reports `warming` while this runs. `--no-prewarm` disables it.
 * Requires `--allow-read` on the Cruxe home.
 */
import { indexPath } from "../state/project_index.ts";
import type { ProjectRow, Registry, WorkspaceRow } from "../state/registry.ts";
import type { IndexReaders } from "../query/index_reader.ts";
import { debug, warn } from "../core/log.ts";

/** Warmset state as `health` shows it (`workspace_warmset`). */
export interface WarmsetStatus {
  enabled: boolean;
  capacity: number;
  members: string[];
  state: "disabled" | "pending" | "warming" | "ready";
  prewarm_ms: number | null;
}

/** Picks and prewarms the most recently used workspaces. */
export class Warmset {
  private members: ProjectRow[] = [];
  private state: WarmsetStatus["state"];
  private ms: number | null = null;

  constructor(
    private registry: Registry,
    private readers: IndexReaders,
    readonly capacity: number,
    readonly enabled: boolean,
    /** Which registered workspaces this server serves (only those are prewarmed); default: all. */
    private serves: (w: WorkspaceRow) => boolean = () => true,
  ) {
    this.state = enabled ? "pending" : "disabled";
    if (enabled) this.members = this.select();
  }

  /** The `capacity` most recently used registered projects this server serves, newest first. */
  select(): ProjectRow[] {
    const out: ProjectRow[] = [];
    const seen = new Set<string>();
    for (const w of this.registry.listWorkspaces()) {
      if (out.length >= this.capacity) break;
      if (seen.has(w.project_id) || !this.serves(w)) continue;
      const p = this.registry.getProject(w.project_id);
      if (!p) continue;
      seen.add(p.project_id);
      out.push(p);
    }
    return out;
  }

  /** True while prewarm has not finished. */
  get warming(): boolean {
    return this.state === "pending" || this.state === "warming";
  }

  status(): WarmsetStatus {
    return {
      enabled: this.enabled,
      capacity: this.capacity,
      members: this.members.map((m) => m.repo_root),
      state: this.state,
      prewarm_ms: this.ms,
    };
  }

  /** Prewarms every member; yields between steps so health and queries keep answering. */
  async run(): Promise<void> {
    if (!this.enabled) return;
    this.state = "warming";
    const t0 = performance.now();
    for (const p of this.members) {
      try {
        await this.warmOne(p);
      } catch (e) {
        warn(`prewarm of ${p.repo_root} failed: ${(e as Error).message}`);
      }
    }
    this.ms = Math.round(performance.now() - t0);
    this.state = "ready";
    debug(`warmset ready in ${this.ms} ms: ${this.members.map((m) => m.repo_root).join(", ")}`);
  }

  private async warmOne(p: ProjectRow): Promise<void> {
    const view = this.readers.view(p);
    if (!view.db || view.schemaStatus !== "compatible") return;
    await pageIn(indexPath(this.registry.projectDir(p.project_id)));
  }
}

/** Reads a file once, asynchronously, so its pages are in the OS cache when the first query comes. */
async function pageIn(path: string): Promise<void> {
  using f = await Deno.open(path, { read: true });
  const buf = new Uint8Array(1 << 20);
  while ((await f.read(buf)) !== null) { /* discard: only the cache matters */ }
}
