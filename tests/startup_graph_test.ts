/**
 * What a command loads before it answers: the modules `main.ts` imports
 * statically on the way to `--version`, a query (`search`, `locate`, …) or
 * `refs`/`callgraph` use only Node built-ins, never the MCP SDK, zod or the
 * tree-sitter runtime (those load with the command that needs them), and
 * `--version` loads nothing but the version.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize } from "node:path";
import { REPO_ROOT } from "./mcp_helpers.ts";

/** Static (value) imports and re-exports of a module: `import type` and `import("…")` are not followed. */
const STATIC_IMPORT = /^(?:import|export)\s+(?!type\b)(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/gm;
const TYPE_ONLY = /^import\s*\{\s*(?:type\s+\w+\s*(?:as\s+\w+\s*)?,?\s*)+\}/;

/** Every module reached from `entry` through static imports, and the bare specifiers (packages) they name. */
function staticGraph(entry: string): { modules: Set<string>; packages: Set<string> } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const walk = (file: string) => {
    if (modules.has(file)) return;
    modules.add(file);
    const src = Deno.readTextFileSync(file);
    for (const m of src.matchAll(STATIC_IMPORT)) {
      if (TYPE_ONLY.test(m[0])) continue;
      const spec = m[1];
      if (spec.startsWith(".")) walk(normalize(join(dirname(file), spec)));
      else packages.add(spec);
    }
  };
  walk(join(REPO_ROOT, entry));
  return { modules, packages };
}

Deno.test("--version loads only the version module", () => {
  const { modules, packages } = staticGraph("main.ts");
  assert.deepEqual([...modules].map((m) => m.slice(REPO_ROOT.length)).sort(), ["main.ts", "src/core/version.ts"]);
  assert.deepEqual([...packages], []);
});

Deno.test("the CLI loads Node built-ins only: no SDK, zod or tree-sitter, and no tool", () => {
  const { modules, packages } = staticGraph("src/cli/main.ts");
  const foreign = [...packages].filter((p) => !p.startsWith("node:"));
  assert.deepEqual(foreign, [], `src/cli/main.ts loads ${foreign.join(", ")}`);
  assert.ok(modules.size > 5, "the walk found its imports");
  assert.ok(![...modules].some((m) => m.includes("/src/service/")), "src/cli/main.ts loads no tool");
});

Deno.test("a tool command loads the service and zod, never the MCP SDK or tree-sitter", () => {
  const { modules, packages } = staticGraph("src/cli/commands/tool_command.ts");
  const foreign = [...packages].filter((p) => !p.startsWith("node:")).sort();
  assert.deepEqual(foreign, ["zod"], `tool commands load ${foreign.join(", ")}`);
  assert.ok([...modules].some((m) => m.endsWith("/src/service/dispatch.ts")), "through the service's dispatch");
  assert.ok(![...modules].some((m) => m.includes("/src/mcp/")), "no transport");
});
