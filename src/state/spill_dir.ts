/**
 * Whether SQLite can write a statement's temporary files (a large sort's
 * spilled runs) on this machine. A connection that keeps temporary storage
 * in files (`PRAGMA temp_store=FILE`) fails a sort too large for its cache
 * when there is nowhere to put them; one that keeps it in memory does not.
 */
import { warn } from "../core/log.ts";

/** The directories SQLite's Unix file layer tries for temporary files, in its order, before the working directory. */
const FIXED_DIRS = ["/var/tmp", "/usr/tmp", "/tmp"];

/**
 * The directory SQLite would write temporary files in: the first of
 * `SQLITE_TMPDIR`, `TMPDIR`, /var/tmp, /usr/tmp, /tmp and the working
 * directory that `canWrite` accepts; null when none does.
 */
export function sqliteSpillDir(
  env: (name: string) => string | undefined,
  cwd: string,
  canWrite: (dir: string) => boolean,
): string | null {
  const dirs = [env("SQLITE_TMPDIR"), env("TMPDIR"), ...FIXED_DIRS, cwd];
  for (const dir of dirs) if (dir && canWrite(dir)) return dir;
  return null;
}

/** True when `dir` is a directory this process can create a file in (a file is created and removed to find out). */
export function writableDir(dir: string): boolean {
  try {
    if (!Deno.statSync(dir).isDirectory) return false;
    Deno.removeSync(Deno.makeTempFileSync({ dir, prefix: ".cruxe-spill-" }));
    return true;
  } catch (e) {
    // Refused by Deno's permissions, not the system's: SQLite does not ask Deno, so this says nothing either way.
    return e instanceof Deno.errors.NotCapable;
  }
}

let known: boolean | null = null;

/** An environment variable, or nothing when it is unset or this process may not read it. */
function envOrNothing(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/**
 * True when SQLite has a directory for temporary files here (always on
 * Windows, where it asks the system for one). Found once per thread (a
 * worker has its own copy of this module); the first time it is not, a
 * warning says large sorts stay in memory.
 */
export function canSpillSorts(): boolean {
  if (known !== null) return known;
  let cwd = ".";
  try {
    cwd = Deno.cwd();
  } catch { /* a removed working directory: "." fails the check below */ }
  known = Deno.build.os === "windows" || sqliteSpillDir(envOrNothing, cwd, writableDir) !== null;
  if (!known) {
    warn(
      "no writable directory for SQLite's temporary files (SQLITE_TMPDIR, TMPDIR, /var/tmp, /usr/tmp, /tmp, the " +
        "working directory): the index writer sorts in memory, on one core; set SQLITE_TMPDIR to a writable directory",
    );
  }
  return known;
}
