/**
 * Query intent classification: `error` when the query quotes
 * text or looks like a stack trace / error code, `path` when it names a file,
 * `symbol` when it is one identifier (CamelCase, snake_case, qualified),
 * otherwise `natural_language`.
 */

/** The four query intents. */
export type QueryIntent = "symbol" | "path" | "error" | "natural_language";

/** Extensions that make a token a file name rather than a qualified name. */
const FILE_EXTENSIONS = new Set([
  "go",
  "py",
  "pyi",
  "ts",
  "tsx",
  "js",
  "jsx",
  "mjs",
  "cjs",
  "rs",
  "java",
  "kt",
  "kts",
  "scala",
  "sc",
  "c",
  "h",
  "cc",
  "cpp",
  "cxx",
  "hpp",
  "hh",
  "hxx",
  "cs",
  "rb",
  "php",
  "sh",
  "bash",
  "zsh",
  "ex",
  "exs",
  "hs",
  "swift",
  "lua",
  "zig",
  "md",
  "rst",
  "txt",
  "json",
  "yaml",
  "yml",
  "toml",
  "xml",
  "html",
  "css",
  "scss",
  "sql",
  "proto",
  "gradle",
  "mod",
  "sum",
  "lock",
  "cfg",
  "ini",
  "conf",
  "mk",
  "cmake",
  "dart",
  "vue",
  "svelte",
  "erl",
  "ml",
  "fs",
  "pl",
  "pm",
  "r",
  "jl",
  "clj",
  "el",
  "vim",
  "s",
  "asm",
  "in",
  "tmpl",
  "tpl",
  "env",
]);

const STACK_TRACE = [
  /\bTraceback \(most recent call last\)/,
  /^\s*File "[^"]+", line \d+/m,
  /^\s*at [\w$.<>]+\s*\(.*:\d+(:\d+)?\)/m, // JS / Java frames
  /^\s*at [\w$.]+\([\w$]+\.java:\d+\)/m,
  /\bpanic: /,
  /\bgoroutine \d+ \[/,
  /\bException in thread\b/,
  /\b[A-Z]\w*(Error|Exception|Panic): /,
  /\berror(\[E\d{4}\])?: /i,
  /\bthread '.*' panicked at\b/,
  /[\w./-]+\.[a-z]{1,5}:\d+(:\d+)?\b/, // file.go:123
  /^[\w$]+(\.[\w$]+)*: \S.*\S/, // a dotted package or type name, a colon, then a message
  /^[A-Z][a-z]+ \([^()]+\)$/, // log lines: a capitalised status word, then the reason in parentheses
];

/** Error codes: rustc E0308, errno names, ERR_FOO constants, ORA-00942-style. */
const ERROR_CODE = new RegExp(
  "\\b(E\\d{4}|ERR_[A-Z0-9_]+|[A-Z]{2,5}-\\d{3,5}|E(NOENT|ACCES|PERM|EXIST|AGAIN|INVAL|PIPE|CONNREFUSED|CONNRESET|" +
    "CONNABORTED|TIMEDOUT|ADDRINUSE|ADDRNOTAVAIL|NOTDIR|ISDIR|MFILE|NFILE|NOSPC|BADF|INTR|NOTEMPTY|BUSY|ROFS|NOMEM|IO|" +
    "HOSTUNREACH|NETUNREACH|NOTSUP|OPNOTSUPP|NOSYS|XDEV|LOOP|NAMETOOLONG|WOULDBLOCK|INPROGRESS|ALREADY|NOTCONN|SHUTDOWN|" +
    "FAULT|RANGE|DOM|OVERFLOW|ILSEQ|NOEXEC|TXTBSY|FBIG|SPIPE|MLINK|CHILD|SRCH|NXIO|2BIG|NODEV|NOTTY|DEADLK|NOLCK))\\b",
);

const QUOTED = /"[^"]+"|'[^']{2,}'|`[^`]+`|“[^”]+”/;

const IDENT_CHAIN = /^[A-Za-z_$][\w$]*((::|\.|#|->)[A-Za-z_$][\w$]*)*(\(\))?$/;

/** True for a token that names a file: `a/b/c`, `foo.go`, `./x`. */
export function looksLikePath(token: string): boolean {
  if (/\s/.test(token) || !token) return false;
  const base = token.slice(token.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (dot >= 0 && dot < base.length - 1) {
    const ext = base.slice(dot + 1).toLowerCase();
    if (FILE_EXTENSIONS.has(ext) && /^[\w.\-/@+]+$/.test(token)) return true;
  }
  return token.includes("/") && /^[\w.\-/@+]+$/.test(token) && /[A-Za-z]/.test(token);
}

/** True for one identifier shaped like code: camelCase, PascalCase, snake_case or qualified. */
export function looksLikeSymbol(q: string): boolean {
  if (!IDENT_CHAIN.test(q)) return false;
  if (/::|\.|#|->/.test(q)) return true;
  const id = q.replace(/\(\)$/, "");
  return /_/.test(id.slice(1)) || /[a-z0-9][A-Z]/.test(id) || /^[A-Z]/.test(id) || /\(\)$/.test(q);
}

/** Classifies a (trimmed) query. */
export function classifyIntent(query: string): QueryIntent {
  const q = query.trim();
  if (QUOTED.test(q) || ERROR_CODE.test(q) || STACK_TRACE.some((r) => r.test(q))) return "error";
  const tokens = q.split(/\s+/);
  // In a sentence, `Node.js` or `Newtonsoft.Json` are names; a path there has a slash or a code-style file name.
  const pathLike = (t: string) =>
    looksLikePath(t) && (tokens.length <= 3 || t.includes("/") || /^[a-z0-9_.-]+$/.test(t) && /[_-]|\.[a-z]+$/.test(t));
  if (tokens.some(pathLike)) {
    const pathTok = tokens.find(pathLike)!;
    // `a/b` inside a long sentence ("success/error result") is prose, not a path.
    if (tokens.length <= 3 || pathTok.includes(".")) return "path";
  }
  if (tokens.length === 1 && looksLikeSymbol(q)) return "symbol";
  return "natural_language";
}

/** The quoted literals of a query (without their quotes). */
export function quotedLiterals(query: string): string[] {
  const out: string[] = [];
  for (const m of query.matchAll(/"([^"]+)"|'([^']{2,})'|`([^`]+)`|“([^”]+)”/g)) {
    const s = (m[1] ?? m[2] ?? m[3] ?? m[4]).trim();
    if (s) out.push(s);
  }
  return out;
}
