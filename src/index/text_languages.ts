/**
 * Source languages Cruxe has no grammar for: their files are still chunked
 * into line windows and searchable as text, just without symbols.
 */

const TEXT_LANGUAGES: Record<string, string> = {
  ".swift": "swift",
  ".kt": "kotlin",
  ".kts": "kotlin",
  ".lua": "lua",
  ".zig": "zig",
  ".dart": "dart",
  ".m": "objc",
  ".mm": "objc",
  ".pl": "perl",
  ".pm": "perl",
  ".r": "r",
  ".jl": "julia",
  ".clj": "clojure",
  ".erl": "erlang",
  ".hrl": "erlang",
  ".fs": "fsharp",
  ".ml": "ocaml",
  ".nim": "nim",
  ".groovy": "groovy",
  ".gradle": "groovy",
  ".vue": "vue",
  ".svelte": "svelte",
  ".sql": "sql",
  ".proto": "protobuf",
  ".vim": "vim",
  ".el": "elisp",
  ".f90": "fortran",
  ".v": "verilog",
  ".sol": "solidity",
};

/** The text-only language of a path, if its extension names one. */
export function textLanguageForPath(path: string): string | undefined {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return undefined;
  return TEXT_LANGUAGES[base.slice(dot).toLowerCase()];
}

/** Every text-only language id. */
export function textLanguageIds(): string[] {
  return [...new Set(Object.values(TEXT_LANGUAGES))];
}
