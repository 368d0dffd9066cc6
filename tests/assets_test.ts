import assert from "node:assert/strict";
import { grammarUrl, readGrammar } from "../src/io/grammar_assets.ts";
import { LANGUAGES } from "../src/index/languages/registry.ts";
import { parseAndExtract } from "../src/index/parser.ts";
import { buildOnlyPackages, compileArgs, importedPackages, V8_FLAGS, workerModules } from "../scripts/compile.ts";
import { CRUXE_FLAGS } from "./mcp_helpers.ts";

/** One definition per language: what the grammar, loaded from another directory, must extract. */
const SAMPLES: Record<string, [string, string]> = {
  go: ["package p\n\nfunc Probe() {}\n", "Probe"],
  python: ["def probe():\n    return 1\n", "probe"],
  typescript: ["export function probe(): number { return 1; }\n", "probe"],
  tsx: ["export function Probe() { return <div />; }\n", "Probe"],
  javascript: ["function probe() { return 1; }\n", "probe"],
  rust: ["pub fn probe() -> u8 { 1 }\n", "probe"],
  java: ["class Probe { void run() {} }\n", "Probe"],
  c: ["int probe(void) { return 1; }\n", "probe"],
  cpp: ["class Probe { public: int run(); };\n", "Probe"],
  csharp: ["class Probe { void Run() {} }\n", "Probe"],
  ruby: ["def probe\n  1\nend\n", "probe"],
  php: ["<?php\nfunction probe() { return 1; }\n", "probe"],
  bash: ["probe() {\n  echo 1\n}\n", "probe"],
  scala: ["object Probe { def run(): Int = 1 }\n", "Probe"],
  elixir: ["defmodule Probe do\n  def run, do: 1\nend\n", "Probe"],
  haskell: ["probe :: Int\nprobe = 1\n", "probe"],
  powershell: ["function Get-Probe { 1 }\n", "Get-Probe"],
  kconfig: ['config PROBE\n\tbool "probe"\n', "PROBE"],
};

Deno.test("every language's grammar loads through the one asset loader and extracts, from any working directory", async () => {
  const cwd = Deno.cwd();
  Deno.chdir(Deno.makeTempDirSync());
  try {
    assert.deepEqual(LANGUAGES.map((l) => l.id).sort(), Object.keys(SAMPLES).sort(), "a sample for every language");
    for (const l of LANGUAGES) {
      const bytes = readGrammar(l.grammar);
      assert.deepEqual([...bytes.slice(0, 4)], [0, 0x61, 0x73, 0x6d], `${l.grammar} is WebAssembly`);
      assert.ok(grammarUrl(l.grammar).pathname.endsWith(`/grammars/${l.grammar}`));
      const [source, name] = SAMPLES[l.id];
      const r = await parseAndExtract(l.id, l.extensions.length ? `x${l.extensions[0]}` : l.filenames![0], source);
      assert.equal(r.parseError, null, `${l.id}: ${r.parseError}`);
      assert.ok(r.symbols.some((s) => s.name === name), `${l.id}: ${name} not in ${r.symbols.map((s) => s.name)}`);
    }
    assert.throws(() => readGrammar("tree-sitter-missing.wasm"), Deno.errors.NotFound);
  } finally {
    Deno.chdir(cwd);
  }
});

Deno.test("the compile script embeds every worker module the code starts", () => {
  const src = new URL("../src/", import.meta.url);
  const started = new Set<string>();
  const walk = (dir: URL) => {
    for (const e of Deno.readDirSync(dir)) {
      const u = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
      if (e.isDirectory) walk(u);
      else if (e.name.endsWith(".ts")) {
        for (
          const m of Deno.readTextFileSync(u).matchAll(/new URL\("\.\/([a-z_]+_worker\.ts)", import\.meta\.url\)/g)
        ) {
          started.add(m[1]);
        }
      }
    }
  };
  walk(src);
  const embedded = workerModules(src).map((p) => p.split("/").pop());
  assert.ok(started.size >= 2, "parse and job workers are started by URL");
  for (const w of started) assert.ok(embedded.includes(w), `${w} is embedded by the compile task`);
  const json = JSON.parse(Deno.readTextFileSync(new URL("../deno.json", import.meta.url)));
  assert.match(JSON.stringify(json.tasks.compile), /scripts\/compile\.ts/);
});

Deno.test("the compile task leaves out only npm packages the program never imports (grammar sources, types)", () => {
  const root = new URL("../", import.meta.url);
  const left = buildOnlyPackages(root);
  const used = importedPackages(new URL("src/", root));
  for (const p of ["web-tree-sitter", "zod", "@modelcontextprotocol/sdk"]) {
    assert.ok(used.has(p), `${p} is imported`);
    assert.ok(!left.includes(p), `${p} is embedded`);
  }
  // Each package left out is type definitions, one whose .wasm the grammar setup copies into grammars/, Deno
  // itself (what the checkout's `bin/cruxe` runs; the executable embeds its own runtime), or a benchmark's oracle
  // that only scripts/ import (the TypeScript compiler).
  const setup = Deno.readTextFileSync(new URL("scripts/setup_grammars.ts", root));
  const scriptsOnly = importedPackages(new URL("scripts/", root));
  assert.ok(left.includes("tree-sitter-haskell"), JSON.stringify(left));
  const launcher = Deno.readTextFileSync(new URL("bin/cruxe", root));
  for (const p of left) {
    const runtime = p === "deno" && launcher.includes("node_modules/deno/deno");
    assert.ok(p.startsWith("@types/") || setup.includes(`node_modules/${p}/`) || runtime || scriptsOnly.has(p), p);
  }
});

Deno.test("the compile command allows the sandbox worker's narrowed permissions and embeds that worker", () => {
  const cmd = compileArgs(new URL("../", import.meta.url), ["--target", "x86_64-unknown-linux-gnu"]);
  assert.ok(cmd.includes("--unstable-worker-options"), "serve-mcp runs in a Worker with deno.permissions");
  assert.ok(cmd.join(" ").includes("--include src/cli/sandbox_worker.ts"));
  assert.deepEqual(cmd.slice(-4), ["x86_64-unknown-linux-gnu", "--output", "dist/cruxe", "main.ts"]);
});

Deno.test("the cruxe, serve and bench tasks, the executable and the test launches share the V8 flags", () => {
  const tasks = JSON.parse(Deno.readTextFileSync(new URL("../deno.json", import.meta.url))).tasks;
  assert.ok(V8_FLAGS.some((f) => f.includes("max-semi-space-size")), "young generation bounded");
  assert.ok(V8_FLAGS.some((f) => /heap-growing-percent=\d+/.test(f)), "old generation growth bounded");
  for (const task of ["cruxe", "serve", "bench"]) {
    const words = (typeof tasks[task] === "string" ? tasks[task] : tasks[task].command as string).split(" ");
    for (const f of V8_FLAGS) assert.ok(words.includes(f), `${task} task runs with ${f}`);
  }
  const cmd = compileArgs(new URL("../", import.meta.url), []);
  for (const f of V8_FLAGS) {
    assert.ok(cmd.includes(f), `the executable is compiled with ${f}`);
    assert.ok(CRUXE_FLAGS.includes(f), `tests and benches launch cruxe with ${f}`);
  }
});
