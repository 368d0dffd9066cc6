/**
 * The layers of `src/` import one way: core → io → state → index | query →
 * service → mcp → cli. Read from every import of every module (static,
 * re-export and dynamic `import()`), so a change that breaks the direction
 * fails here and names the import:
 *
 * - `core` imports only core (pure vocabulary); `io` (git, safe open, HTTP
 *   clients, locks) only core; `state` (storage, split into `read/` and
 *   `write/`) only core and io;
 * - `index` (writing the index) and `query` (answering) never import each
 *   other; both build on state;
 * - `query` and `service` reach `index/` only to start and follow jobs,
 *   through the modules in JOB_STARTING_MODULES;
 * - `service` (the runtime, routing and the one `call` entry with every
 *   tool's definition) knows no transport; `mcp` (stdio, HTTP, the status
 *   page) and `cli` reach the index only through it: `cli` imports from
 *   `mcp` only the transports it starts (CLI_TRANSPORTS), and neither
 *   imports `query/` or `index/` modules that answer or build (the CLI's
 *   own commands for jobs, status and diagnostics excepted: CLI_DIRECT);
 * - `state/read/` never imports `state/write/`;
 * - no module of `src/` is part of an import cycle (type-only imports count:
 *   a type lives where it is produced, beside what both sides import).
 */
import assert from "node:assert/strict";
import { dirname, join, normalize } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** The layers, lowest first. */
const LAYERS = ["core", "io", "state", "index", "query", "service", "mcp", "cli"] as const;
type Layer = typeof LAYERS[number];

/** Which layers each layer may import (besides itself). */
const MAY_IMPORT: Record<Layer, Layer[]> = {
  core: [],
  io: ["core"],
  state: ["core", "io"],
  index: ["core", "io", "state"],
  query: ["core", "io", "state", "index"],
  service: ["core", "io", "state", "index", "query"],
  mcp: ["core", "io", "state", "service"],
  cli: ["core", "io", "state", "index", "query", "service", "mcp"],
};

/** The modules of `mcp/` the CLI may import: the transports `serve-mcp` starts and their flags. */
const CLI_TRANSPORTS = new Set([
  "src/mcp/stdio.ts",
  "src/mcp/http.ts",
  "src/mcp/serve_options.ts",
  "src/mcp/protocol_server.ts",
]);

/**
 * The CLI modules that may import `query/` or `index/` directly: indexing, status, watching and diagnostics
 * (the jobs the CLI runs itself). Every query command goes through `service/`.
 */
const CLI_DIRECT =
  /^src\/cli\/(commands\/(index_cmd|team_cmds|status|watch|doctor\w*|serve_cmd|serve_mcp)|sandbox\w*|context|error_candidates|explain|completions|help|command_table|args|project_arg)\.ts$/;

/** The modules of `index/` that `query` and `mcp` may import: they start jobs and report on them. */
const JOB_STARTING_MODULES = new Set([
  "src/index/job_runner.ts",
  "src/index/embed_runner.ts",
  "src/index/live_indexer.ts",
]);

/** `import … from "x"`, `export … from "x"`, `import "x"` at the start of a line, and `import("x")`. */
const IMPORT =
  /(?:^|\n)[ \t]*(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']|(?:^|\n)[ \t]*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** Every `.ts` module under `dir`, relative to the repository root. */
function modules(dir: string): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(join(ROOT, dir))) {
    const p = join(dir, e.name);
    if (e.isDirectory) out.push(...modules(p));
    else if (e.isFile && e.name.endsWith(".ts")) out.push(p);
  }
  return out.sort();
}

/** The `src/` modules each module imports (relative specifiers only; packages are not layers). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of modules("src")) {
    const text = Deno.readTextFileSync(join(ROOT, file));
    const targets = new Set<string>();
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec.startsWith(".")) targets.add(normalize(join(dirname(file), spec)));
    }
    graph.set(file, [...targets].filter((t) => t.startsWith("src/")).sort());
  }
  return graph;
}

function layerOf(file: string): Layer {
  const layer = file.split("/")[1] as Layer;
  if (!LAYERS.includes(layer)) throw new Error(`${file} is in no layer (src/<layer>/...)`);
  return layer;
}

/** Why `from` may not import `to`, or null when it may. */
function breach(from: string, to: string): string | null {
  const a = layerOf(from);
  const b = layerOf(to);
  if (from.startsWith("src/state/read/") && to.startsWith("src/state/write/")) {
    return "state/read may not import state/write";
  }
  if (a === b) return null;
  if (!MAY_IMPORT[a].includes(b)) return `${a} may import only ${MAY_IMPORT[a].join(", ") || "itself"}`;
  if (a === "cli" && b === "mcp" && !CLI_TRANSPORTS.has(to)) {
    return `cli may import from mcp only ${[...CLI_TRANSPORTS].join(", ")}`;
  }
  if (a === "cli" && (b === "query" || b === "index") && !CLI_DIRECT.test(from)) {
    return `cli reaches ${b} through service (only ${CLI_DIRECT.source} may import it)`;
  }
  if (a === "query" && b === "index" || a === "service" && b === "index") {
    if (JOB_STARTING_MODULES.has(to)) return null;
    return `${a} may import index only to start jobs (${[...JOB_STARTING_MODULES].join(", ")})`;
  }
  return null;
}

/** Modules on an import cycle, one list per cycle (strongly connected components of more than one module). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

Deno.test("every import of src/ runs down the layers (core, io, state, index | query, service, mcp, cli)", () => {
  const graph = importGraph();
  const offending: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const why = breach(from, to);
      if (why) offending.push(`${from} imports ${to}: ${why}`);
    }
  }
  assert.deepEqual(offending, [], `imports against the layers:\n${offending.join("\n")}`);
});

/** One shortest cycle through the first module of `component`, as `a -> b -> a`. */
function cyclePath(graph: Map<string, string[]>, component: string[]): string {
  const inside = new Set(component);
  const start = component[0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!inside.has(w) || cameFrom.has(w)) continue;
      cameFrom.set(w, v);
      if (w === start) queue.length = 0;
      else queue.push(w);
    }
  }
  const path = [start];
  for (let v = cameFrom.get(start)!; v !== start; v = cameFrom.get(v)!) path.unshift(v);
  return [start, ...path].join(" -> ");
}

Deno.test("no module of src/ is on an import cycle", () => {
  const graph = importGraph();
  const found = cycles(graph).map((c) => cyclePath(graph, c));
  assert.deepEqual(found, [], `import cycles:\n${found.join("\n")}`);
});

Deno.test("the layer rules catch what they forbid", () => {
  assert.deepEqual(breach("src/core/ids.ts", "src/state/db.ts"), "core may import only itself");
  assert.deepEqual(breach("src/state/db.ts", "src/index/scan.ts"), "state may import only core, io");
  assert.deepEqual(breach("src/io/git.ts", "src/state/db.ts"), "io may import only core");
  assert.equal(breach("src/mcp/stdio.ts", "src/query/search_code.ts"), "mcp may import only core, io, state, service");
  assert.equal(breach("src/service/x.ts", "src/mcp/stdio.ts")?.startsWith("service may import only"), true);
  assert.equal(breach("src/cli/commands/tool_command.ts", "src/service/dispatch.ts"), null);
  assert.equal(
    breach("src/cli/commands/x.ts", "src/query/search_code.ts")?.startsWith("cli reaches query"),
    true,
  );
  assert.equal(breach("src/cli/commands/serve_mcp.ts", "src/mcp/stdio.ts"), null);
  assert.equal(breach("src/cli/commands/serve_mcp.ts", "src/mcp/status_page.ts")?.startsWith("cli may import"), true);
  assert.equal(breach("src/state/read/x.ts", "src/state/write/y.ts"), "state/read may not import state/write");
  assert.deepEqual(breach("src/query/x.ts", "src/index/indexer.ts")?.startsWith("query may import index only"), true);
  assert.deepEqual(breach("src/index/x.ts", "src/query/locate_symbol.ts"), "index may import only core, io, state");
  assert.deepEqual(breach("src/service/x.ts", "src/index/job_runner.ts"), null);
  assert.deepEqual(breach("src/cli/commands/index_cmd.ts", "src/index/scan.ts"), null);
  const graph = new Map([["src/mcp/a.ts", ["src/mcp/b.ts"]], ["src/mcp/b.ts", ["src/mcp/a.ts"]]]);
  assert.deepEqual(cycles(graph), [["src/mcp/a.ts", "src/mcp/b.ts"]]);
  assert.equal(cyclePath(graph, ["src/mcp/a.ts", "src/mcp/b.ts"]), "src/mcp/a.ts -> src/mcp/b.ts -> src/mcp/a.ts");
  const text =
    'import type {\n  A,\n} from "../state/db.ts";\nexport { b } from "./b.ts";\nconst m = await import("./c.ts");\n';
  assert.deepEqual([...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3]), ["../state/db.ts", "./b.ts", "./c.ts"]);
});
