/**
 * Lists the functions and methods of `src/` longer than a limit (80 lines by
 * default), found with the same TypeScript grammar Cruxe indexes with. A
 * function is any function declaration, method, function expression or
 * arrow function; its name is its own, the variable or property it is
 * assigned to, or the name of the function holding it. A nested function
 * counts on its own and inside its holder. Unit tests (`*_test.ts`) are not
 * counted. `tests/long_functions_test.ts` holds the list of the long
 * functions allowed, each with its reason.
 *
 * Usage: deno run --allow-read scripts/long_functions.ts [--max N]
 * Requires `--allow-read` on `src/` and `grammars/`.
 */
import { join, relative } from "node:path";
import { Language, type Node, Parser } from "web-tree-sitter";
import { readGrammar } from "../src/io/grammar_assets.ts";

/** One function over the limit. */
export interface LongFunction {
  /** Path relative to the repository root, e.g. `src/query/locate_symbol.ts`. */
  file: string;
  /** `name`, `Class.method`, or `holder/<arrow>` for an unnamed function. */
  name: string;
  line: number;
  lines: number;
}

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const FUNCTION_NODES = new Set([
  "function_declaration",
  "generator_function_declaration",
  "method_definition",
  "function_expression",
  "arrow_function",
]);

/** Every `.ts` file under `dir`, sorted, as absolute paths. */
function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of [...Deno.readDirSync(dir)].sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, e.name);
    if (e.isDirectory) out.push(...tsFiles(p));
    else if (e.isFile && e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) out.push(p);
  }
  return out;
}

/** The name a function node goes by (see the module comment). */
function nameOf(node: Node, holder: string | null): string {
  const own = node.childForFieldName("name")?.text;
  if (node.type === "method_definition") {
    let up: Node | null = node.parent;
    while (up && up.type !== "class_declaration" && up.type !== "class") up = up.parent;
    const cls = up?.childForFieldName("name")?.text;
    return cls ? `${cls}.${own}` : own ?? "<method>";
  }
  if (own) return own;
  const p = node.parent;
  if (p?.type === "variable_declarator") return p.childForFieldName("name")?.text ?? "<anonymous>";
  if (p?.type === "pair") return `${holder ? holder + "/" : ""}${p.childForFieldName("key")?.text}`;
  if (p?.type === "public_field_definition") return p.childForFieldName("name")?.text ?? "<field>";
  return `${holder ?? "<module>"}/<${node.type === "arrow_function" ? "arrow" : "function"}>`;
}

/** Functions and methods of `src/` over `maxLines` lines, in file order. Requires `--allow-read`. */
export async function longFunctions(maxLines = 80, root = ROOT): Promise<LongFunction[]> {
  await Parser.init({ wasmBinary: readGrammar("tree-sitter.wasm") } as unknown as object);
  const parser = new Parser();
  parser.setLanguage(await Language.load(readGrammar("tree-sitter-typescript.wasm")));
  const out: LongFunction[] = [];
  for (const path of tsFiles(join(root, "src"))) {
    const tree = parser.parse(Deno.readTextFileSync(path));
    if (!tree) continue;
    const file = relative(root, path);
    const visit = (node: Node, holder: string | null) => {
      let inner = holder;
      if (FUNCTION_NODES.has(node.type)) {
        const name = nameOf(node, holder);
        const lines = node.endPosition.row - node.startPosition.row + 1;
        if (lines > maxLines) out.push({ file, name, line: node.startPosition.row + 1, lines });
        inner = name;
      }
      for (const child of node.namedChildren) if (child) visit(child, inner);
    };
    visit(tree.rootNode, null);
    tree.delete();
  }
  parser.delete();
  return out;
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--max");
  const max = at >= 0 ? Number(Deno.args[at + 1]) : 80;
  for (const f of await longFunctions(max)) console.log(`${f.file}:${f.line}\t${f.lines} lines\t${f.name}`);
}
