/**
 * Pure path rules shared by every check that keeps agents inside the folders
 * they may see. Callers canonicalize (realpath) first; these functions decide.
 */

/** Normalizes separators and strips trailing slashes (keeps `/`). */
function norm(p: string): string {
  const s = p.replace(/\\/g, "/").replace(/\/+/g, "/");
  return s.length > 1 ? s.replace(/\/$/, "") : s;
}

/**
 * True when canonical `candidate` is `root` or lies beneath it, compared by
 * path components (`/home/dev2` is not under `/home/dev`).
 */
export function isWithinRoot(root: string, candidate: string): boolean {
  const r = norm(root);
  const c = norm(candidate);
  if (r === "/") return c.startsWith("/");
  return c === r || c.startsWith(r + "/");
}

/** True when `candidate` is within at least one of `roots`. */
export function isWithinAnyRoot(roots: string[], candidate: string): boolean {
  return roots.some((r) => isWithinRoot(r, candidate));
}

/**
 * Why a repository-relative path from a request is refused, or null when it
 * is acceptable: absolute paths, `..` segments (also URL-encoded), NUL bytes,
 * `~` expansion, empty or over-long paths.
 */
export function relativePathProblem(path: string): string | null {
  if (typeof path !== "string" || !path.trim()) return "path is empty";
  if (path.length > 4096) return "path is too long";
  if (path.includes("\0")) return "path contains a NUL byte";
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch { /* not URL-encoded */ }
  for (const p of [path, decoded]) {
    const s = p.replace(/\\/g, "/");
    if (s.startsWith("/") || /^[A-Za-z]:/.test(s)) return "absolute paths are not allowed";
    if (s.startsWith("~")) return "home-relative paths are not allowed";
    if (s.split("/").some((seg) => seg === "..")) return "`..` segments are not allowed";
    if (p.includes("\0")) return "path contains a NUL byte";
  }
  return null;
}
