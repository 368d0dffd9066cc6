/**
 * Language identity: which languages Cruxe knows, the grammar file each one
 * is parsed with, and which file names, extensions and `#!` interpreters
 * select it. Every layer reads these facts from here; how a grammar's tree
 * becomes symbols stays with the indexer (`src/index/languages/`).
 */

/** Who a language is: its id and what selects it for a file. */
export interface LanguageIdentity {
  id: string;
  /** Grammar file name under `grammars/`. */
  grammar: string;
  extensions: string[];
  /** Exact file names (no extension needed), e.g. `Rakefile`. */
  filenames?: string[];
  /** File-name starts that select the language whatever follows (`Kconfig.` for `Kconfig.debug`). */
  filenamePrefixes?: string[];
  /**
   * The prefix code in other languages spells this language's symbols with: Kconfig's `FOO` is `CONFIG_FOO` in
   * C, make and `.config` files, so a name asked for with the prefix also finds the symbol without it.
   */
  usePrefix?: string;
  /** Every definition of a name is the one symbol of that name, seen from every file (Kconfig merges them). */
  globalNames?: boolean;
  /** The files of one directory are one package, each seeing the package's names without an import (Java). */
  directoryIsPackage?: boolean;
  /** Interpreter names recognised in a `#!` line. */
  shebangs?: string[];
}

/** Every language Cruxe parses, in the order tool descriptions list them. */
export const LANGUAGE_IDENTITIES: readonly LanguageIdentity[] = [
  { id: "go", grammar: "tree-sitter-go.wasm", extensions: [".go"] },
  {
    id: "python",
    grammar: "tree-sitter-python.wasm",
    extensions: [".py", ".pyi", ".pyw"],
    shebangs: ["python", "python3", "python2"],
  },
  { id: "typescript", grammar: "tree-sitter-typescript.wasm", extensions: [".ts", ".mts", ".cts"] },
  { id: "tsx", grammar: "tree-sitter-tsx.wasm", extensions: [".tsx"] },
  {
    id: "javascript",
    grammar: "tree-sitter-javascript.wasm",
    extensions: [".js", ".mjs", ".cjs", ".jsx"],
    shebangs: ["node", "deno", "bun"],
  },
  { id: "rust", grammar: "tree-sitter-rust.wasm", extensions: [".rs"] },
  { id: "java", grammar: "tree-sitter-java.wasm", extensions: [".java"], directoryIsPackage: true },
  { id: "c", grammar: "tree-sitter-c.wasm", extensions: [".c", ".h"] },
  {
    id: "cpp",
    grammar: "tree-sitter-cpp.wasm",
    extensions: [".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp"],
  },
  { id: "csharp", grammar: "tree-sitter-c-sharp.wasm", extensions: [".cs", ".csx"] },
  {
    id: "ruby",
    grammar: "tree-sitter-ruby.wasm",
    extensions: [".rb", ".rake", ".gemspec", ".ru", ".rbw", ".jbuilder"],
    filenames: ["Rakefile", "Gemfile", "Guardfile", "Vagrantfile", "Podfile", "Fastfile", "Capfile", "Brewfile"],
    shebangs: ["ruby", "jruby"],
  },
  {
    id: "php",
    grammar: "tree-sitter-php.wasm",
    extensions: [".php", ".phtml", ".php5", ".php7", ".phps"],
    shebangs: ["php"],
  },
  {
    id: "bash",
    grammar: "tree-sitter-bash.wasm",
    extensions: [".sh", ".bash", ".zsh", ".ksh", ".bats"],
    filenames: [".bashrc", ".bash_profile", ".bash_aliases", ".profile", ".zshrc", ".zprofile", "PKGBUILD"],
    shebangs: ["bash", "sh", "zsh", "ksh", "dash", "ash"],
  },
  { id: "scala", grammar: "tree-sitter-scala.wasm", extensions: [".scala", ".sc", ".sbt"] },
  { id: "elixir", grammar: "tree-sitter-elixir.wasm", extensions: [".ex", ".exs"], shebangs: ["elixir"] },
  {
    id: "haskell",
    grammar: "tree-sitter-haskell.wasm",
    extensions: [".hs", ".lhs", ".hsc"],
    shebangs: ["runhaskell", "runghc", "stack"],
  },
  {
    id: "powershell",
    grammar: "tree-sitter-powershell.wasm",
    extensions: [".ps1", ".psm1", ".psd1"],
    shebangs: ["pwsh", "powershell"],
  },
  {
    id: "kconfig",
    grammar: "tree-sitter-kconfig.wasm",
    extensions: [],
    filenames: ["Kconfig", "Config.in"],
    filenamePrefixes: ["Kconfig.", "Kconfig-"],
    usePrefix: "CONFIG_",
    globalNames: true,
  },
];

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

const byExt = new Map<string, string>();
const byName = new Map<string, string>();
const byShebang = new Map<string, string>();
const byNamePrefix: [string, string][] = [];
const byId = new Map<string, LanguageIdentity>();
for (const l of LANGUAGE_IDENTITIES) {
  byId.set(l.id, l);
  for (const e of l.extensions) byExt.set(e, l.id);
  for (const f of l.filenames ?? []) byName.set(f, l.id);
  for (const f of l.filenamePrefixes ?? []) byNamePrefix.push([f, l.id]);
  for (const s of l.shebangs ?? []) byShebang.set(s, l.id);
}

/** The identity of a parsed language; throws on an unknown id (a programming error, not input). */
export function languageIdentity(id: string): LanguageIdentity {
  const l = byId.get(id);
  if (!l) throw new Error(`unknown language id ${id}`);
  return l;
}

/** Parsed language ids, in registry order. */
export function languageIds(): string[] {
  return LANGUAGE_IDENTITIES.map((l) => l.id);
}

/** The lowercased extension of a base name (`.ts`); undefined for none or a dotfile. */
function extensionOf(base: string): string | undefined {
  const dot = base.lastIndexOf(".");
  return dot <= 0 ? undefined : base.slice(dot).toLowerCase();
}

/** The parsed language of a path from its name alone (special file name, then extension, then name start). */
export function languageIdForPath(path: string): string | undefined {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const named = byName.get(base);
  if (named) return named;
  const ext = extensionOf(base);
  // An extension a language claims wins over a name's start (`Kconfig.py` is Python).
  return (ext === undefined ? undefined : byExt.get(ext)) ?? byNamePrefix.find(([p]) => base.startsWith(p))?.[1];
}

/**
 * The languages whose symbols other code spells with a prefix, with that prefix (`kconfig` → `CONFIG_`; see
 * `LanguageIdentity.usePrefix`).
 */
export function usePrefixes(): { id: string; prefix: string }[] {
  return LANGUAGE_IDENTITIES.flatMap((l) => l.usePrefix ? [{ id: l.id, prefix: l.usePrefix }] : []);
}

/** The prefix other code spells language `id`'s symbols with (`usePrefix`), if it has one. */
export function usePrefixOf(id: string): string | undefined {
  return byId.get(id)?.usePrefix;
}

/** True when language `id`'s files see the names of their directory's files without an import (`directoryIsPackage`). */
export function seesItsDirectory(id: string): boolean {
  return byId.get(id)?.directoryIsPackage === true;
}

/** True when every definition of a name in language `id` is one symbol seen from every file (`globalNames`). */
export function hasGlobalNames(id: string): boolean {
  return byId.get(id)?.globalNames === true;
}

/** The parsed language named by a `#!` first line (`#!/usr/bin/env python3` → python). */
export function languageIdForShebang(firstLine: string): string | undefined {
  const m = firstLine.match(/^#!\s*(\S+)(?:\s+(\S+))?/);
  if (!m) return undefined;
  let prog = m[1].split("/").pop()!;
  if (prog === "env" && m[2]) prog = m[2];
  prog = prog.replace(/[0-9.]+$/, "");
  return byShebang.get(prog) ?? byShebang.get(m[1].split("/").pop()!);
}

/** The text-only language of a path, if its extension names one. */
export function textLanguageForPath(path: string): string | undefined {
  const ext = extensionOf(path.slice(path.lastIndexOf("/") + 1));
  return ext === undefined ? undefined : TEXT_LANGUAGES[ext];
}

/** Every text-only language id. */
export function textLanguageIds(): string[] {
  return [...new Set(Object.values(TEXT_LANGUAGES))];
}
