/** Small helpers shared by language specs. */
import type { Node } from "web-tree-sitter";

/** Text of the named children of `node` of the given types (identifiers of a base list). */
export function namesOfType(node: Node | null, types: string[]): string[] {
  if (!node) return [];
  const out: string[] = [];
  const walk = (n: Node) => {
    if (types.includes(n.type)) {
      out.push(n.text.replace(/<[\s\S]*$/, "").trim());
      return;
    }
    for (const c of n.namedChildren) if (c) walk(c);
  };
  walk(node);
  return out;
}

/** First named child of one of the given types. */
export function childOfType(node: Node, types: string[]): Node | null {
  for (const c of node.namedChildren) if (c && types.includes(c.type)) return c;
  return null;
}

/** Strips quotes from a string literal's text. */
export function unquote(text: string): string {
  return text.replace(/^[`'"<]+|[`'">]+$/g, "");
}

/** Path without extension, split on `/`. */
export function pathStem(path: string): string[] {
  return path.replace(/\.[^./]+$/, "").split("/").filter(Boolean);
}
