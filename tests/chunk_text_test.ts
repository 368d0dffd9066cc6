/**
 * The working tree's index keeps no chunk text: it is cut from the file,
 * verified by the digest the index recorded. A file that changed since it
 * was indexed never gives its new text as the indexed one: not after a
 * change of size, and not after a change of the same size with the mtime
 * put back (only the digest tells those apart).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { commitAll, git, indexDir, tempHome, withIndex } from "./helpers/fixture_repo.ts";
import { bodyOf, inProcess } from "./mcp_helpers.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { refsStorePath } from "../src/state/ref_stores.ts";
import { searchCode } from "../src/query/search_code.ts";
import { fileLines } from "../src/query/_file_lines.ts";
import { CruxeError } from "../src/core/errors.ts";
import { migrate, PROJECT_MIGRATIONS } from "../src/state/schema.ts";
import { openDb } from "../src/state/db.ts";
import { indexPath } from "../src/state/project_index.ts";

const SOURCE = `package pay

// settleLedgerBalance moves the quarterly ledger balance.
func settleLedgerBalance(amount int) int {
\treturn amount * 2
}

func other() int {
\treturn 7
}
`;

/** What a query answered: the snippets, or the registry code it threw. */
function answer(run: () => { results: { snippet?: string }[] }): { snippets: string[]; code: string | null } {
  try {
    return { snippets: run().results.map((r) => r.snippet ?? ""), code: null };
  } catch (e) {
    if (e instanceof CruxeError) return { snippets: [], code: e.code };
    throw e;
  }
}

Deno.test("chunk text comes from the file, and a changed file never gives its new text as the indexed one", async (t) => {
  const h = tempHome();
  const repo = Deno.makeTempDirSync({ prefix: "cruxe-chunk-text-" });
  const file = join(repo, "pay.go");
  try {
    Deno.writeTextFileSync(file, SOURCE);
    const { project, status } = await indexDir(h, repo);
    assert.equal(status, "published");
    const search = (db: Parameters<typeof searchCode>[0]) => () => searchCode(db, { query: "settleLedgerBalance" });

    await t.step("the index stores no chunk text, and answers show the file's lines", () => {
      withIndex(h, project.project_id, (db) => {
        const stored = db.prepare("SELECT count(*) AS n, count(content) AS t FROM chunk_rows").get() as {
          n: number;
          t: number;
        };
        assert.ok(stored.n > 0, "the file has chunks");
        assert.equal(stored.t, 0, "no chunk row holds text");
        const a = answer(search(db));
        assert.equal(a.code, null);
        assert.ok(
          a.snippets.some((s) => s.includes("func settleLedgerBalance(amount int) int {")),
          a.snippets.join("|"),
        );
        assert.deepEqual(fileLines(db, "pay.go", 3, 5), SOURCE.split("\n").slice(2, 5));
      });
    });

    await t.step("same size, mtime put back: the digest catches it", () => {
      const before = Deno.statSync(file);
      const changed = SOURCE.replace("quarterly", "QUARTERLY").replace("amount * 2", "amount * 9");
      assert.equal(changed.length, SOURCE.length);
      Deno.writeTextFileSync(file, changed);
      Deno.utimeSync(file, before.atime!, before.mtime!);
      assert.equal(Deno.statSync(file).mtime?.getTime(), before.mtime?.getTime());
      withIndex(h, project.project_id, (db) => {
        const a = answer(search(db));
        assert.ok(a.code === null || a.code === "index_stale", `code ${a.code}`);
        for (const s of a.snippets) assert.ok(!s.includes("QUARTERLY") && !s.includes("amount * 9"), s);
        let lines: string[] = [];
        try {
          lines = fileLines(db, "pay.go", 1, 12);
        } catch (e) {
          assert.ok(e instanceof CruxeError && e.code === "index_stale", String(e));
        }
        assert.ok(!lines.join("\n").includes("QUARTERLY"), lines.join("\n"));
      });
    });

    await t.step("another size: the file's chunks are left out", () => {
      Deno.writeTextFileSync(file, SOURCE.replace("quarterly", "QUARTERLY and yearly"));
      withIndex(h, project.project_id, (db) => {
        const a = answer(search(db));
        assert.equal(a.code, null);
        for (const s of a.snippets) assert.ok(!s.includes("QUARTERLY"), s);
        assert.deepEqual(fileLines(db, "pay.go", 1, 12), []);
      });
    });

    await t.step("after a sync the new text is served", async () => {
      assert.equal((await indexDir(h, repo, { mode: "incremental" })).status, "published");
      withIndex(h, project.project_id, (db) => {
        const a = answer(search(db));
        assert.ok(a.snippets.some((s) => s.includes("QUARTERLY and yearly")), a.snippets.join("|"));
      });
    });
  } finally {
    h.close();
    Deno.removeSync(repo, { recursive: true });
    Deno.removeSync(h.home, { recursive: true });
  }
});

Deno.test("a schema 6 store keeps serving its stored chunk text after the upgrade", () => {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-chunk-text-upgrade-" });
  try {
    const db = openDb(indexPath(dir));
    migrate(db, PROJECT_MIGRATIONS.slice(0, 6));
    const file = db.prepare(
      "INSERT INTO files(path, hash, size, mtime_ms, language, line_count, symbol_count) VALUES ('a.c', 'x', 1, 0, 'c', 2, 0)",
    ).run().lastInsertRowid;
    assert.throws(() =>
      db.prepare("INSERT INTO chunk_rows(file_id, line_start, line_end, content) VALUES (?, 1, 2, NULL)").run(file)
    );
    db.prepare("INSERT INTO chunk_rows(file_id, line_start, line_end, content) VALUES (?, 1, 2, ?)").run(
      file,
      "int a;\nint b;",
    );
    migrate(db, PROJECT_MIGRATIONS);
    assert.deepEqual(fileLines(db, "a.c", 1, 2), ["int a;", "int b;"]);
    db.prepare("INSERT INTO chunk_rows(file_id, line_start, line_span, content) VALUES (?, 3, 1, NULL)").run(file);
    db.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a ref's chunks keep their text: the working tree's file moving on changes no answer at the ref", async () => {
  const repo = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "cruxe-chunk-text-ref-" }));
  const s = inProcess();
  try {
    Deno.writeTextFileSync(join(repo, "pay.go"), SOURCE);
    git(repo, "init", "-q", "-b", "main");
    commitAll(repo, "main");
    registerProject(s.registry, repo);
    const call = async (name: string, args: Record<string, unknown>) =>
      bodyOf(await s.call(name, { workspace: repo, ...args }));
    assert.equal((await call("index_repo", { wait: true })).status, "published");
    // The refs store starts as a copy of the working tree's index, which keeps no chunk text.
    assert.equal((await call("index_repo", { ref: "main", wait: true })).status, "published");
    const projectDir = s.registry.projectDir(s.registry.projectByRoot(repo)!.project_id);
    const store = new DatabaseSync(refsStorePath(projectDir), { readOnly: true });
    const held = store.prepare("SELECT count(*) AS n, count(content) AS t FROM chunk_rows").get() as {
      n: number;
      t: number;
    };
    store.close();
    assert.ok(held.n > 0);
    assert.equal(held.t, held.n, "every chunk of the refs store holds its text");
    Deno.writeTextFileSync(join(repo, "pay.go"), SOURCE.replace("quarterly", "QUARTERLY, and much more besides"));
    const b = await call("search_code", { query: "settleLedgerBalance", ref: "main" });
    const snippets = ((b.results ?? []) as { snippet?: string }[]).map((r) => r.snippet ?? "");
    assert.ok(snippets.some((x) => x.includes("amount * 2")), JSON.stringify(b));
    for (const x of snippets) assert.ok(!x.includes("QUARTERLY"), x);
  } finally {
    s.close();
    Deno.removeSync(repo, { recursive: true });
    Deno.removeSync(s.home, { recursive: true });
  }
});
