/**
 * The one place where a failure of the store's files (SQLite or the file
 * system under the Cruxe home) is told apart from a bug. An environment fault
 * becomes a registry error naming the file and the fix:
 * - full disk, I/O error, read-only file system, missing permission, a file
 *   that cannot be opened, something other than a regular file where a store
 *   file should be, or other than a directory where the home or a store
 *   directory should be: `storage_unavailable` with `data.path` and
 *   `data.reason` (`disk_full`, `io_error`, `read_only`, `permission_denied`,
 *   `cannot_open`, `corrupt`, `not_a_file`, `not_a_directory`);
 * - a damaged or schema-less project index: `index_incompatible` with
 *   `schema_status: corrupt_manifest` and the fix `cruxe index --force`;
 * - a damaged registry: `storage_unavailable` with reason `corrupt` and the
 *   fix `cruxe doctor --repair`.
 * node:sqlite errors carry only SQLite's message, so the classification reads
 * SQLite's fixed result-code texts.
 */
import { CruxeError } from "../core/errors.ts";
import { diskFull } from "../io/disk_space.ts";

/** Why a store cannot be used. */
export type StorageReason =
  | "disk_full"
  | "io_error"
  | "read_only"
  | "permission_denied"
  | "cannot_open"
  | "corrupt"
  | "not_a_file"
  | "not_a_directory";

const PATTERNS: [RegExp, StorageReason][] = [
  [/database or disk is full|No space left on device|ENOSPC|os error 28\b/i, "disk_full"],
  [/disk I\/O error|Input\/output error|EIO\b|os error 5\b/i, "io_error"],
  [/attempt to write a readonly database|Read-only file system|EROFS|os error 30\b/i, "read_only"],
  [/access permission denied|Permission denied|EACCES|EPERM|os error 13\b|os error 1\b/i, "permission_denied"],
  [/Not a directory|ENOTDIR\b|os error 20\b/i, "not_a_directory"],
  [/Is a directory|EISDIR\b|os error 21\b/i, "not_a_file"],
  [/unable to open database file/i, "cannot_open"],
  [
    /database disk image is malformed|file is not a database|malformed database schema|no such table|vtable constructor failed/i,
    "corrupt",
  ],
];

/** The storage fault an error reports, or null when it is something else (a bug, bad input, ...). */
export function storageReason(err: unknown): StorageReason | null {
  if (err instanceof CruxeError) {
    return err.code === "storage_unavailable" ? (err.data.reason as StorageReason) : null;
  }
  if (err instanceof Deno.errors.PermissionDenied) return "permission_denied";
  const message = err instanceof Error ? err.message : typeof err === "string" ? err : "";
  const code = (err as { code?: unknown })?.code;
  for (const [re, reason] of PATTERNS) {
    if (re.test(message) || (typeof code === "string" && re.test(code))) return reason;
  }
  return null;
}

/**
 * The storage fault an error reports for the file at `path`, like
 * `storageReason`, except that an I/O error on a disk with no space left is
 * `disk_full`: SQLite reports a `-shm`/`-wal` file it cannot create on a full
 * disk as a disk I/O error, and the fix is then free space, not `fsck`.
 */
export function storageReasonAt(err: unknown, path: string): StorageReason | null {
  const reason = storageReason(err);
  return reason === "io_error" && diskFull(path) ? "disk_full" : reason;
}

/** True when an error says a store's content is damaged (corrupt pages, not a database, a missing table). */
export function isCorruption(err: unknown): boolean {
  return storageReason(err) === "corrupt";
}

/**
 * Why the file at `path` cannot be written by this process (read-only file
 * system, permissions), or null when it can. SQLite quietly opens such a file
 * read-only, so a store that opened fine may still refuse every write.
 */
export function unwritable(path: string): StorageReason | null {
  try {
    Deno.openSync(path, { read: true, write: true }).close();
    return null;
  } catch (e) {
    const reason = storageReason(e);
    return reason === "read_only" || reason === "permission_denied" ? reason : null;
  }
}

/** What a person does about each fault at `path` (the store file or the home directory). */
export function storageFix(reason: StorageReason, path: string, home?: string): string {
  switch (reason) {
    case "disk_full":
      return `free space on the disk holding ${path} (or set CRUXE_HOME to a larger disk), then retry`;
    case "io_error":
      return `check the disk holding ${path} (dmesg, fsck); then retry, or set CRUXE_HOME to another disk`;
    case "read_only":
    case "permission_denied":
    case "cannot_open":
      return `make ${home ?? path} writable by this user (chmod/chown, remount read-write) or set CRUXE_HOME to ` +
        "a writable directory";
    case "corrupt":
      return path.endsWith("registry.db") ? "run `cruxe doctor --repair`" : "run `cruxe index --force`";
    case "not_a_file": {
      const store = path.replace(/-(wal|shm)$/, "");
      return store.endsWith("registry.db")
        ? "run `cruxe doctor --repair` (it moves it aside and rebuilds the registry)"
        : store.endsWith("index.db")
        ? "run `cruxe index --force` (it moves it aside and rebuilds the index)"
        : `move ${path} aside`;
    }
    case "not_a_directory":
      return `move ${path} away, or set CRUXE_HOME to a directory`;
  }
}

const WHAT: Record<StorageReason, string> = {
  disk_full: "the disk is full",
  io_error: "the disk reported an I/O error",
  read_only: "it is on a read-only file system or opened read-only",
  permission_denied: "this user lacks write permission",
  cannot_open: "the file cannot be opened (missing directory or permission)",
  corrupt: "the file is damaged",
  not_a_file: "it is not a regular file",
  not_a_directory: "it is not a directory",
};

/** The `storage_unavailable` error for a store at `path`. */
export function storageUnavailable(
  path: string,
  reason: StorageReason,
  detail?: string,
  home?: string,
): CruxeError {
  const fix = storageFix(reason, path, home);
  return new CruxeError(
    "storage_unavailable",
    `Cruxe cannot use ${path}: ${WHAT[reason]}${detail ? ` (${detail})` : ""}. Fix: ${fix}.`,
    { path, reason, fix },
  );
}

/** The `index_incompatible` error for a damaged project index at `path`. */
export function corruptIndex(path: string, root: string | null, detail: string): CruxeError {
  return new CruxeError(
    "index_incompatible",
    `The index ${path}${root ? ` of ${root}` : ""} is damaged (${detail}). Run \`cruxe index --force` +
      `${root ? ` --path ${root}` : ""}\` (or index_repo with force: true) to move it aside and rebuild it.`,
    { schema_status: "corrupt_manifest", path, fix: "cruxe index --force" },
  );
}

/**
 * The `index_incompatible` error for a damaged refs store at `path` (found
 * while reading or indexing `ref`): every indexed ref of the workspace is
 * then rebuilt on demand, and `fix` (indexing `ref` again) starts with it.
 */
export function corruptRefsStore(path: string, ref: string, detail: string, fix: unknown): CruxeError {
  return new CruxeError(
    "index_incompatible",
    `The refs store ${path} is damaged (${detail}); its indexed refs are rebuilt on demand. Index ${ref} again ` +
      `with index_repo {"ref": "${ref}", "wait": true} (\`cruxe index --ref ${ref}\`): it rebuilds the store.`,
    { schema_status: "corrupt_manifest", path, fix },
  );
}

/**
 * Turns a storage fault on the file at `path` into its registry error;
 * anything else is returned unchanged (so callers can `throw asStorageError(e, p)`).
 * Corruption of a project index becomes `index_incompatible`; of the registry, `storage_unavailable`.
 */
export function asStorageError(
  err: unknown,
  path: string,
  opts: { home?: string; root?: string | null } = {},
): unknown {
  if (err instanceof CruxeError) return err;
  const reason = storageReasonAt(err, path);
  if (!reason) return err;
  const detail = err instanceof Error ? err.message : String(err);
  if (reason === "corrupt" && !path.endsWith("registry.db")) return corruptIndex(path, opts.root ?? null, detail);
  return storageUnavailable(path, reason, detail, opts.home);
}
