/**
 * Pure path rules shared by every check that keeps agents inside the folders
 * they may see. Callers canonicalize (realpath) first; these functions decide.
 * No I/O, no permissions needed.
 */

/** Longest request path we look at (Linux PATH_MAX). */
export const MAX_REQUEST_PATH = 4096;

/** Normalizes separators and strips trailing slashes (keeps `/`). */
function norm(p: string): string {
  const s = p.replace(/\\/g, "/").replace(/\/+/g, "/");
  return s.length > 1 ? s.replace(/\/$/, "") : s;
}

/**
 * True when `p` is an absolute, already-canonical path we can compare: no NUL,
 * no `.`/`..` segments (a caller that forgot realpath gets "no", not a guess).
 */
function comparable(p: string): boolean {
  if (typeof p !== "string" || !p || p.includes("\0")) return false;
  const s = norm(p);
  if (!s.startsWith("/")) return false;
  return !s.split("/").some((seg) => seg === "." || seg === "..");
}

/**
 * True when canonical `candidate` is `root` or lies beneath it, compared by
 * path components (`/home/dev2` is not under `/home/dev`). Either argument
 * being empty, relative, or holding `.`/`..` segments or a NUL byte is `false`:
 * both must come out of realpath.
 *
 * @example isWithinRoot("/home/dev", "/home/dev/app/x.ts") // true
 * @example isWithinRoot("/home/dev", "/home/dev2/x.ts")    // false
 */
export function isWithinRoot(root: string, candidate: string): boolean {
  if (!comparable(root) || !comparable(candidate)) return false;
  const r = norm(root);
  const c = norm(candidate);
  if (r === "/") return true;
  return c === r || c.startsWith(r + "/");
}

/** True when `candidate` is within at least one of `roots`. */
export function isWithinAnyRoot(roots: string[], candidate: string): boolean {
  return roots.some((r) => isWithinRoot(r, candidate));
}

/** Decodes `%xx` escapes repeatedly (double encoding too); stops at a fixed point or bad escape. */
function decodedForms(path: string): string[] {
  const forms = [path];
  let cur = path;
  for (let i = 0; i < 4; i++) {
    let next: string;
    try {
      next = decodeURIComponent(cur);
    } catch {
      break;
    }
    if (next === cur) break;
    forms.push(next);
    cur = next;
  }
  return forms;
}

/**
 * Why a repository-relative path from a request is refused, or null when it
 * is acceptable. Refused: empty or whitespace-only, over 4096 characters, NUL
 * or other control characters, absolute paths (`/x`, `\x`, `C:x`, `\\server`),
 * `~` home expansion, and `..` segments — checked on the raw text, on every
 * `%`-decoded form (`%2e%2e`, `%252e%252e`), with `\` read as a separator, and
 * on the Unicode NFKC form (so fullwidth `．．／` or `‥` cannot stand in for
 * `../`). Legitimate names with spaces, dots (`.env`, `a..b`), non-ASCII
 * letters or a leading `./` are accepted.
 *
 * @example relativePathProblem("src/main.ts")     // null
 * @example relativePathProblem("src/%2e%2e/etc")  // "`..` segments are not allowed"
 */
export function relativePathProblem(path: string): string | null {
  if (typeof path !== "string" || !path.trim()) return "path is empty";
  if (path.length > MAX_REQUEST_PATH) return "path is too long";
  for (const raw of decodedForms(path)) {
    for (const p of [raw, raw.normalize("NFKC")]) {
      if (p.includes("\0")) return "path contains a NUL byte";
      // deno-lint-ignore no-control-regex
      if (/[\u0001-\u001f\u007f]/.test(p)) return "path contains control characters";
      const s = p.replace(/\\/g, "/");
      if (s.startsWith("/") || /^[A-Za-z]:/.test(s)) return "absolute paths are not allowed";
      if (s.trimStart().startsWith("~")) return "home-relative paths are not allowed";
      if (s.split("/").some((seg) => seg.trim() === "..")) return "`..` segments are not allowed";
    }
  }
  return null;
}
