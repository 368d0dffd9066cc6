/**
 * Finding the files of a repository: `git ls-files` where git is there, else
 * a walker honouring `.gitignore`, `.git/info/exclude` and `.cruxeignore`;
 * then Cruxe's built-in skips. git runs only through `./git.ts`. Requires
 * `--allow-read` on the repository and `--allow-run=git` for git repositories.
 */
import { join } from "node:path";
import { builtinSkip, IgnoreFile, IgnoreStack } from "./ignore_rules.ts";
import { debug, warn } from "../core/log.ts";
import { readRepoFile, underSymlinkedDirectory } from "../io/safe_open.ts";
import { gitListFiles } from "../io/git.ts";
import { checkRootUnmoved } from "../io/workspace_dir.ts";

/** A file the scan found, with what `stat` said. */
export interface ScannedFile {
  path: string; // relative, `/`-separated
  size: number;
  mtimeMs: number;
}

/** Result of scanning a repository. */
export interface ScanResult {
  files: ScannedFile[];
  skipped: { ignored: number; tooLarge: number; symlinks: number; unreadable: number };
  vcs: "git" | "plain";
}

/** Largest ignore file read; a bigger one is treated as absent. */
const MAX_IGNORE_FILE_BYTES = 8 * 1024 * 1024;

/**
 * The text of an ignore file of the repository (`rel` from the root), read
 * through the safe open: missing, a FIFO, a link out or one over 8 MiB is null.
 */
export function readIgnoreText(root: string, rel: string): string | null {
  try {
    return new TextDecoder().decode(readRepoFile(root, rel, { maxBytes: MAX_IGNORE_FILE_BYTES }).bytes);
  } catch {
    return null;
  }
}

/** Warnings already given, so a file read again (by the watcher, the next scan) does not repeat them. */
const warned = new Set<string>();

/**
 * Warns once per rule about the lines of an ignore file that do not read as
 * intended (a malformed bracket, an unknown class), naming `origin` and the line.
 */
export function warnRuleProblems(file: IgnoreFile, origin: string): void {
  for (const p of file.problems) {
    const key = `${origin}:${p.line}:${p.pattern}`;
    if (warned.has(key)) continue;
    if (warned.size > 1000) warned.clear();
    warned.add(key);
    warn(`${origin} line ${p.line}: ignore rule ${JSON.stringify(p.pattern)}: ${p.message}`);
  }
}

/**
 * The ignore file at `rel` (from the root) as rules relative to the directory
 * `base`, or null when there is none (see `readIgnoreText`). Its malformed
 * rules are warned about, never thrown.
 */
export function ignoreFileAt(root: string, rel: string, base: string): IgnoreFile | null {
  const text = readIgnoreText(root, rel);
  if (text === null) return null;
  const file = new IgnoreFile(base, text);
  warnRuleProblems(file, join(root, rel));
  return file;
}

/**
 * Walks the tree (as deep as it goes: no depth limit but the platform's path
 * length), calling `onFile` for each file the ignore rules keep and
 * `onUnreadableDir` for a directory below the root that cannot be listed
 * (permission denied, a path too long to open).
 */
function walk(root: string, onFile: (rel: string) => void, onUnreadableDir: (rel: string, e: Error) => void): void {
  const base = new IgnoreStack().with(ignoreFileAt(root, ".git/info/exclude", ""));
  const visit = (dirRel: string, rules: IgnoreStack) => {
    const abs = dirRel ? join(root, dirRel) : root;
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(abs)];
    } catch (e) {
      if (dirRel) onUnreadableDir(dirRel, e as Error);
      return;
    }
    // Only a directory listing a `.gitignore` has one to read (most do not: no failed open per directory).
    const own = entries.some((e) => e.name === ".gitignore")
      ? ignoreFileAt(root, dirRel ? `${dirRel}/.gitignore` : ".gitignore", dirRel)
      : null;
    const local = rules.with(own);
    entries.sort((a, b) => a.name < b.name ? -1 : 1);
    for (const e of entries) {
      const rel = dirRel ? `${dirRel}/${e.name}` : e.name;
      if (e.isSymlink) {
        onFile(rel); // classified (and skipped) by the caller's lstat
        continue;
      }
      if (e.isDirectory) {
        if (e.name === ".git" || local.ignored(rel, true) || builtinSkip(rel + "/x")) continue;
        visit(rel, local);
      } else if (e.isFile && !local.ignored(rel, false)) {
        onFile(rel);
      }
    }
  };
  visit("", base);
}

/** What `statListed` shares across the paths of one scan. */
export interface StatContext {
  cruxeIgnore: IgnoreStack;
  /** Directories known to be (or not be) symlinks, by path. */
  symlinkedDirs: Map<string, boolean>;
  skipped: ScanResult["skipped"];
  maxFileBytes: number;
}

/** The `.cruxeignore` rules of `root` (empty when it has none). */
export function cruxeIgnoreOf(root: string): IgnoreStack {
  return new IgnoreStack().with(ignoreFileAt(root, ".cruxeignore", ""));
}

/**
 * The scan's verdict on one listed path: the file with its stat, or null
 * (counted in `ctx.skipped`) for a built-in skip or `.cruxeignore` match, a
 * symlink or a path below a symlinked directory, something unreadable or
 * missing (counted `unreadable`), not a regular file, or a file over the size limit.
 * `known`: the path's `lstat` when the caller has it already (null: it failed).
 */
export function statListed(
  root: string,
  rel: string,
  ctx: StatContext,
  known?: Deno.FileInfo | null,
): ScannedFile | null {
  const { skipped } = ctx;
  if (builtinSkip(rel) || ctx.cruxeIgnore.ignored(rel, false)) {
    skipped.ignored++;
    return null;
  }
  // git lists `h/.bashrc` still when the tracked directory `h` became a symlink: lstat alone would follow it.
  if (underSymlinkedDirectory(root, rel, ctx.symlinkedDirs)) {
    skipped.symlinks++;
    return null;
  }
  let st: Deno.FileInfo | null | undefined = known;
  if (st === undefined) {
    try {
      st = Deno.lstatSync(join(root, rel));
    } catch {
      st = null;
    }
  }
  if (st === null) {
    skipped.unreadable++;
    return null;
  }
  if (st.isSymlink) {
    skipped.symlinks++;
    return null;
  }
  if (!st.isFile) return null;
  if (st.size > ctx.maxFileBytes) {
    skipped.tooLarge++;
    return null;
  }
  return { path: rel, size: st.size, mtimeMs: st.mtime?.getTime() ?? 0 };
}

/**
 * Lists the indexable files of `root` with their size and mtime. Symlinks,
 * and files below a symlinked directory, are skipped and counted under
 * `symlinks`: their content may live anywhere. A registered root that now
 * resolves elsewhere, before the scan or by its end, is refused
 * (`forbidden`, see `checkRootUnmoved`): a root swapped while it was listed
 * would have listed its new target's names.
 */
export async function scanRepository(
  root: string,
  opts: { maxFileBytes: number; useGit?: boolean },
): Promise<ScanResult> {
  checkRootUnmoved(root);
  const skipped = { ignored: 0, tooLarge: 0, symlinks: 0, unreadable: 0 };
  const cruxeIgnore = cruxeIgnoreOf(root);
  // gitListFiles answers null outside a git work tree of this root, so it is also the check for one.
  let listed: string[] | null = opts.useGit === false ? null : await gitListFiles(root);
  const vcs = listed ? "git" : "plain";
  if (!listed) {
    listed = [];
    walk(root, (rel) => listed!.push(rel), (rel, e) => {
      skipped.unreadable++;
      debug(`scan ${root}: directory ${rel} skipped: ${e.message}`);
    });
  }
  const files: ScannedFile[] = [];
  const ctx: StatContext = { cruxeIgnore, symlinkedDirs: new Map(), skipped, maxFileBytes: opts.maxFileBytes };
  for (const rel of listed) {
    const f = statListed(root, rel, ctx);
    if (f) files.push(f);
  }
  checkRootUnmoved(root);
  debug(`scan ${root}: ${files.length} files (${vcs}), skipped ${JSON.stringify(skipped)}`);
  return { files, skipped, vcs };
}
