/**
 * Gitignore-style patterns (`.gitignore`, `.git/info/exclude`, `.cruxeignore`)
 * and Cruxe's built-in skips. Pure: callers read the files.
 */
import { languageIdForPath, textLanguageForPath } from "../core/languages.ts";
import { compileGlob, type Glob, globMatch } from "./glob_match.ts";

/** Directory names never descended into, at any depth. */
export const SKIP_DIRS = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  "bower_components",
  "vendor",
  "third_party",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".next",
  ".nuxt",
  ".gradle",
  ".idea",
  ".cruxe",
]);

/** Build-output directories skipped only at the repository root. */
export const SKIP_ROOT_DIRS = new Set(["dist", "build", "target", "out", "coverage", "obj"]);

/**
 * Root directories holding scripts as often as build output (`bin/django-admin.py`,
 * `bin/rails`): only their files with an extension Cruxe does not recognise
 * (`.dll`, `.pdb`, `.exe`) are skipped; binaries without one are skipped later as binary.
 */
export const MIXED_ROOT_DIRS = new Set(["bin"]);

/** True for a file name under a mixed root directory that is build output, not source. */
function buildOutputName(relPath: string): boolean {
  const base = relPath.slice(relPath.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 && !languageIdForPath(relPath) && !textLanguageForPath(relPath);
}

/**
 * File names of minified bundles, source maps and lock files. Generated source
 * (`.pb.go`, `_pb2.py`) is indexed and flagged `generated` instead, so its
 * symbols are found.
 */
const SKIP_FILE = /(\.min\.(js|css)|\.map|\.lock|-lock\.json|\.bundle\.js)$/;

/** True when a built-in rule skips this repository-relative path. */
export function builtinSkip(relPath: string): boolean {
  const parts = relPath.split("/");
  if (parts.length > 1 && SKIP_ROOT_DIRS.has(parts[0])) return true;
  if (parts.length > 1 && MIXED_ROOT_DIRS.has(parts[0]) && buildOutputName(relPath)) return true;
  for (let i = 0; i < parts.length - 1; i++) if (SKIP_DIRS.has(parts[i])) return true;
  return SKIP_FILE.test(parts[parts.length - 1]);
}

interface Rule {
  glob: Glob;
  negate: boolean;
  dirOnly: boolean;
  /** The line as written and its 1-based number, to name the rule that decided. */
  source: string;
  line: number;
}

/** The rule that decided a verdict: its text as written and its line in the file. */
export interface DecidingRule {
  pattern: string;
  line: number;
  ignored: boolean;
}

/**
 * Most pattern steps (automaton nodes, about one per character or wildcard)
 * the rules of one file may hold: every path is matched against all of them,
 * so this bounds the cost of a path. A few hundred ordinary rules use a few
 * thousand.
 */
const MAX_STEPS_PER_FILE = 20_000;

/** `line` without trailing whitespace, except one escaped by a backslash (`foo\ ` keeps its space). Linear. */
function trimTrailingSpace(line: string): string {
  let end = line.length;
  while (end > 0 && /\s/.test(line[end - 1])) end--;
  if (end < line.length && end > 0 && line[end - 1] === "\\") end++;
  return line.slice(0, end);
}

/** A line of an ignore file that does not read as intended (it matches less, or nothing). */
export interface RuleProblem {
  line: number;
  pattern: string;
  message: string;
}

/**
 * A set of ignore rules read from one file, relative to the directory `base`.
 * Matching is linear in the path's length for any rule (see `./glob_match.ts`);
 * a malformed rule never fails the file: it matches what git's would (often
 * nothing), and is listed in `problems`.
 */
export class IgnoreFile {
  private rules: Rule[] = [];
  /** Rules that do not read as intended, for a warning naming the file and line. */
  readonly problems: RuleProblem[] = [];
  constructor(readonly base: string, text: string) {
    const lines = text.split(/\r?\n/);
    let steps = 0;
    for (let n = 0; n < lines.length; n++) {
      let line = lines[n];
      const source = line.trim();
      if (!line || line.startsWith("#")) continue;
      line = trimTrailingSpace(line);
      if (!line) continue;
      let negate = false;
      if (line.startsWith("!")) {
        negate = true;
        line = line.slice(1);
      }
      let dirOnly = false;
      if (line.endsWith("/")) {
        dirOnly = true;
        line = line.slice(0, -1);
      }
      const anchored = line.includes("/") && !line.startsWith("**/") || line.startsWith("/");
      if (line.startsWith("/")) line = line.slice(1);
      const glob = compileGlob(line, anchored);
      for (const message of glob.problems) this.problems.push({ line: n + 1, pattern: source, message });
      if (!glob.viable) continue;
      steps += glob.nodes.length;
      if (steps > MAX_STEPS_PER_FILE) {
        const message = `this rule and the ones after it are not applied: the file's rules exceed ` +
          `${MAX_STEPS_PER_FILE} pattern steps, more than matching every path against them can afford`;
        this.problems.push({ line: n + 1, pattern: source, message });
        break;
      }
      this.rules.push({ glob, negate, dirOnly, source, line: n + 1 });
    }
  }

  /**
   * Verdict for `rel` (relative to `base`): true ignored, false re-included,
   * undefined no rule matched.
   */
  match(rel: string, isDir: boolean): boolean | undefined {
    return this.decidingRule(rel, isDir)?.ignored;
  }

  /** The last rule matching `rel` (the one whose verdict holds), or undefined. */
  decidingRule(rel: string, isDir: boolean): DecidingRule | undefined {
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const r = this.rules[i];
      const m = globMatch(r.glob, rel);
      if (m.under || (m.self && (!r.dirOnly || isDir))) return { pattern: r.source, line: r.line, ignored: !r.negate };
    }
    return undefined;
  }
}

/** A stack of ignore files; deeper files override shallower ones. */
export class IgnoreStack {
  constructor(private files: IgnoreFile[] = []) {}

  with(file: IgnoreFile | null): IgnoreStack {
    return file ? new IgnoreStack([...this.files, file]) : this;
  }

  /** True when `relPath` (relative to the repository root) is ignored. */
  ignored(relPath: string, isDir: boolean): boolean {
    let verdict: boolean | undefined;
    for (const f of this.files) {
      if (f.base && !relPath.startsWith(f.base + "/")) continue;
      const rel = f.base ? relPath.slice(f.base.length + 1) : relPath;
      const v = f.match(rel, isDir);
      if (v !== undefined) verdict = v;
    }
    return verdict ?? false;
  }
}
