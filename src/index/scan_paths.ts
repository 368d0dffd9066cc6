/**
 * The scan of a few named paths instead of the whole tree: what a sync needs
 * when a watcher already said which paths changed. Each path gets the full
 * scan's verdict (ignore rules, built-in skips, symlinks, size limit); a path
 * that is now a directory cannot be judged alone (files may have appeared
 * below it before any watch saw them), so the caller scans the whole tree.
 * Requires `--allow-read` on the repository.
 */
import { join } from "node:path";
import { type ScannedFile, type ScanResult, type StatContext, statListed } from "./scan.ts";
import { IgnoreStack } from "./ignore_rules.ts";
import { WatchFilter } from "./watch_filter.ts";
import { checkRootUnmoved } from "../io/workspace_dir.ts";

/** What a scan of named paths found. */
interface PathScan {
  /** The named paths that are indexable files now, with their stat. */
  files: ScannedFile[];
  /**
   * The named paths that are not (deleted, ignored, a symlink, too large):
   * whatever the index holds at or below them is gone.
   */
  absent: string[];
  skipped: ScanResult["skipped"];
}

/**
 * Stats `paths` (repository-relative, `/`-separated) the way the full scan
 * would judge them, or null when one of them is a directory now (then only
 * a full scan knows what is below it). A root that now resolves elsewhere,
 * before or after the paths are looked at, is refused like the full scan's.
 */
export function scanPaths(root: string, paths: Iterable<string>, opts: { maxFileBytes: number }): PathScan | null {
  checkRootUnmoved(root);
  const skipped = { ignored: 0, tooLarge: 0, symlinks: 0, unreadable: 0 };
  // The watch filter applies `.cruxeignore` and the built-in skips (reading the file once) before `statListed`.
  const ctx: StatContext = {
    cruxeIgnore: new IgnoreStack(),
    symlinkedDirs: new Map(),
    skipped,
    maxFileBytes: opts.maxFileBytes,
  };
  const filter = new WatchFilter(root);
  const files: ScannedFile[] = [];
  const absent: string[] = [];
  for (const rel of new Set(paths)) {
    if (!rel || rel === "." || rel.startsWith("/") || rel.split("/").includes("..")) return null;
    let st: Deno.FileInfo | null = null;
    try {
      st = Deno.lstatSync(join(root, rel));
    } catch { /* missing: judged below */ }
    if (st?.isDirectory) return null;
    // `.gitignore` rules (which git ls-files applies in the full scan) at every level.
    const f = filter.classify(rel, false) === "change" ? statListed(root, rel, ctx, st) : null;
    if (f) files.push(f);
    else absent.push(rel);
  }
  checkRootUnmoved(root);
  return { files, absent, skipped };
}
