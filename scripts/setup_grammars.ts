/**
 * Copies the grammar `.wasm` files (and the tree-sitter runtime) from the
 * installed npm packages into `grammars/`, where the asset loader finds them
 * and `deno compile --include grammars` embeds them.
 * Run: deno run --allow-read --allow-write scripts/setup_grammars.ts [-v]
 * Silent unless `-v` is given: every `deno task cruxe …` runs it first, and its
 * output would otherwise precede every command's.
 */
const root = new URL("../", import.meta.url);
const out = new URL("grammars/", root);
const sources: Record<string, string> = {
  "tree-sitter.wasm": "node_modules/web-tree-sitter/tree-sitter.wasm",
  "tree-sitter-c.wasm": "node_modules/tree-sitter-c/tree-sitter-c.wasm",
  "tree-sitter-scala.wasm": "node_modules/tree-sitter-scala/tree-sitter-scala.wasm",
  "tree-sitter-elixir.wasm": "node_modules/tree-sitter-elixir/tree-sitter-elixir.wasm",
  "tree-sitter-haskell.wasm": "node_modules/tree-sitter-haskell/tree-sitter-haskell.wasm",
  "tree-sitter-kconfig.wasm": "node_modules/tree-sitter-kconfig/tree-sitter-kconfig.wasm",
};
const vscode = new URL("node_modules/@vscode/tree-sitter-wasm/wasm/", root);
for (const e of Deno.readDirSync(vscode)) {
  if (e.name.endsWith(".wasm") && e.name !== "tree-sitter.wasm") {
    sources[e.name] = `node_modules/@vscode/tree-sitter-wasm/wasm/${e.name}`;
  }
}
Deno.mkdirSync(out, { recursive: true });
let n = 0;
for (const [name, rel] of Object.entries(sources)) {
  Deno.copyFileSync(new URL(rel, root), new URL(name, out));
  n++;
}
if (Deno.args.includes("-v") || Deno.args.includes("--verbose")) {
  console.error(`grammars: ${n} files in ${out.pathname}`);
}
