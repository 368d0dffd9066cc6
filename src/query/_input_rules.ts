/**
 * Validation shared by the navigation tools, so every tool answers bad input
 * the same way: `invalid_input` with the field and the rule in `data`.
 *
 * Policy (documented for clients):
 * - text inputs are trimmed; empty or whitespace-only is `invalid_input`;
 * - names (symbol names, qualified names) longer than MAX_NAME_CHARS are
 *   `invalid_input` (no identifier is that long); free-text queries are cut to
 *   MAX_QUERY_CHARS before use and the answer says `query_truncated`;
 * - `limit` must be an integer >= 1; above the tool's maximum it is clamped to
 *   the maximum (the answer is then `truncated` if more existed);
 * - unknown `language` or `kind` is `invalid_input` listing the known values.
 */
import { CruxeError } from "../core/errors.ts";
import { normalizeKind, SYMBOL_KINDS, type SymbolKind } from "../core/types.ts";
import { languageIds, textLanguageIds } from "../core/languages.ts";
import { nearest } from "./nearest_word.ts";
import { MAX_REQUEST_PATH, relativePathProblem } from "../core/path_policy.ts";
import { type Db, getMeta } from "../state/db.ts";

/** Longest accepted symbol name or qualified name. */
export const MAX_NAME_CHARS = 512;
/** Longest free-text query used (longer ones are cut, not refused). */
export const MAX_QUERY_CHARS = 2000;

/**
 * The one way a free-text query is cut to MAX_QUERY_CHARS: at the last
 * whitespace when that keeps more than half of the allowance (no half word
 * at the end), else exactly at the limit.
 */
export function cutQuery(q: string): { text: string; truncated: boolean } {
  if (q.length <= MAX_QUERY_CHARS) return { text: q, truncated: false };
  const cut = q.slice(0, MAX_QUERY_CHARS);
  const ws = cut.search(/\s\S*$/);
  return { text: ws > MAX_QUERY_CHARS / 2 ? cut.slice(0, ws) : cut, truncated: true };
}

/** A required, non-blank string input (trimmed); refuses non-strings and names over `maxChars`. */
export function requireName(value: unknown, field: string, maxChars = MAX_NAME_CHARS): string {
  if (typeof value !== "string") {
    throw new CruxeError("invalid_input", `${field} is required and must be a string`, { field });
  }
  const s = value.trim();
  if (!s) throw new CruxeError("invalid_input", `${field} must not be empty`, { field });
  if (s.length > maxChars) {
    throw new CruxeError("invalid_input", `${field} is too long (${s.length} characters; at most ${maxChars})`, {
      field,
      max_chars: maxChars,
    });
  }
  return s;
}

/** A required free-text query, trimmed and cut by `cutQuery`. */
export function requireQuery(value: unknown, field = "query"): { text: string; truncated: boolean } {
  if (typeof value !== "string") {
    throw new CruxeError("invalid_input", `${field} is required and must be a string`, { field });
  }
  const s = value.trim();
  if (!s) throw new CruxeError("invalid_input", `${field} must not be empty`, { field });
  return cutQuery(s);
}

/** `limit`: default when absent, `invalid_input` when not an integer >= 1, clamped to `max`. */
export function parseLimit(value: unknown, def: number, max: number, field = "limit"): number {
  if (value === undefined || value === null) return def;
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new CruxeError("invalid_input", `${field} must be an integer between 1 and ${max}`, { field, min: 1, max });
  }
  if (value < 1) {
    throw new CruxeError("invalid_input", `${field} must be at least 1 (got ${value})`, { field, min: 1, max });
  }
  return Math.min(value, max);
}

/** Spellings of language ids agents commonly send. */
const LANGUAGE_ALIASES: Record<string, string> = {
  golang: "go",
  py: "python",
  python3: "python",
  ts: "typescript",
  js: "javascript",
  jsx: "javascript",
  node: "javascript",
  rs: "rust",
  "c++": "cpp",
  cxx: "cpp",
  "c#": "csharp",
  cs: "csharp",
  rb: "ruby",
  sh: "bash",
  shell: "bash",
  ex: "elixir",
  hs: "haskell",
  kt: "kotlin",
  ps1: "powershell",
};

/**
 * An optional language filter: a language Cruxe indexes (with symbols or as
 * text), a common alias of one, or a language found in `indexed` (the
 * languages of the index at hand); else `invalid_input` listing the known ids.
 */
export function parseLanguage(value: unknown, indexed: string[] = []): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    throw new CruxeError("invalid_input", "language must be a string", { field: "language" });
  }
  const l = value.trim().toLowerCase();
  if (!l) return undefined;
  const id = LANGUAGE_ALIASES[l] ?? l;
  const known = [...languageIds(), ...textLanguageIds()];
  if (!known.includes(id) && !indexed.includes(id)) {
    const near = nearest(l, [...known, ...indexed]);
    throw new CruxeError(
      "invalid_input",
      `Unknown language "${value.slice(0, 100)}"${near ? `; did you mean "${near}"?` : ""}`,
      {
        field: "language",
        known_languages: known,
        indexed_languages: indexed,
        ...(near ? { did_you_mean: near } : {}),
      },
    );
  }
  return id;
}

/** An optional kind filter, normalized (`fn` → `function`), else `invalid_input`. */
export function parseKind(value: unknown): SymbolKind | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") throw new CruxeError("invalid_input", "kind must be a string", { field: "kind" });
  const k = normalizeKind(value);
  if (!k) {
    throw new CruxeError("invalid_input", `Unknown kind "${value.slice(0, 100)}"`, {
      field: "kind",
      known_kinds: [...SYMBOL_KINDS],
    });
  }
  return k;
}

/** A boolean flag: false when absent, else `invalid_input` unless it is a boolean. */
export function parseFlag(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") throw new CruxeError("invalid_input", `${field} must be a boolean`, { field });
  return value;
}

/** One of `allowed`, the default when absent, else `invalid_input` (or the given code). */
export function parseEnum<T extends string>(
  value: unknown,
  field: string,
  allowed: readonly T[],
  def: T,
  code: "invalid_input" | "invalid_strategy" = "invalid_input",
): T {
  if (value === undefined || value === null) return def;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value.trim().toLowerCase())) {
    return value.trim().toLowerCase() as T;
  }
  throw new CruxeError(code, `${field} must be one of ${allowed.join(", ")}`, { field, allowed: [...allowed] });
}

/**
 * The one rule for a path or path prefix from a request (`path`, `path_prefix`, `pathPrefix`, the CLI's
 * `--path-prefix`), for every tool, scoped or not: `\\` is read as `/`, a leading `./` and repeated slashes
 * are dropped; an absolute path inside `root` (the one workspace the call is routed to, when there is one) is
 * made relative; anything `relativePathProblem` refuses (any other absolute path, `..` in any spelling or
 * `%`-encoding, NUL or control characters, `~`) is `invalid_input` with `data.field` naming the field. Never a
 * silent empty answer. `keepTrailingSlash` keeps a prefix's final `/` (`src/` matches the directory only).
 */
export function parseRequestPath(
  value: unknown,
  field: string,
  opts: { root?: string | null; keepTrailingSlash?: boolean } = {},
): string {
  const raw = requireName(value, field, MAX_REQUEST_PATH);
  let p = raw.replace(/\\/g, "/");
  const root = (opts.root ?? "").replace(/\\/g, "/").replace(/\/+$/, "");
  if (p.startsWith("/") && root && (p === root || p.startsWith(root + "/"))) p = p.slice(root.length + 1);
  p = p.replace(/^(\.\/)+/, "").replace(/\/+/g, "/");
  if (!opts.keepTrailingSlash) p = p.replace(/\/$/, "");
  const problem = relativePathProblem(p || raw);
  if (problem) {
    const hint = "give a path relative to the repository root";
    throw new CruxeError("invalid_input", `${field} refused: ${problem} (${hint})`, { field });
  }
  return p;
}

/** An optional path-prefix filter under `parseRequestPath`'s rule; absent, null or blank means no filter. */
export function parsePathPrefix(value: unknown, field: string, root?: string | null): string | undefined {
  if (value === undefined || value === null || (typeof value === "string" && !value.trim())) return undefined;
  return parseRequestPath(value, field, { root, keepTrailingSlash: true }) || undefined;
}

/** A repository-relative file path for the index in `db` (`parseRequestPath` with the index's root). */
export function parseIndexPath(db: Db, value: unknown, field = "path"): string {
  return parseRequestPath(value, field, { root: getMeta(db, "repo_root") });
}
