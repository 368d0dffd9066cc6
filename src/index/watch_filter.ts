/**
 * Which filesystem events matter to the index: the scan's own rules
 * (built-in skips, `.gitignore` files at every level, `.git/info/exclude`,
 * `.cruxeignore`) applied to an event's path, so a change the scan would never
 * see never starts a sync. Inside `.git` only `HEAD` and `refs/heads` (they
 * name the checked-out branch) and `index.lock` (git is rewriting the tree)
 * matter. Ignore files are read through the safe
 * open and cached per directory until an event touches them.
 * Requires `--allow-read` on the repository.
 */
import { builtinSkip, type IgnoreFile, IgnoreStack } from "./ignore_rules.ts";
import { cruxeIgnoreOf, ignoreFileAt } from "./scan.ts";

/** What an event on a path means for the index. */
export type PathVerdict =
  /** Nothing the scan would see. */
  | "ignored"
  /** The checked-out branch may have moved (`.git/HEAD`, `.git/refs/heads/...`). */
  | "head"
  /** An ignore file changed: the set of indexed files may change anywhere. */
  | "rules"
  /** `.git/index.lock` appeared or went: git is (or stopped) rewriting the tree (checkout, rebase, merge). */
  | "git-lock"
  /** A path the scan would see (a file, or a directory that may hold some). */
  | "change";

/** The ignore files a directory may hold. */
const IGNORE_FILES = new Set([".gitignore", ".cruxeignore"]);

/** Classifies repository-relative paths of filesystem events. */
export class WatchFilter {
  /** Per directory (repository-relative, "" for the root): its `.gitignore`, or null when it has none. */
  private perDir = new Map<string, IgnoreFile | null>();
  private base: IgnoreStack | null = null;
  private cruxeIgnore: IgnoreStack | null = null;

  constructor(readonly root: string) {}

  /** The verdict for one `/`-separated path relative to the root (`isDir`: it is a directory now). */
  classify(rel: string, isDir = false): PathVerdict {
    if (rel === "" || rel === ".") return "change";
    if (rel === ".git/info/exclude") {
      this.base = null;
      return "rules";
    }
    if (rel === ".git/index.lock") return "git-lock";
    if (rel === ".git" || rel.startsWith(".git/")) {
      return rel === ".git/HEAD" || rel.startsWith(".git/refs/heads/") ? "head" : "ignored";
    }
    const name = rel.slice(rel.lastIndexOf("/") + 1);
    if (IGNORE_FILES.has(name)) {
      this.forget(rel);
      return "rules";
    }
    // A path is skipped as a file (generated names) or as a directory (vendored trees, build output).
    if (builtinSkip(rel) || builtinSkip(rel + "/x")) return "ignored";
    if (this.cruxeIgnored(rel, isDir)) return "ignored";
    return this.gitIgnored(rel, isDir) ? "ignored" : "change";
  }

  /** Drops cached rules after an ignore file changed. */
  private forget(rel: string): void {
    if (rel.endsWith(".cruxeignore")) this.cruxeIgnore = null;
    else {
      const dir = rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "";
      this.perDir.delete(dir);
      this.base = null;
    }
  }

  private cruxeIgnored(rel: string, isDir: boolean): boolean {
    this.cruxeIgnore ??= cruxeIgnoreOf(this.root);
    return this.cruxeIgnore.ignored(rel, isDir);
  }

  /** True when a `.gitignore` on the way down (or `.git/info/exclude`) ignores the path or a directory above it. */
  private gitIgnored(rel: string, isDir: boolean): boolean {
    if (!this.base) {
      this.base = new IgnoreStack().with(ignoreFileAt(this.root, ".git/info/exclude", ""));
    }
    const parts = rel.split("/");
    let stack = this.base.with(this.dirRules(""));
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (stack.ignored(dir, true)) return true;
      stack = stack.with(this.dirRules(dir));
    }
    return stack.ignored(rel, isDir);
  }

  private dirRules(dir: string): IgnoreFile | null {
    if (!this.perDir.has(dir)) {
      this.perDir.set(dir, ignoreFileAt(this.root, dir ? `${dir}/.gitignore` : ".gitignore", dir));
    }
    return this.perDir.get(dir)!;
  }
}
