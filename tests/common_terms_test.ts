import assert from "node:assert/strict";
import { join } from "node:path";
import { downgradeThenSync, indexDir, tempHome, type TestHome } from "./helpers/fixture_repo.ts";
import type { ProjectRow } from "../src/state/registry.ts";
import { openDb } from "../src/state/db.ts";
import type { Db } from "../src/state/db.ts";
import { chunkVocabulary } from "../src/state/read/search.ts";
import { readCommonTerms } from "../src/state/common_terms.ts";

/** Words and the share of files each is written in (the rest appear in fewer files, or none). */
const SHARES: [string, number][] = [["alpha", 1], ["beta", 0.5], ["gamma", 0.2], ["delta", 0.05], ["epsilon", 0.004]];

/** A Go file `i` of a tree of `n`, holding each word of SHARES in its share of the files, plus `extra`. */
function goFile(i: number, n: number, extra = ""): string {
  const words = SHARES.filter(([, share]) => i % Math.round(1 / share) === 0).map(([w]) => w);
  return `package p\n\n// ${words.join(" ")} ${extra} unique${i}\nfunc F${i}(x int) int {\n\treturn x + ${i % n}\n}\n`;
}

/** Chunks whose text holds `term`, as SQLite's full-text index counts them (the oracle). */
function matchCount(db: Db, term: string): number {
  const q = db.prepare("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?");
  return Number((q.get(`"${term}"`) as { n: number }).n);
}

const TERMS = ["alpha", "beta", "gamma", "delta", "epsilon", "unique7", "func", "return", "absent", "foo_bar", "Alpha"];
const CAPS = [1, 3, 20, 60, 150, 300, 520, 600, 5000];

/** Every bounded count and prefix sum the planner can ask for agrees with the full-text index's own count. */
function assertCountsExact(db: Db, label: string): void {
  for (const term of TERMS) {
    const truth = matchCount(db, term);
    for (const cap of CAPS) {
      // A fresh vocabulary per question: nothing remembered from an earlier answer.
      assert.equal(chunkVocabulary(db)!.dfAtMost(term, cap), Math.min(truth, cap), `${label}: ${term} at most ${cap}`);
    }
  }
  for (const prefix of ["al", "alp", "b", "gam", "unique1", "zz"]) {
    const perTerm = db.prepare("SELECT sum(doc) AS d FROM temp.cruxe_chunks_vocab WHERE term >= ? AND term < ?")
      .get(prefix, prefix + "\uffff") as { d: number | null };
    const truth = Number(perTerm.d ?? 0);
    const matches = Number(
      (db.prepare("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?").get(`"${prefix}"*`) as { n: number })
        .n,
    );
    for (const cap of CAPS) {
      const vocab = chunkVocabulary(db)!;
      const got = vocab.dfPrefix(prefix, cap);
      // Past the bound any figure above it will do; within it, the sum itself.
      if (truth > cap) assert.ok(got > cap, `${label}: ${prefix}* past ${cap} (${got})`);
      else assert.equal(got, truth, `${label}: ${prefix}* within ${cap}`);
      // What is sure of the prefix's matches, with or without the terms just counted, never exceeds them.
      for (const counted of [false, true]) {
        const sure = vocab.prefixAtLeast(prefix, counted);
        assert.ok(sure <= matches, `${label}: ${prefix}* surely in ${sure} of ${matches} (counted: ${counted})`);
      }
    }
  }
}

/** Files in the test trees: past the bulk-load threshold, so the cold load records the common terms. */
const N = 520;

/**
 * Runs `f` with a temporary home holding a cold load of a tree of N files
 * (its directory, its project, and an opener of its store for reading),
 * then removes the home.
 */
async function withLoadedTree(
  f: (t: { h: TestHome; dir: string; project: ProjectRow; open: () => Db }) => Promise<void>,
): Promise<void> {
  const h = tempHome();
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-common-" });
  try {
    for (let i = 0; i < N; i++) Deno.writeTextFileSync(join(dir, `f${i}.go`), goFile(i, N));
    const { project, status } = await indexDir(h, dir);
    assert.equal(status, "published");
    const path = join(h.registry.projectDir(project.project_id), "index.db");
    await f({ h, dir, project, open: () => openDb(path, { readOnly: true }) });
  } finally {
    h.close();
  }
}

/** Runs `f` on a fresh read connection to `open`'s store, closed after. */
function reading<T>(open: () => Db, f: (db: Db) => T): T {
  const db = open();
  try {
    return f(db);
  } finally {
    db.close();
  }
}

Deno.test("the recorded common terms give the same bounded counts as the full-text index, before and after syncs", () =>
  withLoadedTree(async ({ h, dir, open }) => {
    const check = (label: string, deletedAtLeast: number) =>
      reading(open, (db) => {
        const known = readCommonTerms(db);
        assert.ok(known, `${label}: common terms recorded`);
        assert.ok(known.deleted >= deletedAtLeast, `${label}: ${known.deleted} deletions counted`);
        // Recorded when loaded whole: words in at least 1 % of the chunks, each with its count then.
        if (deletedAtLeast === 0) {
          for (const w of ["alpha", "beta", "gamma", "delta", "func"]) {
            assert.equal(known.docs.get(w), matchCount(db, w));
          }
          assert.equal(known.docs.has("epsilon"), false);
          // A recorded word makes its prefixes surely matched, without a read of their postings.
          assert.equal(chunkVocabulary(db)!.prefixAtLeast("alp"), matchCount(db, "alpha"));
        }
        assertCountsExact(db, label);
      });
    check("cold load", 0);

    // Most files holding `alpha` go, others lose their words, new ones come: recorded counts now overstate.
    for (let i = 0; i < 320; i++) Deno.removeSync(join(dir, `f${i}.go`));
    for (let i = 320; i < 400; i++) Deno.writeTextFileSync(join(dir, `f${i}.go`), goFile(1, N, `changed${i}`));
    for (let i = N; i < N + 40; i++) Deno.writeTextFileSync(join(dir, `f${i}.go`), goFile(i, N, "alpha alpha"));
    assert.equal((await indexDir(h, dir, { mode: "incremental" })).status, "published");
    check("after a sync that deletes", 320);

    // Another sync: the deletions add up.
    for (let i = 400; i < 450; i++) Deno.removeSync(join(dir, `f${i}.go`));
    assert.equal((await indexDir(h, dir, { mode: "incremental" })).status, "published");
    check("after a second sync", 370);
  }));

Deno.test("a term recorded as common is counted without reading its postings while deletions leave it above the bound", () =>
  withLoadedTree(async ({ h, dir, open }) => {
    for (let i = 0; i < 20; i++) Deno.removeSync(join(dir, `f${i}.go`));
    await indexDir(h, dir, { mode: "incremental" });
    reading(open, (db) => {
      const prepared: string[] = [];
      const prepare = db.prepare.bind(db);
      db.prepare = (sql: string) => (prepared.push(sql), prepare(sql));
      const vocab = chunkVocabulary(db)!;
      // `alpha` was in every chunk of the 520 files; 20 files went, so it is in at least ~500 chunks still.
      assert.equal(vocab.dfAtMost("alpha", 100), 100);
      assert.ok(vocab.dfPrefix("alph", 100) > 100);
      assert.deepEqual(prepared.filter((s) => /MATCH|cruxe_chunks_vocab WHERE/.test(s)), []);
      // Past what the deletions leave certain, the postings are counted.
      assert.equal(vocab.dfAtMost("alpha", 5000), matchCount(db, "alpha"));
    });
  }));

Deno.test("a store of schema 23 upgrades to recorded common terms: the same bounded counts", () =>
  withLoadedTree(async ({ h, project, open }) => {
    await downgradeThenSync(h, project, "", 23);
    reading(open, (db) => {
      const known = readCommonTerms(db);
      assert.ok(known, "recorded by the upgrade");
      assert.equal(known.deleted, 0);
      assert.equal(known.docs.get("alpha"), matchCount(db, "alpha"));
      assertCountsExact(db, "upgraded");
    });
  }));
