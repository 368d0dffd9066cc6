/**
 * Per-language extraction against hand-checked golden lists
 * (`fixtures/golden/<lang>.json` over `fixtures/repos/<lang>_basic/`), plus
 * language detection and signature shapes.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { parseAndExtract } from "../src/index/parser.ts";
import { languageForPath, languageForShebang } from "../src/index/languages/registry.ts";
import type { FileExtraction } from "../src/core/types.ts";

interface GoldenSymbol {
  name: string;
  kind: string;
  qualified_name: string;
  line_start: number;
  line_end: number;
}

interface Golden {
  language: string;
  fixture: string;
  files: Record<string, { partial: boolean; symbols: GoldenSymbol[] }>;
  refs: { path: string; kind: string; target: string; line: number }[];
}

const ROOT = new URL("../fixtures/", import.meta.url).pathname;

/** Source order; symbols sharing a start line (a typedef and its struct) by kind, then name. */
function byPosition(a: GoldenSymbol, b: GoldenSymbol): number {
  return a.line_start - b.line_start || a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name) ||
    a.qualified_name.localeCompare(b.qualified_name);
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) out.push(...listFiles(p));
    else if (e.isFile) out.push(p);
  }
  return out.sort();
}

/** Language of a fixture file the way the indexer decides it: path first, then `#!`. */
function detect(rel: string, source: string): string | undefined {
  return languageForPath(rel)?.id ??
    (source.startsWith("#!") ? languageForShebang(source.slice(0, source.indexOf("\n") >>> 0))?.id : undefined);
}

/** Extracts every file of the golden's language in its fixture repository. */
async function extractFixture(g: Golden): Promise<Map<string, FileExtraction>> {
  const dir = join(ROOT, "repos", g.fixture);
  const out = new Map<string, FileExtraction>();
  for (const file of listFiles(dir)) {
    const rel = relative(dir, file);
    const source = Deno.readTextFileSync(file);
    if (detect(rel, source) !== g.language) continue;
    out.set(rel, await parseAndExtract(g.language, rel, source));
  }
  return out;
}

const goldens = [...Deno.readDirSync(join(ROOT, "golden"))]
  .filter((e) => e.name.endsWith(".json"))
  .map((e) => JSON.parse(Deno.readTextFileSync(join(ROOT, "golden", e.name))) as Golden)
  .sort((a, b) => a.language.localeCompare(b.language));

Deno.test("golden lists exist for at least twelve languages", () => {
  assert.ok(goldens.length >= 12, `only ${goldens.map((g) => g.language).join(", ")}`);
});

for (const g of goldens) {
  Deno.test(`${g.language}: symbols match the golden list of ${g.fixture}`, async () => {
    const got = await extractFixture(g);
    assert.deepEqual([...got.keys()].sort(), Object.keys(g.files).sort(), "fixture files of this language");
    for (const [path, want] of Object.entries(g.files)) {
      const ex = got.get(path)!;
      const symbols = ex.symbols.map((s) => ({
        name: s.name,
        kind: s.kind,
        qualified_name: s.qualifiedName,
        line_start: s.lineStart,
        line_end: s.lineEnd,
      }));
      assert.deepEqual(symbols.sort(byPosition), [...want.symbols].sort(byPosition), `symbols of ${path}`);
      assert.equal(ex.parseError !== null, want.partial, `partial flag of ${path}`);
      for (const s of ex.symbols) {
        assert.ok(s.signature.length > 0 && !s.signature.includes("\n"), `one-line signature for ${s.qualifiedName}`);
      }
    }
  });

  Deno.test(`${g.language}: references include the hand-picked imports, calls and heritage`, async () => {
    assert.ok(g.refs.length >= 3, "at least three references listed");
    const got = await extractFixture(g);
    for (const r of g.refs) {
      const refs = got.get(r.path)?.refs ?? [];
      assert.ok(
        refs.some((x) => x.kind === r.kind && x.target === r.target && x.line === r.line),
        `missing ${r.kind} ${r.target} at ${r.path}:${r.line}; have ${
          refs.filter((x) => x.kind === r.kind).map((x) => `${x.target}@${x.line}`).join(", ")
        }`,
      );
    }
  });
}

Deno.test("each new language's broken file is flagged partial and keeps definitions after the error", async () => {
  let partialFiles = 0;
  for (const g of goldens) {
    const got = await extractFixture(g);
    for (const [path, want] of Object.entries(g.files)) {
      if (!want.partial) continue;
      partialFiles++;
      const ex = got.get(path)!;
      assert.ok(ex.parseError, `${path} reports its syntax errors`);
      // Each broken fixture declares the damaged definition on a line naming it `broken`/`half...`.
      const lines = Deno.readTextFileSync(join(ROOT, "repos", g.fixture, path)).split("\n");
      const damaged = lines.findIndex((l) => /\b(broken|half_written|Half)\s*[(:]/.test(l)) + 1;
      assert.ok(damaged > 0, `${path} marks its damaged definition`);
      assert.ok(ex.symbols.some((s) => s.lineStart < damaged), `${path}: a definition before the error`);
      assert.ok(ex.symbols.some((s) => s.lineStart > damaged), `${path}: a definition after the error`);
    }
  }
  assert.ok(partialFiles >= 12, `only ${partialFiles} broken fixture files`);
});

Deno.test("languages are detected by extension, special file name and shebang", () => {
  const byPath: Record<string, string> = {
    "src/lib.rs": "rust",
    "A.java": "java",
    "x.c": "c",
    "x.h": "c",
    "x.hpp": "cpp",
    "x.cc": "cpp",
    "Program.cs": "csharp",
    "lib/a.rb": "ruby",
    "Rakefile": "ruby",
    "Gemfile": "ruby",
    "app.gemspec": "ruby",
    "index.php": "php",
    "run.sh": "bash",
    "build.sbt": "scala",
    "lib/a.ex": "elixir",
    "test/a_test.exs": "elixir",
    "src/Main.hs": "haskell",
    "Auth/TokenStore.psm1": "powershell",
    "build.ps1": "powershell",
    "drivers/tty/Kconfig": "kconfig",
    "arch/arm/Kconfig.debug": "kconfig",
    "arch/arm/Kconfig-nommu": "kconfig",
    "scripts/Kconfig.py": "python",
    "package/busybox/Config.in": "kconfig",
  };
  for (const [path, lang] of Object.entries(byPath)) assert.equal(languageForPath(path)?.id, lang, path);
  const byShebang: Record<string, string> = {
    "#!/bin/bash": "bash",
    "#!/bin/sh": "bash",
    "#!/usr/bin/env zsh": "bash",
    "#!/usr/bin/env ruby": "ruby",
    "#!/usr/bin/php": "php",
    "#!/usr/bin/env python3": "python",
    "#!/usr/bin/env pwsh": "powershell",
  };
  for (const [line, lang] of Object.entries(byShebang)) assert.equal(languageForShebang(line)?.id, lang, line);
});

async function symbol(lang: string, path: string, source: string, name: string) {
  const ex = await parseAndExtract(lang, path, source);
  const s = ex.symbols.find((x) => x.name === name);
  assert.ok(s, `${name} in ${ex.symbols.map((x) => x.name).join(", ")}`);
  return s;
}

Deno.test("Go type declarations read like `type Claims struct`", async () => {
  const src = "package auth\n\ntype Claims struct {\n\tSub string\n}\n\ntype List[T any] struct{ items []T }\n\n" +
    "type Duration int64\n\ntype Reader interface{ Read() }\n\ntype ID = string\n";
  assert.equal((await symbol("go", "auth/a.go", src, "Claims")).signature, "type Claims struct");
  assert.equal((await symbol("go", "auth/a.go", src, "List")).signature, "type List[T any] struct");
  assert.equal((await symbol("go", "auth/a.go", src, "Duration")).signature, "type Duration int64");
  assert.equal((await symbol("go", "auth/a.go", src, "Reader")).signature, "type Reader interface");
  assert.equal((await symbol("go", "auth/a.go", src, "ID")).signature, "type ID = string");
});

Deno.test("a C or C++ typedef defines every name it declares: `} MSG, *PTR_MSG;`", async () => {
  const src =
    "typedef struct _MSG {\n  int a;\n} MSG, *PTR_MSG,\n  Msg_t;\n\ntypedef int (*handler_t)(int), counter_t;\n";
  for (const lang of ["c", "cpp"]) {
    const x = await parseAndExtract(lang, "msg.h", src);
    const types = x.symbols.filter((s) => s.kind === "type").map((s) => `${s.name}:${s.lineStart}`);
    assert.deepEqual(types, ["MSG:1", "PTR_MSG:1", "Msg_t:1", "handler_t:6", "counter_t:6"], lang);
    // The struct the typedef defines inline is a symbol of its own.
    assert.deepEqual(x.symbols.filter((s) => s.kind === "struct").map((s) => s.name), ["_MSG"], lang);
  }
});

Deno.test("C and C++ names are found past annotation macros (`static int __init setup(void)`), at their own lines", async () => {
  const src = "static int __init setup(void)\n{\n\treturn 0;\n}\n\n" +
    "void __exit __cold teardown(void) { }\n" +
    "typedef unsigned int __bitwise gfp_t;\n" +
    "struct wire {\n\tint a;\n} __packed;\n" +
    '#define __init __section(".init.text") \\\n\t__cold\n' +
    "/* __init in a comment, */ int __user *uptr;\n";
  for (const lang of ["c", "cpp"]) {
    const x = await parseAndExtract(lang, "init.c", src);
    const at = (kind: string) => x.symbols.filter((s) => s.kind === kind).map((s) => `${s.name}:${s.lineStart}`);
    assert.deepEqual(at("function"), ["setup:1", "teardown:6"], lang);
    assert.deepEqual(at("type"), ["gfp_t:7"], lang);
    assert.deepEqual(at("struct"), ["wire:8"], lang);
    // A `#define` of an annotation still defines it; no annotation is a variable.
    assert.deepEqual(at("macro"), ["__init:11"], lang);
    assert.deepEqual(at("variable"), ["uptr:13"], lang);
    // The signature is the source's, annotation included.
    assert.equal(x.symbols.find((s) => s.name === "setup")!.signature, "static int __init setup(void)", lang);
    // Inside a GCC attribute the same words are the attribute's: left as they are, the file parses cleanly.
    const attr = await parseAndExtract(
      lang,
      "attr.c",
      "__attribute__((noinline, cold))\nint helper(void) { return 0; }\n",
    );
    assert.equal(attr.parseError, null, lang);
    assert.deepEqual(attr.symbols.map((s) => s.name), ["helper"], lang);
  }
});

Deno.test("TS arrow-function variables have a declaration signature; export and decorators keep their lines", async () => {
  const src =
    "import { x } from './x';\n\n/** Handles a request. */\nexport const handler = async (req: Request) => {\n" +
    "  return x(req);\n};\n\n@Component({})\nexport class Widget {}\n";
  const h = await symbol("typescript", "src/api.ts", src, "handler");
  assert.equal(h.signature, "const handler = async (req: Request) =>");
  assert.equal(h.kind, "function");
  assert.equal(h.lineStart, 4);
  assert.equal(h.doc, "Handles a request.");
  const w = await symbol("typescript", "src/api.ts", src, "Widget");
  assert.equal(w.lineStart, 8);
});

Deno.test("Python decorated definitions start at the decorator; module-level names inside try/if count", async () => {
  const src = "try:\n    import ujson as json\n    HAS_UJSON = True\nexcept ImportError:\n    HAS_UJSON = False\n\n" +
    "@cache\ndef load(path):\n    '''Loads a file.'''\n    return json.load(path)\n";
  const f = await symbol("python", "pkg/io.py", src, "load");
  assert.equal(f.lineStart, 7);
  assert.equal(f.lineEnd, 10);
  assert.equal(f.signature, "def load(path)");
  assert.equal(f.doc, "Loads a file.");
  const ex = await parseAndExtract("python", "pkg/io.py", src);
  assert.deepEqual(ex.symbols.filter((s) => s.name === "HAS_UJSON").map((s) => s.lineStart), [3, 5]);
});

Deno.test("doc comments, visibility and signatures come through in every new language", async () => {
  const cases: [string, string, string, { doc?: string | null; visibility?: string | null; signature?: string }][] = [
    ["rust", "src/auth/jwt.rs", "auth::jwt::Claims", { doc: "Claims carried by a token.", visibility: "pub" }],
    ["rust", "src/auth/jwt.rs", "auth::jwt::decode", {
      visibility: "private",
      signature: "fn decode(_token: &str) -> TokenResult",
    }],
    ["rust", "src/lib.rs", "auth", { doc: null }], // `//!` documents the crate, not the next item
    ["java", "src/main/java/com/acme/auth/TokenService.java", "com.acme.auth.TokenService.validate", {
      doc: "Checks a token's signature and expiry.",
      visibility: "public",
      signature: "public boolean validate(String token) throws InvalidTokenException",
    }],
    ["csharp", "src/Auth/TokenService.cs", "Acme.Auth.TokenService", {
      doc: "<summary>Issues and validates session tokens.</summary>",
      signature: "public class TokenService : ServiceBase, IValidator, IDisposable",
    }],
    ["c", "src/session.h", "session_t", {
      doc: "A logged-in user's session.",
      signature: "typedef struct session { … } session_t",
    }],
    ["cpp", "src/token_store.cpp", "acme::auth::TokenStore::contains", {
      doc: "True when the token was issued by this store.",
      signature: "bool TokenStore::contains(const std::string& token) const",
    }],
    ["cpp", "src/token_store.hpp", "acme::auth::TokenStore::tokens_", { visibility: "private" }],
    ["cpp", "src/token_store.hpp", "acme::auth::TokenStore::size", {
      visibility: "public",
      signature: "int size() const",
    }],
    ["ruby", "lib/auth/token.rb", "Auth::Token", { doc: "A signed session token.", signature: "class Token < Base" }],
    ["ruby", "lib/auth/token.rb", "Auth::Token#signature", { visibility: "private" }],
    ["php", "src/Auth/TokenService.php", "App\\Auth\\TokenService::sign", {
      visibility: "private",
      signature: "private function sign(string $value): string",
    }],
    ["bash", "lib/log.sh", "log_info", { doc: "Prints a message with the prefix.", signature: "log_info()" }],
    ["scala", "src/main/scala/acme/auth/TokenService.scala", "acme.auth.TokenService.validate", {
      doc: "Checks a token's expiry.",
    }],
    ["elixir", "lib/auth/token.ex", "Auth.Token.issue", { doc: "Issues a token.", visibility: "public" }],
    ["elixir", "lib/auth/token.ex", "Auth.Token.now", { visibility: "private", signature: "defp now" }],
    ["haskell", "src/Auth/Token.hs", "Auth.Token.Role", { doc: "A user's permission level." }],
    ["haskell", "src/Auth/Token.hs", "Auth.Token.issue", { signature: "issue :: UTCTime -> String -> Token" }],
  ];
  for (const [lang, path, qname, want] of cases) {
    const g = goldens.find((x) => x.language === lang)!;
    const ex = (await extractFixture(g)).get(path)!;
    const s = ex.symbols.find((x) => x.qualifiedName === qname);
    assert.ok(s, `${lang}: ${qname} in ${path}`);
    if ("doc" in want) assert.equal(s.doc, want.doc, `${qname} doc`);
    if ("visibility" in want) assert.equal(s.visibility, want.visibility, `${qname} visibility`);
    if (want.signature) assert.equal(s.signature, want.signature, `${qname} signature`);
  }
});
