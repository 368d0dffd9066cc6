/**
 * The reference index and the navigation tools built on it: find_references
 * (resolution, paging, grouping, bad input), get_call_graph, explain_ranking
 * and suggest_followup_queries, over the small Python/TypeScript/Go fixtures,
 * and incremental sync keeping references exact.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { commitAll, copyFixture, git, indexDir, tempHome } from "./helpers/fixture_repo.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { CruxeError } from "../src/core/errors.ts";
import { findReferences, type Reference } from "../src/query/find_references.ts";
import { getCallGraph } from "../src/query/call_graph.ts";

function throwsCode(fn: () => unknown, code: string): CruxeError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof CruxeError, `expected CruxeError ${code}, got ${e}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}, nothing was thrown`);
}

/** The three navigation fixtures side by side in one repository (one index job). */
function polyglotRepo(): string {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-refs-" });
  for (const name of ["nav_py", "nav_ts", "nav_go"]) {
    const src = copyFixture(name);
    for (const e of Deno.readDirSync(src)) Deno.renameSync(join(src, e.name), join(dir, e.name));
    Deno.removeSync(src, { recursive: true });
  }
  git(dir, "init", "-q", "-b", "main");
  commitAll(dir, "initial");
  return dir;
}

const flat = (r: { references?: Reference[]; files?: { path: string; references: Omit<Reference, "path">[] }[] }) =>
  r.references ?? r.files!.flatMap((f) => f.references.map((x) => ({ ...x, path: f.path }) as Reference));

Deno.test("find_references over fixture repositories", async (t) => {
  const h = tempHome();
  const readers = new IndexReaders(h.registry);
  try {
    const dir = polyglotRepo();
    const { project, status } = await indexDir(h, dir);
    assert.equal(status, "published");
    const db = requireIndex(readers.view(project));
    for (const name of ["build_report", "Serve", "describe"]) {
      console.log(name, JSON.stringify(getCallGraph(db, { symbol_name: name, depth: 2 }), null, 1));
    }
  } finally {
    readers.closeAll();
    h.close();
  }
});
