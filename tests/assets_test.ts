import assert from "node:assert/strict";
import { grammarUrl, readGrammar } from "../src/index/grammar_assets.ts";
import { LANGUAGES } from "../src/index/languages/registry.ts";
import { parseAndExtract } from "../src/index/parser.ts";
import { workerModules } from "../scripts/compile.ts";

Deno.test("every language's grammar loads through the one asset loader, from any working directory", async () => {
  const cwd = Deno.cwd();
  Deno.chdir(Deno.makeTempDirSync());
  try {
    for (const l of LANGUAGES) {
      const bytes = readGrammar(l.grammar);
      assert.deepEqual([...bytes.slice(0, 4)], [0, 0x61, 0x73, 0x6d], `${l.grammar} is WebAssembly`);
      assert.ok(grammarUrl(l.grammar).pathname.endsWith(`/grammars/${l.grammar}`));
      const r = await parseAndExtract(l.id, `x${l.extensions[0] ?? ""}`, "");
      assert.equal(r.symbols.length, 0);
    }
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
