/**
 * Why a scan found nothing: which ignore rule, in which file, excluded the
 * repository's top-level entries. Only asked when a scan came back empty, so
 * it reads the root's ignore files again rather than slowing every scan.
 * Requires `--allow-read` on the repository.
 */
import { builtinSkip } from "./ignore_rules.ts";
import { ignoreFileAt } from "./scan.ts";

/** The rule that excluded most of the top-level entries of a repository. */
export interface ExclusionCause {
  /** `.gitignore`, `.git/info/exclude` or `.cruxeignore`; `built-in` for Cruxe's own skips. */
  file: string;
  line: number;
  pattern: string;
  /** Top-level entries this rule excluded, of `entries`. */
  excluded: number;
  entries: number;
}

/** Root ignore files in the order their verdicts apply (a later file overrides an earlier one). */
const ROOT_IGNORE_FILES = [".git/info/exclude", ".gitignore", ".cruxeignore"];

/**
 * The rule that excluded the most top-level entries of `root` (files and
 * directories other than `.git`), or null when nothing at the top level is
 * excluded by a rule.
 */
export function explainExclusion(root: string): ExclusionCause | null {
  const files = ROOT_IGNORE_FILES.map((f) => [f, ignoreFileAt(root, f, "")] as const);
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(root)].filter((e) => e.name !== ".git");
  } catch {
    return null;
  }
  const counts = new Map<string, ExclusionCause>();
  for (const e of entries) {
    let decided: Omit<ExclusionCause, "excluded" | "entries"> | null = null;
    let ignored = false;
    for (const [file, rules] of files) {
      const r = rules?.decidingRule(e.name, e.isDirectory);
      if (r) [decided, ignored] = [{ file, line: r.line, pattern: r.pattern }, r.ignored];
    }
    if (!ignored && builtinSkip(e.isDirectory ? `${e.name}/x` : e.name)) {
      [decided, ignored] = [{ file: "built-in", line: 0, pattern: e.name }, true];
    }
    if (!ignored || !decided) continue;
    const key = `${decided.file}:${decided.line}`;
    const c = counts.get(key) ?? { ...decided, excluded: 0, entries: entries.length };
    c.excluded++;
    counts.set(key, c);
  }
  return [...counts.values()].sort((a, b) => b.excluded - a.excluded)[0] ?? null;
}

/** A sentence naming the rule: `rule "/*" (.gitignore line 12) excludes 25 of 27 top-level entries`. */
export function describeExclusion(c: ExclusionCause): string {
  const where = c.file === "built-in" ? "a built-in skip" : `${c.file} line ${c.line}`;
  return `rule "${c.pattern}" (${where}) excludes ${c.excluded} of ${c.entries} top-level entries`;
}
