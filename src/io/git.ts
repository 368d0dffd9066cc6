/**
 * Every git invocation Cruxe makes goes through this module, so that no git
 * call ever runs a program the repository (or a config file it includes)
 * chooses. Cruxe's permission sandbox can only allow or refuse running `git`;
 * it cannot restrict what git itself starts, so the rules live here.
 *
 * What is closed, and how:
 * - Config keys that name a program or a hook directory are overridden with
 *   `-c` on every call. Command-line `-c` is read after the system, global,
 *   repository and worktree files and after every file they include
 *   (`include.path`, `includeIf.*.path`), so an include chain cannot win:
 *   `core.fsmonitor=false` (a hook run by index-reading commands such as
 *   `ls-files`), `core.hooksPath=/dev/null` (no hook, whether in
 *   `.git/hooks` or a configured directory, can be found),
 *   `core.untrackedCache=false` (no index rewrite), `core.pager=cat`,
 *   `diff.external=`, `core.editor=:` and `sequence.editor=:` (`:` is git's
 *   "no editor"), `core.askPass=`, `credential.helper=` (an empty value
 *   resets the helper list) and `protocol.allow=never`.
 * - `--no-pager` overrides `pager.<cmd>`; `--no-replace-objects` ignores
 *   replacement refs.
 * - Transports (ssh, `ext::` and other remote helpers, lazy fetches of a
 *   partial clone, `core.sshCommand`, `core.gitProxy`, `remote.*.uploadpack`)
 *   are refused by `GIT_ALLOW_PROTOCOL` set to the empty list, which
 *   overrides every `protocol.<name>.allow` in config and is inherited by any
 *   git process git starts.
 * - Keys keyed by a name the repository picks (`filter.<driver>.clean`,
 *   `.smudge`, `.process`, `diff.<driver>.textconv`, `.command`,
 *   `merge.<driver>.driver`) cannot all be named with `-c`. They run only in
 *   commands that convert or compare content (checkout, add, diff, status,
 *   `cat-file --filters`/`--textconv`, merges); this module runs only
 *   `ls-files`, `ls-tree`, `cat-file --batch`/`--batch-check`, `rev-parse`,
 *   `for-each-ref`, `merge-base` and `--version` (`GIT_SUBCOMMANDS`), none
 *   of which does.
 *   A subcommand added here that reads content must pass its
 *   `--no-filters` / `--no-textconv` / `--no-ext-diff` options.
 * - Aliases: git never lets `alias.<name>` shadow a built-in command, and
 *   every subcommand used here is built in.
 * - The environment is not inherited (`clearEnv`): only `PATH` (to find git
 *   and its helpers), `HOME`/`XDG_CONFIG_HOME` (the user's own global config,
 *   which carries their global excludes file; its program keys are
 *   overridden like the repository's), `SYSTEMROOT`/`USERPROFILE` where
 *   present (Windows), `LC_ALL=C`, and git's own switches:
 *   `GIT_CONFIG_NOSYSTEM=1` (the system file is not ours to trust),
 *   `GIT_OPTIONAL_LOCKS=0` (reads never write `.git/index`),
 *   `GIT_TERMINAL_PROMPT=0`, `GIT_ASKPASS=` (empty: no askpass program),
 *   `GIT_EDITOR=:`/`GIT_SEQUENCE_EDITOR=:`, `GIT_ALLOW_PROTOCOL=` and
 *   `GIT_PROTOCOL_FROM_USER=0`. No
 *   inherited `GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`, `GIT_COMMON_DIR`,
 *   `GIT_OBJECT_DIRECTORY`, `GIT_ALTERNATE_OBJECT_DIRECTORIES`,
 *   `GIT_NAMESPACE`, `GIT_EXEC_PATH`, `GIT_CONFIG_PARAMETERS`,
 *   `GIT_CONFIG_COUNT`/`_KEY_n`/`_VALUE_n`, `GIT_EXTERNAL_DIFF`, `GIT_SSH*`,
 *   `GIT_TRACE*` or `LD_PRELOAD` can reach git. stdin is closed, except for
 *   `cat-file --batch`, which reads the object ids Cruxe writes to it.
 * - Which repository git reads is decided here, not discovered by git:
 *   every call passes `--git-dir` and `--work-tree` explicitly, so git never
 *   walks up to a parent repository and `core.worktree` cannot move the work
 *   tree. The git directory must belong to the root (`gitDirOf`): a `.git`
 *   directory inside it, or a `.git` file or symlink whose target is inside
 *   the root, is a linked worktree that points back to this root, or is a
 *   submodule's directory under `<P>/.git/modules/` of a repository `P`
 *   containing the root; a `commondir` must pass the same test. Anything
 *   else (a `.git` file naming some other repository) is not used: the root
 *   is scanned as a plain directory. Under the permission sandbox a target
 *   outside the readable roots cannot be checked and so is not used either.
 *   The objects and refs must be the repository's own too
 *   (`./git_own_store.ts`): an `objects/info/alternates` or
 *   `http-alternates` leading outside the git directory, or a symlink in
 *   `objects/`, means plain mode, with the reason (`gitRefusal`) shown by
 *   `doctor` and `index_status`; a ref read through a symlinked ref file, or
 *   resolving to a commit that is not in the repository's own object
 *   directory, is refused (`invalid_input`).
 *   Because discovery is not used, git's ownership check (`safe.directory`,
 *   which exists to stop exactly these config programs) does not apply: a
 *   repository owned by another user is listed like any other.
 * - Reading is bounded: a FIFO the repository names (a `.gitignore`,
 *   `info/exclude`, an included config file) would block git forever, so
 *   `ls-files` is killed after `GIT_TIMEOUT_MS` and the caller walks the
 *   directory instead; every other call is killed after the same time
 *   (`cat-file --batch` after that long without output). The branch label is read from `HEAD` and the refs
 *   directly (regular files only), so registering a workspace, which happens
 *   on the serving thread, runs no git at all.
 *
 * Requires `--allow-run=git`, `--allow-read` on the root (and on a linked
 * worktree's git directory to use git mode there) and `--allow-env` for the
 * variables passed on.
 */
import { isAbsolute, join, resolve, sep } from "node:path";
import { isWithinRoot } from "../core/path_policy.ts";
import { CruxeError } from "../core/errors.ts";
import { debug, warn } from "../core/log.ts";
import { hasOwnObject, looseObjectLink, objectStoreProblem, readRefFile, refFileProblem } from "./git_own_store.ts";
import { realpathOrNull } from "./workspace_dir.ts";

/**
 * The only git subcommands Cruxe runs on a repository it indexes (none of them runs filters, textconv or diff
 * drivers; `gitFetchCopy` runs `init` and `fetch` on a team worker's own copy of a remote): `cat-file` is run
 * only as `--batch`/`--batch-check` (raw objects; never `--filters` or `--textconv`), `ls-tree`, `rev-parse` and
 * `for-each-ref` and `merge-base` read objects and refs only.
 */
export const GIT_SUBCOMMANDS = ["ls-files", "ls-tree", "cat-file", "rev-parse", "for-each-ref", "merge-base"] as const;
type GitSubcommand = typeof GIT_SUBCOMMANDS[number];

/** Config overrides passed with `-c` on every call (see the module comment for why each). */
export const GIT_CONFIG_OVERRIDES: readonly string[] = [
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.untrackedCache=false",
  "core.pager=cat",
  "diff.external=",
  "core.editor=:",
  "sequence.editor=:",
  "core.askPass=",
  "credential.helper=",
  "protocol.allow=never",
];

/** A repository git may be run on: its work tree and the git directory checked to belong to it. */
export interface GitRepo {
  root: string;
  gitDir: string;
}

/** The environment every git call gets (nothing else is inherited). */
export function gitEnv(): Record<string, string> {
  const env: Record<string, string> = {
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "",
    GIT_EDITOR: ":",
    GIT_SEQUENCE_EDITOR: ":",
    GIT_ALLOW_PROTOCOL: "",
    GIT_PROTOCOL_FROM_USER: "0",
  };
  for (const k of ["PATH", "HOME", "XDG_CONFIG_HOME", "SYSTEMROOT", "USERPROFILE"]) {
    let v: string | undefined;
    try {
      v = Deno.env.get(k);
    } catch { /* no env permission: git runs with its defaults */ }
    if (v) env[k] = v;
  }
  return env;
}

/**
 * The argument list for running `sub args…` on `repo`: the global options
 * and `-c` overrides first, then the subcommand. Exposed so tests can run
 * git exactly as Cruxe does.
 *
 * @example gitArgs({ root: "/r", gitDir: "/r/.git" }, "ls-files", ["-z"])
 */
export function gitArgs(repo: GitRepo, sub: GitSubcommand, args: string[]): string[] {
  const out = ["-C", repo.root, "--no-pager", "--no-replace-objects"];
  for (const c of GIT_CONFIG_OVERRIDES) out.push("-c", c);
  out.push(`--git-dir=${repo.gitDir}`, `--work-tree=${repo.root}`, sub, ...args);
  return out;
}

/** How long one git call may run before it is killed (see `gitListFiles`). */
export const GIT_TIMEOUT_MS = 60_000;

function gitCommand(args: string[], signal?: AbortSignal, stdin: "null" | "piped" = "null"): Deno.Command {
  return new Deno.Command("git", {
    args,
    env: gitEnv(),
    clearEnv: true,
    stdin,
    stdout: "piped",
    stderr: "null",
    signal,
  });
}

/** Runs git; its stdout on success, null when it failed, could not start, or ran past `timeoutMs` (then killed). */
async function spawnGitAsync(args: string[], timeoutMs: number): Promise<Uint8Array | null> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const out = await gitCommand(args, abort.signal).output();
    return out.success ? out.stdout : null;
  } catch {
    return null; // git missing or not permitted: callers fall back to plain scanning
  } finally {
    clearTimeout(timer);
    if (abort.signal.aborted) warn(`git did not finish within ${timeoutMs} ms and was stopped (${args.join(" ")})`);
  }
}

/** How long one fetch of a remote may run. */
const FETCH_TIMEOUT_MS = 15 * 60_000;

/**
 * Creates (when `fresh`) and updates the copy at `dir` of the remote `url`:
 * every branch and tag fetched to the same name, ones deleted upstream
 * removed, nothing checked out. The one git call that reaches the network:
 * it keeps every override of this module and allows only `protocol` (the
 * URL's own; `GIT_ALLOW_PROTOCOL` and `protocol.<name>.allow`), and a fetch
 * runs no hook, filter or submodule. Null when it worked, else git's last
 * lines of error. Requires `--allow-run=git` and write access to `dir`.
 */
export async function gitFetchCopy(url: string, dir: string, protocol: string, fresh: boolean): Promise<string | null> {
  const base = ["--no-pager", "--no-replace-objects", ...GIT_CONFIG_OVERRIDES.flatMap((c) => ["-c", c])];
  const allow = ["-c", `protocol.${protocol}.allow=always`];
  const fetch = [
    `--git-dir=${dir}/.git`,
    "fetch",
    "--quiet",
    "--prune",
    "--no-tags",
    "--update-head-ok",
    "--no-recurse-submodules",
    "--",
    url,
    "+refs/heads/*:refs/heads/*",
    "+refs/tags/*:refs/tags/*",
  ];
  for (const args of fresh ? [["init", "-q", dir], fetch] : [fetch]) {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), FETCH_TIMEOUT_MS);
    try {
      const out = await new Deno.Command("git", {
        args: [...base, ...allow, ...args],
        env: { ...gitEnv(), GIT_ALLOW_PROTOCOL: protocol },
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "piped",
        signal: abort.signal,
      }).output();
      if (!out.success) {
        return new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" ") || "no message";
      }
    } catch (e) {
      return (e as Error).message;
    } finally {
      clearTimeout(timer);
    }
  }
  return null;
}

/** `git --version`'s line, or null when git cannot be run. Requires `--allow-run=git`. */
export function gitVersion(): string | null {
  try {
    const out = gitCommand(["--version"]).outputSync();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : null;
  } catch {
    return null;
  }
}

/**
 * A small regular file's text, or null. Anything else (a FIFO would block the
 * read forever, a device could be endless) is not read.
 */
function readTextOrNull(p: string): string | null {
  try {
    const st = Deno.statSync(p);
    if (!st.isFile || st.size > 64 * 1024) return null;
    return Deno.readTextFileSync(p);
  } catch {
    return null;
  }
}

/** True when `gitDir` is a linked worktree's directory whose `gitdir` file points back at `<root>/.git`. */
function isWorktreeOf(gitDir: string, root: string): boolean {
  const back = readTextOrNull(join(gitDir, "gitdir"))?.trim();
  if (!back || readTextOrNull(join(gitDir, "commondir")) === null) return false;
  const target = realpathOrNull(isAbsolute(back) ? back : resolve(gitDir, back));
  return target !== null && target === realpathOrNull(join(root, ".git"));
}

/** True when `gitDir` lies under `<P>/.git/modules/` for a directory `P` (not `/`) containing `root`. */
function isSubmoduleDirOf(gitDir: string, root: string): boolean {
  const marker = `${sep}.git${sep}modules${sep}`;
  for (let i = gitDir.indexOf(marker); i > 0; i = gitDir.indexOf(marker, i + 1)) {
    if (isWithinRoot(gitDir.slice(0, i), root)) return true;
  }
  return false;
}

/** What `inspectGitDir` found: the git directory to use, or why the one there is not used (both null: no `.git`). */
interface GitDirVerdict {
  gitDir: string | null;
  refused: string | null;
}

function refuse(why: string): GitDirVerdict {
  debug(`git: ${why}; scanning without git`);
  return { gitDir: null, refused: why };
}

/** Decides which git directory of canonical `root` is used (see the module comment and `gitDirOf`). */
function inspectGitDir(root: string): GitDirVerdict {
  const dotGit = join(root, ".git");
  let st: Deno.FileInfo;
  try {
    st = Deno.lstatSync(dotGit);
  } catch {
    return { gitDir: null, refused: null };
  }
  let gitDir: string | null;
  let inside: boolean;
  if (st.isDirectory) {
    gitDir = dotGit;
    inside = true;
  } else {
    // A `.git` file (`gitdir: <path>`, relative to the root) or a symlink: where it leads decides.
    const text = st.isFile ? readTextOrNull(dotGit) : null;
    const m = text?.match(/^gitdir:\s*(.+?)\s*$/m);
    const target = st.isSymlink ? dotGit : m ? (isAbsolute(m[1]) ? m[1] : resolve(root, m[1])) : null;
    gitDir = target ? realpathOrNull(target) : null;
    if (!gitDir) return { gitDir: null, refused: null };
    inside = isWithinRoot(root, gitDir);
    if (!inside && !isWorktreeOf(gitDir, root) && !isSubmoduleDirOf(gitDir, root)) {
      return refuse(`${dotGit} leads to ${gitDir}, which does not belong to ${root}`);
    }
  }
  // `commondir` moves config, refs and objects: it must satisfy the same rule (a worktree's is its main repository).
  const common = readTextOrNull(join(gitDir, "commondir"))?.trim();
  if (common) {
    const real = realpathOrNull(isAbsolute(common) ? common : resolve(gitDir, common));
    const ok = real !== null && (isWithinRoot(root, real) || (!inside && isWorktreeOf(gitDir, root)) ||
      isSubmoduleDirOf(real, root));
    if (!ok) return refuse(`${gitDir}/commondir leads outside ${root}`);
  }
  // The objects must be the repository's own: no alternates, no symlinks into another object store.
  const borrowed = objectStoreProblem(commonDirOf(gitDir));
  if (borrowed) return refuse(`the objects are not all its own (${borrowed})`);
  return { gitDir, refused: null };
}

/**
 * The git directory of canonical `root` when it belongs to that root and
 * its objects are its own (see the module comment), else null. Requires
 * `--allow-read` on the root and on the git directory.
 */
export function gitDirOf(root: string): string | null {
  return inspectGitDir(root).gitDir;
}

/**
 * Why canonical `root` has a `.git` that git mode does not use (it leads
 * elsewhere, or borrows another repository's objects), or null (git mode,
 * or no `.git` at all). Shown by `doctor` and `index_status`. Runs no git.
 */
export function gitRefusal(root: string): string | null {
  return inspectGitDir(root).refused;
}

/** The directory holding refs and config: `commondir`'s target for a linked worktree, else the git directory. */
function commonDirOf(gitDir: string): string {
  const common = readTextOrNull(join(gitDir, "commondir"))?.trim();
  return common ? resolve(gitDir, common) : gitDir;
}

/**
 * The canonical directory holding the objects and refs of the repository at
 * `root` (a linked worktree's main `.git`), or null outside git: worktrees of
 * one repository have the same. Runs no git.
 */
export function gitCommonDir(root: string): string | null {
  const gitDir = gitDirOf(root);
  return gitDir ? realpathOrNull(commonDirOf(gitDir)) : null;
}

/** True when branch `ref` (`refs/heads/…`) has a commit: a loose ref file or a `packed-refs` line. */
function refExists(gitDir: string, ref: string): boolean {
  const common = commonDirOf(gitDir);
  if (readRefFile(common, ref)?.trim()) return true;
  const packed = readRefFile(common, "packed-refs") ?? "";
  return packed.split("\n").some((l) => l.endsWith(` ${ref}`));
}

/**
 * True when `root` is a git work tree Cruxe will run git on: a git directory
 * that belongs to it (see `gitDirOf`) with a readable `HEAD`. Runs no git.
 * Requires `--allow-read` on the root and its git directory.
 */
export function hasGit(root: string): boolean {
  return repoOf(root) !== null;
}

const COMMIT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** True for a full commit (or object) id: 40 hex digits (SHA-1) or 64 (SHA-256). */
export function isCommitId(s: string): boolean {
  return COMMIT_ID.test(s);
}

/**
 * The current branch (or the commit's first 7 hex digits when detached);
 * null outside git and on a branch without commits. Read from the git
 * directory's `HEAD` and refs, so it runs no git (and can be called on the
 * serving thread). Requires `--allow-read` on the root and its git directory.
 */
export function currentRef(root: string): string | null {
  const gitDir = gitDirOf(root);
  const head = gitDir ? readRefFile(gitDir, "HEAD")?.trim() : null;
  if (!gitDir || !head) return null;
  const sym = head.match(/^ref:\s*(refs\/\S+)$/);
  if (sym) {
    if (!refExists(gitDir, sym[1])) return null;
    return sym[1].startsWith("refs/heads/") ? sym[1].slice("refs/heads/".length) : sym[1];
  }
  return isCommitId(head) ? head.slice(0, 7) : null;
}

/** The ref an index of `root` is labelled with: the branch, or `live` outside git. */
export function refFor(root: string, vcs: "git" | "plain"): string {
  return vcs === "git" ? currentRef(root) ?? "live" : "live";
}

/**
 * Tracked and untracked-but-not-ignored files of `root` (relative,
 * `/`-separated, deduplicated), or null when git cannot list them within
 * `timeoutMs` (the caller walks the directory instead). The time bound
 * matters: a FIFO named by the repository (a `.gitignore`, `info/exclude`,
 * an included config file) blocks git forever. Requires `--allow-read` on
 * the root and `--allow-run=git`.
 */
export async function gitListFiles(root: string, timeoutMs = GIT_TIMEOUT_MS): Promise<string[] | null> {
  const repo = repoOf(root);
  if (!repo) return null;
  const args = gitArgs(repo, "ls-files", ["-z", "--cached", "--others", "--exclude-standard"]);
  const out = await spawnGitAsync(args, timeoutMs);
  if (!out) return null;
  return [...new Set(new TextDecoder().decode(out).split("\0").filter(Boolean))];
}

/** What `gitMergeBase` found: the commit id, or why there is none. */
export type MergeBaseResult = { commit: string } | { problem: string };

/**
 * The best common ancestor of revisions `a` and `b` (`git merge-base`) in
 * the repository at canonical `root`, or the reason there is none (not a git
 * work tree, an unknown revision, unrelated histories, git missing or past
 * `timeoutMs`). Both revisions must pass `isSafeRevision` (callers check
 * first; a refused one is a problem here too). `merge-base` reads commits
 * only: no content, so no filter or diff driver can run. Requires
 * `--allow-read` on the root and `--allow-run=git`.
 */
export async function gitMergeBase(
  root: string,
  a: string,
  b: string,
  timeoutMs = GIT_TIMEOUT_MS,
): Promise<MergeBaseResult> {
  for (const rev of [a, b]) {
    if (!isSafeRevision(rev)) return { problem: `refused revision ${JSON.stringify(rev.slice(0, 100))}` };
  }
  const repo = repoOf(root);
  if (!repo) return { problem: `${root} is not a git work tree` };
  const out = await spawnGitAsync(gitArgs(repo, "merge-base", ["--end-of-options", a, b]), timeoutMs);
  const commit = out ? new TextDecoder().decode(out).trim() : "";
  if (isCommitId(commit) && !hasOwnObject(commonDirOf(repo.gitDir), commit)) {
    return { problem: `the common ancestor ${commit} is not in the repository's own object directory` };
  }
  if (!isCommitId(commit)) {
    return {
      problem: `git merge-base found no common ancestor of ${a} and ${b} (unknown revision or unrelated histories)`,
    };
  }
  return { commit };
}

/** Where a ref-reading call runs: the repository of `root`, or null when `root` has no usable git directory. */
function repoOf(root: string): GitRepo | null {
  const gitDir = gitDirOf(root);
  return gitDir && readRefFile(gitDir, "HEAD") !== null ? { root, gitDir } : null;
}

/** Longest ref name accepted. */
const MAX_REF_CHARS = 256;

/**
 * The one rule for ref names Cruxe passes to git (branch, tag, remote
 * branch, commit id, `HEAD~2`, `main^`): letters, digits and `/._-@{}~^`
 * only, not starting with `-` (git would read an option), no `..` (a range)
 * and at most 256 characters; whitespace, `:` (a path), globs, backslashes
 * and control characters are refused. Names are also passed after
 * `--end-of-options`.
 */
export function isSafeRevision(rev: string): boolean {
  return rev.length > 0 && rev.length <= MAX_REF_CHARS && !rev.startsWith("-") && !rev.includes("..") &&
    /^[A-Za-z0-9/._@{}~^-]+$/.test(rev);
}

/** Refuses (`invalid_input`, naming `field`) a ref name that breaks `isSafeRevision`'s rule. */
export function checkRefName(ref: string, field = "ref"): void {
  if (!isSafeRevision(ref)) {
    throw new CruxeError(
      "invalid_input",
      `${field} ${JSON.stringify(ref.slice(0, 80))} is not a ref name: use a branch, tag, remote branch or commit id ` +
        "(letters, digits and / . _ - @ { } ~ ^; not starting with - and without ..)",
      { field, ref: ref.slice(0, MAX_REF_CHARS) },
    );
  }
}

/** What a ref names: a branch, a tag, a remote branch, or a bare commit (an id or an expression such as `HEAD~1`). */
export type RefKind = "branch" | "tag" | "remote" | "commit";

/** One ref of the repository (`for-each-ref`). */
export interface GitRefEntry {
  /** Full name (`refs/heads/main`). */
  name: string;
  /** Short name (`main`, `v1.0`, `origin/main`). */
  short: string;
  kind: Exclude<RefKind, "commit">;
  /** The commit it points to (a tag's target commit). */
  commit: string;
}

const REF_PREFIXES: [string, GitRefEntry["kind"]][] = [
  ["refs/heads/", "branch"],
  ["refs/tags/", "tag"],
  ["refs/remotes/", "remote"],
];

/**
 * The branches, tags and remote branches of the repository at `root` with
 * their commits; null outside git or when git fails. Requires
 * `--allow-run=git` and `--allow-read` on the root.
 */
export async function gitListRefs(root: string): Promise<GitRefEntry[] | null> {
  const repo = repoOf(root);
  if (!repo) return null;
  const fmt = "%(refname)%00%(objecttype)%00%(objectname)%00%(*objecttype)%00%(*objectname)";
  const out = await spawnGitAsync(
    gitArgs(repo, "for-each-ref", [`--format=${fmt}`, "refs/heads", "refs/tags", "refs/remotes"]),
    GIT_TIMEOUT_MS,
  );
  if (!out) return null;
  const common = commonDirOf(repo.gitDir);
  const refs: GitRefEntry[] = [];
  for (const line of new TextDecoder().decode(out).split("\n")) {
    const [name, type, id, peeledType, peeled] = line.split("\0");
    const prefix = REF_PREFIXES.find(([p]) => name?.startsWith(p));
    if (!prefix || name.endsWith("/HEAD")) continue;
    const commit = type === "commit" ? id : peeledType === "commit" ? peeled : null;
    // A ref read through a symlink, or naming a commit borrowed from elsewhere, is not one of this repository's.
    if (!commit || refFileProblem(repo.gitDir, common, name) || !hasOwnObject(common, commit)) continue;
    refs.push({ name, short: name.slice(prefix[0].length), kind: prefix[1], commit });
  }
  return refs;
}

/** A ref resolved to its commit. */
export interface ResolvedRef {
  /** The name as asked. */
  ref: string;
  commit: string;
  kind: RefKind;
}

/**
 * Resolves `ref` (checked by `checkRefName`) to a commit id with
 * `rev-parse --verify <ref>^{commit}`; null when the repository has no such
 * commit (or no git). The kind comes from which ref namespace holds the
 * name (branch before tag before remote), read from the ref files.
 */
export async function gitResolveRef(root: string, ref: string): Promise<ResolvedRef | null> {
  const commit = await gitResolveCommit(root, ref);
  const repo = repoOf(root);
  if (!commit || !repo) return null;
  // The kind from the ref files themselves: no second git run.
  const kind = REF_PREFIXES.find(([prefix]) => refExists(repo.gitDir, prefix + ref))?.[1] ??
    REF_PREFIXES.find(([prefix]) => ref.startsWith(prefix) && refExists(repo.gitDir, ref))?.[1] ?? "commit";
  return { ref, commit, kind };
}

/** The commit id `ref` (checked by `checkRefName`) names, or null (see `gitResolveRef`); one git call. */
export async function gitResolveCommit(root: string, ref: string): Promise<string | null> {
  checkRefName(ref);
  const repo = repoOf(root);
  if (!repo) return null;
  const common = commonDirOf(repo.gitDir);
  const linked = refFileProblem(repo.gitDir, common, ref) ?? looseObjectLink(common);
  if (linked) refuseRef(ref, root, `its ref or objects are not the repository's own (${linked})`);
  const out = await spawnGitAsync(
    gitArgs(repo, "rev-parse", ["--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]),
    GIT_TIMEOUT_MS,
  );
  const commit = out ? new TextDecoder().decode(out).trim() : "";
  if (!isCommitId(commit)) return null;
  if (!hasOwnObject(common, commit)) {
    refuseRef(ref, root, `it names commit ${commit}, which is not in the repository's own object directory`);
  }
  return commit;
}

/** Refuses (`invalid_input`) ref `ref` of `root` for the reason `why`. */
function refuseRef(ref: string, root: string, why: string): never {
  throw new CruxeError("invalid_input", `Ref ${ref} of ${root} is refused: ${why}.`, {
    field: "ref",
    ref,
    reason: why,
  });
}

/** One entry of a commit's tree (`ls-tree -r`). */
export interface TreeEntry {
  /** `100644`, `100755`, `120000` (symlink), `160000` (submodule gitlink). */
  mode: string;
  type: "blob" | "commit" | "tree";
  oid: string;
  /** Relative, `/`-separated. */
  path: string;
}

/**
 * Every entry of `commit`'s whole tree (`ls-tree -r -z --full-tree`; without
 * `-l`, which would open every blob for its size: `gitBlobSizes` asks for
 * the sizes of the blobs that will be read),
 * or null when git cannot list it. `commit` must be a full commit id.
 * Paths that could not name a file inside the root (empty, `.`, `..` or
 * `.git` components, a backslash, bytes that are not UTF-8) are left out:
 * git refuses to check them out, so they are never part of a working tree.
 */
export async function gitListTree(root: string, commit: string): Promise<TreeEntry[] | null> {
  if (!isCommitId(commit)) return null;
  const repo = repoOf(root);
  if (!repo) return null;
  const out = await spawnGitAsync(
    gitArgs(repo, "ls-tree", ["-r", "-z", "--full-tree", "--end-of-options", commit]),
    GIT_TIMEOUT_MS,
  );
  if (!out) return null;
  const entries: TreeEntry[] = [];
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  let start = 0;
  for (let i = out.indexOf(0); i >= 0; start = i + 1, i = out.indexOf(0, start)) {
    const tab = out.indexOf(0x09, start);
    if (tab < 0 || tab > i) continue;
    const [mode, type, oid] = new TextDecoder().decode(out.subarray(start, tab)).split(" ");
    let path: string;
    try {
      path = utf8.decode(out.subarray(tab + 1, i));
    } catch {
      continue;
    }
    if (!safeTreePath(path) || (type !== "blob" && type !== "commit")) continue;
    entries.push({ mode, type, oid, path });
  }
  return entries;
}

/** True when a tree path names a file inside the root (see `gitListTree`). */
function safeTreePath(path: string): boolean {
  if (!path || path.startsWith("/") || path.includes("\\")) return false;
  return path.split("/").every((c) => c !== "" && c !== "." && c !== ".." && c.toLowerCase() !== ".git");
}

/**
 * Starts `git cat-file <mode>` on `repo` and writes `oids` to it, one per
 * line, while the caller reads its answers (which would fill the pipe before
 * the questions were all written). `writing` never rejects: git ending early
 * shows in its output and status.
 */
function catFileBatch(
  repo: GitRepo,
  mode: "--batch" | "--batch-check",
  oids: readonly string[],
  signal: AbortSignal,
): { child: Deno.ChildProcess; writing: Promise<void> } {
  const child = gitCommand(gitArgs(repo, "cat-file", [mode]), signal, "piped").spawn();
  const writing = (async () => {
    const w = child.stdin.getWriter();
    try {
      await w.write(new TextEncoder().encode(oids.join("\n") + "\n"));
      await w.close();
    } catch { /* git ended early: the reader sees it */ }
  })();
  return { child, writing };
}

/**
 * The size of each blob of `oids` (one `cat-file --batch-check`: object
 * headers only, no content), or null when git failed or did not finish
 * within `GIT_TIMEOUT_MS` (then it is killed). A missing id has no entry.
 */
export async function gitBlobSizes(root: string, oids: readonly string[]): Promise<Map<string, number> | null> {
  const repo = repoOf(root);
  if (!repo || oids.some((o) => !isCommitId(o))) return null;
  if (!oids.length) return new Map();
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), GIT_TIMEOUT_MS);
  try {
    const { child, writing } = catFileBatch(repo, "--batch-check", oids, abort.signal);
    const out = await child.output();
    await writing;
    if (!out.success) return null;
    const sizes = new Map<string, number>();
    for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
      const [oid, type, size] = line.split(" ");
      if (type === "blob") sizes.set(oid, Number(size));
    }
    return sizes;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
    if (abort.signal.aborted) {
      warn(`git cat-file --batch-check did not finish within ${GIT_TIMEOUT_MS} ms and was stopped`);
    }
  }
}

/**
 * Reads blobs by id with one `cat-file --batch` (raw bytes: no filter,
 * textconv or conversion of any kind runs), calling `onBlob` for each in
 * order (`null` bytes for an id that is missing or not a blob). Resolves
 * false when git failed or sent nothing for `GIT_TIMEOUT_MS` (then it is
 * killed). Requires `--allow-run=git` and `--allow-read` on the root.
 */
export async function gitReadBlobs(
  root: string,
  oids: readonly string[],
  onBlob: (oid: string, bytes: Uint8Array | null) => void,
): Promise<boolean> {
  const repo = repoOf(root);
  if (!repo) return false;
  if (!oids.length) return true;
  if (oids.some((o) => !isCommitId(o))) return false;
  const abort = new AbortController();
  let idle = setTimeout(() => abort.abort(), GIT_TIMEOUT_MS);
  let started: ReturnType<typeof catFileBatch>;
  try {
    started = catFileBatch(repo, "--batch", oids, abort.signal);
  } catch {
    clearTimeout(idle);
    return false;
  }
  const { child, writing } = started;
  const parser = new BatchParser(onBlob);
  try {
    for await (const chunk of child.stdout) {
      clearTimeout(idle);
      idle = setTimeout(() => abort.abort(), GIT_TIMEOUT_MS);
      parser.push(chunk);
    }
    await writing;
    const status = await child.status;
    return status.success && parser.done === oids.length;
  } catch {
    return false;
  } finally {
    clearTimeout(idle);
    if (abort.signal.aborted) warn(`git cat-file did not answer within ${GIT_TIMEOUT_MS} ms and was stopped`);
  }
}

/**
 * Splits `cat-file --batch` output (`<oid> <type> <size>\n<bytes>\n`, or
 * `<oid> missing\n`) into objects. The buffer grows by doubling and is
 * compacted as objects are consumed, so a large blob costs linear copying.
 */
class BatchParser {
  private buf = new Uint8Array(64 * 1024);
  private len = 0;
  private at = 0;
  done = 0;
  constructor(private onBlob: (oid: string, bytes: Uint8Array | null) => void) {}

  push(chunk: Uint8Array): void {
    if (this.at > 0 && this.at * 2 >= this.len) {
      this.buf.copyWithin(0, this.at, this.len);
      this.len -= this.at;
      this.at = 0;
    }
    if (this.len + chunk.length > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.buf.length * 2, this.len + chunk.length));
      grown.set(this.buf.subarray(0, this.len));
      this.buf = grown;
    }
    this.buf.set(chunk, this.len);
    this.len += chunk.length;
    for (;;) {
      const nl = this.buf.subarray(0, this.len).indexOf(0x0a, this.at);
      if (nl < 0) return;
      const [oid, type, size] = new TextDecoder().decode(this.buf.subarray(this.at, nl)).split(" ");
      if (size === undefined) { // "<oid> missing" or "<name> ambiguous"
        this.onBlob(oid, null);
        this.done++;
        this.at = nl + 1;
        continue;
      }
      const n = Number(size);
      if (this.len < nl + 1 + n + 1) return;
      this.onBlob(oid, type === "blob" ? this.buf.slice(nl + 1, nl + 1 + n) : null);
      this.done++;
      this.at = nl + 1 + n + 1;
    }
  }
}
