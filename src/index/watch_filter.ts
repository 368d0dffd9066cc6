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

/** Directories whose rules are kept at most (a tree's directories; events may name more). */
const MAX_KEPT_DIRECTORIES = 200_000;

/** The ignore files a directory may hold. */
const IGNORE_FILES = new Set([".gitignore", ".cruxeignore"]);

/** Classifies repository-relative paths of filesystem events. */
export class WatchFilter {
  /** Per directory (repository-relative, "" for the root): its `.gitignore`, or null when it has none. */
  private perDir = new Map<string, IgnoreFile | null>();
  private base: IgnoreStack | null = null;
  private cruxeIgnore: IgnoreStack | null = null;
  /** Per directory: the rules below it, or null when it is ignored (see `rulesBelow`). */
  private stacks = new Map<string, IgnoreStack | null>();

  constructor(readonly root: string) {}

  /** The verdict for one `/`-separated path relative to the root (`isDir`: it is a directory now). */
  classify(rel: string, isDir = false): PathVerdict {
    if (rel === "" || rel === ".") return "change";
    if (rel === ".git/info/exclude") {
      this.base = null;
      this.stacks.clear();
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
      this.stacks.clear();
    }
  }

  private cruxeIgnored(rel: string, isDir: boolean): boolean {
    this.cruxeIgnore ??= cruxeIgnoreOf(this.root);
    return this.cruxeIgnore.ignored(rel, isDir);
  }

  /** True when a `.gitignore` on the way down (or `.git/info/exclude`) ignores the path or a directory above it. */
  private gitIgnored(rel: string, isDir: boolean): boolean {
    const cut = rel.lastIndexOf("/");
    const above = this.rulesBelow(cut < 0 ? "" : rel.slice(0, cut));
    return above === null || above.ignored(rel, isDir);
  }

  /**
   * The rules that apply below directory `dir` (every `.gitignore` from the
   * root down to it), or null when `dir` or a directory above it is ignored.
   * Kept per directory, so a walk of the tree matches each directory once
   * instead of once per level below it.
   */
  private rulesBelow(dir: string): IgnoreStack | null {
    const known = this.stacks.get(dir);
    if (known !== undefined) return known;
    let rules: IgnoreStack | null;
    if (dir === "") {
      this.base ??= new IgnoreStack().with(ignoreFileAt(this.root, ".git/info/exclude", ""));
      rules = this.base.with(this.dirRules(""));
    } else {
      const cut = dir.lastIndexOf("/");
      const above = this.rulesBelow(cut < 0 ? "" : dir.slice(0, cut));
      rules = above === null || above.ignored(dir, true) ? null : above.with(this.dirRules(dir));
    }
    // Events in a tree the rules ignore (build output) may name many directories: the memory stays bounded.
    if (this.stacks.size >= MAX_KEPT_DIRECTORIES) this.stacks.clear();
    this.stacks.set(dir, rules);
    return rules;
  }

  private dirRules(dir: string): IgnoreFile | null {
    if (!this.perDir.has(dir)) {
      this.perDir.set(dir, ignoreFileAt(this.root, dir ? `${dir}/.gitignore` : ".gitignore", dir));
    }
    return this.perDir.get(dir)!;
  }
}
