/**
 * Why a path of a working tree is not in its index, judged by the scan's own
 * rules: missing, a directory, a symlink (or below one), excluded by an
 * ignore rule or a built-in skip, over the size limit, unreadable, binary,
 * of no language Cruxe parses, or indexable but not indexed yet. The path is
 * untrusted: nothing below a symlinked directory is looked at, and a file is
 * read only through the safe open. Requires `--allow-read` on the repository.
 */
import { extname, join } from "node:path";
import { WatchFilter } from "./watch_filter.ts";
import { firstLine, isBinary, mayBeIndexed } from "./indexer.ts";
import { languageForPath, languageForShebang } from "./languages/registry.ts";
import { textLanguageForPath } from "../core/languages.ts";
import { readRepoFile, underSymlinkedDirectory } from "../io/safe_open.ts";
import { TOOL } from "../core/tool_names.ts";

/** Why a file the scan lists is left out once read. */
export type ReadVerdict = "no_language" | "binary" | "unreadable" | "indexable";

/** Why a path is not in the index. */
export type UnindexedReason =
  | "missing"
  | "directory"
  | "symlink"
  | "ignored"
  | "too_large"
  | Exclude<ReadVerdict, "indexable">
  | "not_yet_indexed";

/**
 * What the indexer makes of the listed file `path` of `root`: `indexable`
 * when it is text of a language Cruxe indexes (by name, or by its `#!` line
 * when the name has no extension), read as the indexer reads it.
 */
export function readVerdict(root: string, path: string, maxBytes: number): ReadVerdict {
  const known = languageForPath(path) ?? textLanguageForPath(path);
  // The indexer never reads a file its name rules out (an extension no language claims, a build file's name).
  if (!known && !mayBeIndexed(path)) return "no_language";
  let bytes: Uint8Array;
  try {
    bytes = readRepoFile(root, path, { maxBytes }).bytes;
  } catch {
    return "unreadable";
  }
  if (isBinary(bytes)) return "binary";
  if (!known && !(bytes[0] === 0x23 && bytes[1] === 0x21 && languageForShebang(firstLine(bytes)))) return "no_language";
  return "indexable";
}

/**
 * Why `rel` (repository-relative, `/`-separated, already normalised) is not
 * in the index of `root`, as the scan would judge it now. Never throws: a
 * path that cannot be judged is `missing`.
 */
export function unindexedReason(root: string, rel: string, maxFileBytes: number): UnindexedReason {
  if (!rel || rel.startsWith("/") || rel.split("/").includes("..")) return "missing";
  try {
    // A symlinked directory on the way: what lies beyond it is never looked at.
    if (underSymlinkedDirectory(root, rel, new Map())) return "symlink";
    let st: Deno.FileInfo;
    try {
      st = Deno.lstatSync(join(root, rel));
    } catch {
      return "missing";
    }
    if (st.isSymlink) return "symlink";
    if (st.isDirectory) return "directory";
    if (!st.isFile) return "unreadable";
    // The scan's ignore rules: built-in skips, `.cruxeignore`, and every `.gitignore` on the way down.
    if (new WatchFilter(root).classify(rel, false) !== "change") return "ignored";
    if (st.size > maxFileBytes) return "too_large";
    const verdict = readVerdict(root, rel, maxFileBytes);
    return verdict === "indexable" ? "not_yet_indexed" : verdict;
  } catch {
    return "missing";
  }
}

/** The sentence an answer gives for `path` not being in the index for `reason` (`missing`: the index's own words). */
export function unindexedMessage(path: string, reason: UnindexedReason, maxFileBytes: number): string {
  const p = path.slice(0, 300);
  const read = `; read it with ${TOOL.open_file} (\`cruxe open\`)`;
  switch (reason) {
    case "missing":
      return `${p} is not in the index`;
    case "directory":
      return `${p} is a directory; give the path of a file in it`;
    case "symlink":
      return `${p} is a symlink or lies below one; the index never follows symlinks`;
    case "ignored":
      return `${p} is not indexed: the workspace's ignore rules (.gitignore, .cruxeignore) or a built-in skip ` +
        `exclude it`;
    case "too_large":
      return `${p} is not indexed: it is larger than the ${Math.round(maxFileBytes / 1048576)} MiB file limit ` +
        `(maxFileBytes)`;
    case "unreadable":
      return `${p} is not indexed: it cannot be read`;
    case "binary":
      return `${p} is not indexed: it is a binary file`;
    case "no_language":
      return `${p} is not indexed: Cruxe has no parser for ${
        extname(p) ? `${extname(p)} files` : `files named ${p.slice(p.lastIndexOf("/") + 1)}`
      }${read}`;
    case "not_yet_indexed":
      return `${p} is new or changed since the last index; ${TOOL.sync_repo} (\`cruxe sync\`) indexes it`;
  }
}
