/**
 * The mutation table stays runnable as the code moves: every row's `find`
 * text is in its file (exactly once, or at least once for an `all` row), its
 * test file exists, ids are unique, and tests/README.md lists every row. A
 * row whose text no longer matches breaks nothing and so tests nothing.
 */
import assert from "node:assert/strict";
import { MUTATIONS } from "../scripts/mutation_check.ts";

const ROOT = new URL("..", import.meta.url).pathname;

Deno.test("every mutation row's text is in its file, its test exists, and the README lists it", () => {
  const readme = Deno.readTextFileSync(`${ROOT}tests/README.md`);
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const m of MUTATIONS) {
    if (ids.has(m.id)) problems.push(`${m.id}: id used twice`);
    ids.add(m.id);
    const count = Deno.readTextFileSync(`${ROOT}${m.file}`).split(m.find).length - 1;
    if (count === 0 || (count > 1 && !m.all)) problems.push(`${m.id}: its text occurs ${count} times in ${m.file}`);
    try {
      Deno.statSync(`${ROOT}${m.test}`);
    } catch {
      problems.push(`${m.id}: no test file ${m.test}`);
    }
    if (!readme.includes(`| ${m.id} `)) problems.push(`${m.id}: not in tests/README.md`);
  }
  assert.deepEqual(problems, []);
});
