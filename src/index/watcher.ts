/**
 * Turning filesystem activity into "these paths changed": a `Deno.watchFs`
 * on exactly the directories the scan visits (`watchDirectories`: never
 * below a symlink, never into an ignored directory; one that cannot be read
 * is left out and named, the rest still watched), kept in step as
 * directories appear, whose events are filtered by the scan's rules (`WatchFilter`), reported one by one as they arrive (so a reader can
 * say "syncing" at once) and gathered into debounced batches (quiet 150 ms,
 * at most 2 s from a burst's first event, held while git's `index.lock`
 * exists), so a checkout of thousands of files is one batch. For trees where events cannot be had, `diffListings`
 * compares two stat-only scans instead.
 * Requires `--allow-read` on the repository.
 */
import { languageForPath } from "./languages/registry.ts";
import { textLanguageForPath } from "../core/languages.ts";
import type { ScannedFile } from "./scan.ts";
import { WatchFilter } from "./watch_filter.ts";
import {
  type ReadDir,
  type ReadDirAsync,
  watchDirectories,
  watchDirectoriesAsync,
  type WatchDirs,
} from "./watch_dirs.ts";
import { join } from "node:path";
import { warn } from "../core/log.ts";

/** Debounce bounds of a burst of events. */
export interface WatchTiming {
  /** Quiet time that ends a burst. */
  quietMs: number;
  /** Longest a burst is held before it is reported anyway. */
  maxMs: number;
}

/** Quiet 150 ms, at most 2 s. */
export const DEFAULT_WATCH_TIMING: WatchTiming = { quietMs: 150, maxMs: 2000 };

/**
 * Longest a batch is held while `.git/index.lock` exists (a checkout, rebase
 * or merge rewriting the tree), so that the whole operation is one sync; a
 * lock left behind by a crashed git stops holding after this.
 */
export const GIT_LOCK_HOLD_MS = 30_000;

/** One debounced batch of changes. */
export interface WatchBatch {
  /** Paths that exist now (created, modified, renamed to). */
  changed: string[];
  /** Paths that no longer exist (deleted, renamed from; a directory stands for what was under it). */
  deleted: string[];
  /** `.git/HEAD` or a branch ref moved: the ref label may have changed. */
  head: boolean;
  /** Events were lost (queue overflow) or ignore rules changed: only a full rescan knows what changed. */
  rescan: boolean;
  /**
   * A directory appeared (created, renamed in): files written into it before
   * its watch was added were not reported, so only a scan knows what it holds.
   */
  directory: boolean;
}

/** What a watcher reports. */
export interface WatchHooks {
  /** A relevant path changed (called as each event arrives, before the batch is due). */
  onChange(rel: string, exists: boolean): void;
  /** An event on a path the scan ignores was dropped. */
  onIgnored(): void;
  /** A debounced batch is ready. */
  onBatch(batch: WatchBatch): void;
  /** Watching stopped working (the caller falls back to polling). */
  onError(err: Error): void;
}

/** Fires `quietMs` after the last poke, and at most `maxMs` after the first poke of a burst. */
export class Debouncer {
  private first = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private quietMs: number, private maxMs: number, private fire: () => void) {}

  /** Notes activity: (re)arms the timer within the burst's bounds. */
  poke(): void {
    const now = performance.now();
    if (this.timer === null) this.first = now;
    else clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.quietMs, this.first + this.maxMs - now));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.fire();
    }, wait);
  }

  /** True while a burst waits to be reported. */
  get armed(): boolean {
    return this.timer !== null;
  }

  /** Reports a waiting burst now (a reader wants the answer). */
  flush(): void {
    if (this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.fire();
  }

  /** Drops a waiting burst. */
  cancel(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}

/**
 * A watch of one repository's directories. The constructor throws what
 * `Deno.watchFs` throws (the inotify watch limit, an unsupported file system)
 * and when the root cannot be read; a watch that fails later is reported
 * through `onError`.
 */
export class TreeWatcher {
  private fsw: Deno.FsWatcher;
  /** The watched directories, relative to the root. */
  private dirs: Set<string>;
  /** Directories that appeared since the watch was last brought up to date. */
  private newDirs = new Set<string>();
  /** The rules changed or events were lost: the next update walks the whole tree again. */
  private rewalk = false;
  /** Directories left out because they could not be read (the rest is watched), with why. */
  readonly unreadable = new Map<string, string>();
  private filter: WatchFilter;
  private debounce: Debouncer;
  private batch = new Map<string, boolean>();
  private head = false;
  private rescan = false;
  private directory = false;
  private closed = false;
  private prefix: string;
  /** When `.git/index.lock` appeared (git is rewriting the tree); null when it is not there. */
  private gitBusySince: number | null = null;
  /**
   * When an event on `.git/index.lock` was last seen. A quick checkout may
   * create and remove the lock before its events are read; either event says
   * git was just rewriting the tree, and the rest of its events may still be
   * on the way.
   */
  private gitLockSeenAt: number | null = null;
  /** Re-checks a batch held for git (see `emit`). */
  private holdTimer: ReturnType<typeof setTimeout> | null = null;
  private quietMs: number;

  constructor(
    readonly root: string,
    private hooks: WatchHooks,
    timing: WatchTiming = DEFAULT_WATCH_TIMING,
    private readDir?: ReadDir,
    walked?: { filter: WatchFilter; found: WatchDirs },
  ) {
    this.filter = walked?.filter ?? new WatchFilter(root);
    this.prefix = root.endsWith("/") ? root : root + "/";
    this.quietMs = timing.quietMs;
    this.debounce = new Debouncer(timing.quietMs, timing.maxMs, () => this.emit());
    const found = walked?.found ?? watchDirectories(root, this.filter, "", readDir);
    // The root itself unreadable: its own error, so the caller can tell a sandbox refusal from a failure.
    if (found.dirs[0] !== "") throw found.unreadable[0]?.error ?? new Error(`cannot read ${root}`);
    this.dirs = new Set(found.dirs);
    this.noteUnreadable(found);
    this.fsw = this.open();
    void this.loop(this.fsw);
  }

  /**
   * A watch like the constructor's whose walk of the tree lists directories
   * asynchronously, so a server goes on answering while a large tree's watch
   * starts. Rejects with what the constructor throws.
   */
  static async start(
    root: string,
    hooks: WatchHooks,
    timing: WatchTiming = DEFAULT_WATCH_TIMING,
    readDir?: ReadDirAsync,
  ): Promise<TreeWatcher> {
    const filter = new WatchFilter(root);
    const found = await watchDirectoriesAsync(root, filter, "", readDir);
    return new TreeWatcher(root, hooks, timing, undefined, { filter, found });
  }

  /** One watch on every directory of `dirs` (each on its own: a subdirectory is its own entry). */
  private open(): Deno.FsWatcher {
    return Deno.watchFs([...this.dirs].map((d) => d ? join(this.root, d) : this.root), { recursive: false });
  }

  private noteUnreadable(found: WatchDirs): void {
    for (const u of found.unreadable) {
      if (this.unreadable.has(u.path)) continue;
      this.unreadable.set(u.path, u.reason);
      warn(`not watching ${join(this.root, u.path)} (${u.reason}); the rest of ${this.root} is watched`);
    }
  }

  /**
   * Brings the watched set up to date before a batch is reported: new
   * directories (and what is below them) added, or the whole tree walked
   * again after the rules changed or events were lost. The new watch is up
   * before the old one closes, and the batch that follows makes a full scan,
   * so nothing written meanwhile is missed.
   */
  private refreshDirs(): void {
    if (!this.rewalk && !this.newDirs.size) return;
    let found: WatchDirs = { dirs: [...this.dirs], unreadable: [] };
    if (this.rewalk) found = watchDirectories(this.root, this.filter, "", this.readDir);
    else {
      for (const d of this.newDirs) {
        const f = watchDirectories(this.root, this.filter, d, this.readDir);
        found.dirs.push(...f.dirs);
        found.unreadable.push(...f.unreadable);
      }
    }
    this.rewalk = false;
    this.newDirs.clear();
    this.noteUnreadable(found);
    const next = new Set(found.dirs);
    if (next.size === this.dirs.size && [...next].every((d) => this.dirs.has(d))) return;
    const before = this.dirs;
    this.dirs = next;
    let fsw: Deno.FsWatcher;
    try {
      fsw = this.open();
    } catch {
      // A directory went away between the walk and the watch: walk once more.
      this.dirs = new Set(watchDirectories(this.root, this.filter, "", this.readDir).dirs);
      try {
        fsw = this.open();
      } catch (err) {
        this.dirs = before;
        this.close();
        this.hooks.onError(err instanceof Error ? err : new Error(String(err)));
        return;
      }
    }
    const old = this.fsw;
    this.fsw = fsw;
    void this.loop(fsw);
    try {
      old.close();
    } catch { /* already closed */ }
  }

  /** True while changes wait for the debounce, or for git to finish rewriting the tree. */
  get waiting(): boolean {
    return this.debounce.armed || this.holdTimer !== null;
  }

  /** Reports waiting changes now instead of at the end of the quiet period (not while git rewrites the tree). */
  flush(): void {
    if (this.holdTimer === null) this.debounce.flush();
  }

  /** Stops watching (idempotent). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.debounce.cancel();
    if (this.holdTimer !== null) clearTimeout(this.holdTimer);
    this.holdTimer = null;
    try {
      this.fsw.close();
    } catch { /* already closed */ }
  }

  private async loop(fsw: Deno.FsWatcher): Promise<void> {
    // A watch replaced by `refreshDirs` may still deliver what it had read; its end is no failure.
    try {
      for await (const e of fsw) this.onEvent(e);
    } catch (err) {
      if (!this.closed && fsw === this.fsw) {
        this.close();
        this.hooks.onError(err instanceof Error ? err : new Error(String(err)));
      }
      return;
    }
    if (!this.closed && fsw === this.fsw) {
      this.close();
      this.hooks.onError(new Error("the filesystem watch ended unexpectedly"));
    }
  }

  private onEvent(e: Deno.FsEvent): void {
    if (this.closed || e.kind === "access") return;
    let kept = false;
    if (e.flag === "rescan") {
      this.rescan = true;
      this.rewalk = true;
      kept = true;
    }
    for (const abs of e.paths) {
      const rel = this.relative(abs);
      if (rel === null) continue;
      const kind = lstatKind(abs);
      const verdict = this.filter.classify(rel, kind === "dir");
      if (verdict === "ignored") {
        this.hooks.onIgnored();
        continue;
      }
      kept = true;
      if (verdict === "git-lock") {
        this.gitBusySince = kind === "missing" ? null : (this.gitBusySince ?? performance.now());
        this.gitLockSeenAt = performance.now();
        continue;
      }
      if (verdict === "head") {
        this.head = true;
        if (kind === "dir" && !this.dirs.has(rel)) this.newDirs.add(rel); // a branch namespace (`refs/heads/feature`)
      } else if (verdict === "rules") this.rescan = this.rewalk = true;
      else {
        const exists = kind !== "missing";
        if (kind === "dir") {
          this.directory = true;
          if (!this.dirs.has(rel)) this.newDirs.add(rel);
        } else if (!exists && this.dirs.has(rel)) this.forgetDir(rel);
        this.batch.set(rel, exists);
        this.hooks.onChange(rel, exists);
      }
    }
    if (kept) this.debounce.poke();
  }

  /** A watched directory went away (its watch with it): it and what was below it leave the set. */
  private forgetDir(rel: string): void {
    for (const d of this.dirs) if (d === rel || d.startsWith(rel + "/")) this.dirs.delete(d);
  }

  private relative(abs: string): string | null {
    const p = Deno.build.os === "windows" ? abs.replaceAll("\\", "/") : abs;
    if (p === this.root) return "";
    const prefix = Deno.build.os === "windows" ? this.prefix.replaceAll("\\", "/") : this.prefix;
    return p.startsWith(prefix) ? p.slice(prefix.length) : null;
  }

  private emit(): void {
    if (this.closed) return;
    // git is rewriting the tree (or just was: its last events may still be on the way): hold the batch, and
    // look again a quiet period later (the lock going away ends it, or GIT_LOCK_HOLD_MS for one left behind).
    const now = performance.now();
    const busy = this.gitBusySince !== null && now - this.gitBusySince < GIT_LOCK_HOLD_MS;
    const settling = this.gitLockSeenAt !== null && now - this.gitLockSeenAt < this.quietMs;
    if (busy || settling) {
      this.holdTimer ??= setTimeout(() => {
        this.holdTimer = null;
        this.emit();
      }, this.quietMs);
      return;
    }
    if (!this.batch.size && !this.head && !this.rescan) return;
    this.refreshDirs();
    if (this.closed) return;
    const changed: string[] = [];
    const deleted: string[] = [];
    for (const [rel, exists] of this.batch) (exists ? changed : deleted).push(rel);
    const batch: WatchBatch = { changed, deleted, head: this.head, rescan: this.rescan, directory: this.directory };
    this.batch.clear();
    this.head = false;
    this.rescan = false;
    this.directory = false;
    this.hooks.onBatch(batch);
  }
}

function lstatKind(abs: string): "missing" | "dir" | "other" {
  try {
    return Deno.lstatSync(abs).isDirectory ? "dir" : "other";
  } catch {
    return "missing";
  }
}

/** (size, mtime) of each file the index would hold, by path: what polling compares. */
export type Listing = Map<string, string>;

/** True for paths with a language the index knows (the files whose changes polling reports). */
export function indexablePath(path: string): boolean {
  return languageForPath(path) !== undefined || textLanguageForPath(path) !== undefined;
}

/**
 * The listing of a stat-only scan: indexable files, plus the paths `known`
 * already holds (files indexed by their `#!` line have no telling extension).
 */
export function listingOf(files: Iterable<ScannedFile>, known?: Listing): Listing {
  const out: Listing = new Map();
  for (const f of files) {
    if (indexablePath(f.path) || known?.has(f.path)) out.set(f.path, `${f.size}:${f.mtimeMs}`);
  }
  return out;
}

/** The listing a published manifest describes. */
export function listingOfManifest(rows: Iterable<{ path: string; size: number; mtime_ms: number }>): Listing {
  const out: Listing = new Map();
  for (const r of rows) out.set(r.path, `${r.size}:${r.mtime_ms}`);
  return out;
}

/** What changed between two listings. */
export function diffListings(before: Listing, after: Listing): { changed: string[]; deleted: string[] } {
  const changed: string[] = [];
  const deleted: string[] = [];
  for (const [path, sig] of after) if (before.get(path) !== sig) changed.push(path);
  for (const path of before.keys()) if (!after.has(path)) deleted.push(path);
  return { changed, deleted };
}
