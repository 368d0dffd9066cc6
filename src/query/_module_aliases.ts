/**
 * The module aliases a Python file declares (`import a.b.formats as fmt`,
 * `from a.b import formats as fmt`): alias → the module's last name, read
 * from the file's import lines as indexed; TypeScript and JavaScript
 * namespace imports (`import * as geo from "./shapes.ts"`: geo → shapes).
 * Other languages: none.
 */
import type { Db } from "../state/db.ts";
import { importLineRange } from "../state/read/edges.ts";
import { fileLines } from "./_file_lines.ts";
import { referencesInLines } from "../state/read/references.ts";

/** Alias → module name of `path`'s import statements (empty for a file without aliases or not Python). */
export function moduleAliases(db: Db, path: string): Map<string, string> {
  const aliases = new Map<string, string>();
  if (/\.[cm]?[jt]sx?$/.test(path)) return namespaceImports(db, path);
  if (!path.endsWith(".py")) return aliases;
  const { lo, hi } = importLineRange(db, path);
  if (lo !== null && hi !== null && hi - lo < 500) {
    for (const line of fileLines(db, path, lo, hi)) {
      const direct = line.match(/^\s*import\s+([\w.]+)\s+as\s+(\w+)\s*$/);
      if (direct) aliases.set(direct[2], direct[1].split(".").pop()!);
      const from = line.match(/^\s*from\s+[\w.]+\s+import\s+(.+)$/);
      if (!from) continue;
      for (const part of from[1].replace(/[()]/g, "").split(",")) {
        const m = part.trim().match(/^(\w+)\s+as\s+(\w+)$/);
        if (m) aliases.set(m[2], m[1]);
      }
    }
  }
  return aliases;
}

/** Alias → module name of a TypeScript or JavaScript file's `import * as alias from "…/name.ts"` lines. */
function namespaceImports(db: Db, path: string): Map<string, string> {
  const aliases = new Map<string, string>();
  // The lines holding imported names (of the first 500: imports come first).
  const lines = new Set(referencesInLines(db, path, 1, 500).filter((r) => r.kind === "import").map((r) => r.line));
  for (const n of lines) {
    const m = fileLines(db, path, n, n)[0]?.match(/^\s*import\s+\*\s+as\s+([\w$]+)\s+from\s+["']([^"']+)["']/);
    if (!m) continue;
    const parts = m[2].replace(/\.[^./]+$/, "").split("/");
    const last = parts.pop() ?? "";
    aliases.set(m[1], last === "index" ? parts.pop() ?? last : last);
  }
  return aliases;
}
