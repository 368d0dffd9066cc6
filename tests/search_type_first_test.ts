/**
 * When a type and its options/props/config declaration both match a prose
 * query, the type itself comes first (and is not folded into one of its
 * methods); a query naming the companion still finds the companion.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { searchCode } from "../src/query/search_code.ts";

function routerSource(): string {
  const methods = Array.from(
    { length: 8 },
    (_, i) => `  route${i}(workspace: string): string {\n    return this.options.cwd + workspace + "${i}";\n  }\n`,
  ).join("\n");
  return `/** Options of the workspace router. */
export interface RouterOptions {
  /** Workspaces the router knows at start. */
  startupWorkspaces: string[];
  /** Whether the router registers unknown workspaces. */
  autoWorkspace: boolean;
  cwd: string;
}

/** Routes each call to its workspace. */
export class WorkspaceRouter {
  constructor(readonly options: RouterOptions) {
    this.options = options;
  }

${methods}}
`;
}

Deno.test("search_code: the type before its options interface for 'where is the workspace router'", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-type-first-" });
  Deno.mkdirSync(join(dir, "src"));
  Deno.writeTextFileSync(join(dir, "src", "workspace_router.ts"), routerSource());
  Deno.writeTextFileSync(
    join(dir, "src", "runtime.ts"),
    `import { type RouterOptions, WorkspaceRouter } from "./workspace_router.ts";\n` +
      `export function makeRouter(o: RouterOptions): WorkspaceRouter {\n  return new WorkspaceRouter(o);\n}\n`,
  );
  const h = tempHome();
  const readers = new IndexReaders(h.registry);
  try {
    const { project } = await indexDir(h, dir);
    const db = requireIndex(readers.view(project));
    const r = searchCode(db, { query: "where is the workspace router", ranking_explain_level: "full" });
    assert.equal(r.results[0].name, "WorkspaceRouter", JSON.stringify(r.results.slice(0, 3), null, 1));
    assert.equal(r.results[0].kind, "class");
    const options = searchCode(db, { query: "RouterOptions" });
    assert.equal(options.results[0].name, "RouterOptions");
    const words = searchCode(db, { query: "router options" });
    assert.ok(words.results.some((x) => x.name === "RouterOptions"), JSON.stringify(words.results.map((x) => x.name)));
  } finally {
    readers.closeAll();
    h.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
