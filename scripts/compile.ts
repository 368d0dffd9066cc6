/**
 * Builds the single `cruxe` executable: grammars and every worker module
 * embedded, the permissions and V8 flags of the `cruxe` task baked in, and the npm
 * packages the program never imports (grammar sources whose `.wasm` files
 * `grammars/` holds, type definitions) left out. Extra arguments (e.g.
 * `--target aarch64-apple-darwin --output dist/cruxe-arm64`) go to
 * `deno compile`. Offline, `DENORT_BIN` names a local `denort` of the same
 * Deno version for `deno compile` to build on.
 * Run: deno task compile [--target T] [--output PATH]
 */
import { join } from "node:path";

const root = new URL("../", import.meta.url);

/**
 * The V8 flags every Cruxe process runs with, as the `cruxe`, `serve` and
 * `bench` tasks in deno.json spell them (a test holds them together): young
 * generation semi-spaces of at most 8 MiB instead of 16, and an old
 * generation that grows by a fifth of what a collection leaves live before
 * the next one (V8 otherwise lets it reach up to four times that). The main
 * thread, the job worker and every parse worker each hold a heap of their
 * own, and parsers and the writer turn over most of what they allocate: on the
 * Go tree with 2 parse workers the semi-space cap takes the cold index's peak
 * RSS from 630-670 MiB to 510-525 MiB at the same CPU time, the growth bound
 * each heap from 55-90 MiB to about 40 MiB (peak 495-545 to 395-400 MiB).
 */
export const V8_FLAGS = ["--v8-flags=--max-semi-space-size=8,--heap-growing-percent=20"];

/** Every `*_worker.ts` under src/: workers are loaded by URL, so compile must be told about them. */
export function workerModules(dir: URL, rel = "src/"): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    if (e.isDirectory) out.push(...workerModules(new URL(e.name + "/", dir), rel + e.name + "/"));
    else if (e.name.endsWith("_worker.ts")) out.push(rel + e.name);
  }
  return out.sort();
}

/** A bare import specifier's package name (`@scope/name/sub` → `@scope/name`); null for any other specifier. */
function packageOf(specifier: string): string | null {
  const m = specifier.match(/^((?:@[a-z0-9._-]+\/)?[a-z0-9._-]+)(?:\/[\w./-]*)?$/i);
  return m && !specifier.startsWith(".") ? m[1] : null;
}

/** The packages one module imports (`from "x"`, `import "x"`, `import("x")`). */
function importsOf(file: URL): string[] {
  const text = Deno.readTextFileSync(file);
  return [...text.matchAll(/(?:^|[\s;])(?:from|import)\s*\(?\s*"([^"\s]+)"/gm)]
    .map((m) => packageOf(m[1]))
    .filter((p): p is string => p !== null);
}

/** Every package the `.ts` modules under `dir` import. */
export function importedPackages(dir: URL): Set<string> {
  const out = new Set<string>();
  for (const e of Deno.readDirSync(dir)) {
    const u = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory) { for (const p of importedPackages(u)) out.add(p); }
    else if (e.name.endsWith(".ts")) { for (const p of importsOf(u)) out.add(p); }
  }
  return out;
}

/**
 * The `package.json` dependencies that neither `main.ts` nor any module under
 * `src/` imports: build inputs (the grammar packages `grammars/` is copied
 * from, type definitions), which the executable does not need.
 */
export function buildOnlyPackages(rootDir: URL): string[] {
  const pkg = JSON.parse(Deno.readTextFileSync(new URL("package.json", rootDir)));
  const used = new Set([...importedPackages(new URL("src/", rootDir)), ...importsOf(new URL("main.ts", rootDir))]);
  const declared = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies });
  return declared.filter((p) => !used.has(p)).sort();
}

/**
 * The `deno` arguments that build the executable from the checkout at
 * `rootDir`, with `extra` (target, output) passed on. The served MCP server
 * runs in a Worker holding narrowed permissions, an option Deno gates behind
 * `--unstable-worker-options`: without it `serve-mcp` refuses to start.
 */
export function compileArgs(rootDir: URL, extra: string[]): string[] {
  const args = [...extra];
  if (!args.includes("--output") && !args.includes("-o")) args.push("--output", "dist/cruxe");
  const includes = ["grammars", ...workerModules(new URL("src/", rootDir))].flatMap((p) => ["--include", p]);
  // Excludes name the real folder: `node_modules` may be a link to a shared one.
  const modules = Deno.realPathSync(new URL("node_modules", rootDir));
  const excludes = buildOnlyPackages(rootDir).flatMap((p) => ["--exclude", join(modules, p)]);
  return [
    "compile",
    "--unstable-worker-options",
    ...V8_FLAGS,
    ...includes,
    ...excludes,
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-run",
    "--allow-net",
    "--allow-sys",
    ...args,
    "main.ts",
  ];
}

if (import.meta.main) {
  const cmd = compileArgs(root, Deno.args);
  console.error(`deno ${cmd.join(" ")}`);
  const status = await new Deno.Command(Deno.execPath(), { args: cmd, cwd: root, stdout: "inherit", stderr: "inherit" })
    .spawn().status;
  Deno.exit(status.code);
}
