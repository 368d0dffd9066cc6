/**
 * Every statement the query tools prepare, checked with SQLite's own plan:
 * none may build a whole `symbols`, `edges` or `chunks` view first (a view
 * of a join is built whole when, for instance, it is the right side of a
 * LEFT JOIN: on a kernel-sized store that is seconds per call). The
 * statements are the ones really prepared while every tool answers over a
 * few fixture repositories. The same holds when they read one commit of a
 * refs store.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { answers } from "../scripts/answer_snapshot.ts";

Deno.test("no statement of the query tools builds a whole view of symbols, edges or chunks; every index is read", async () => {
  const seen = new Set<string>();
  const every = new Set<string>();
  const prepare = DatabaseSync.prototype.prepare;
  DatabaseSync.prototype.prepare = function (this: DatabaseSync, sql: string, ...rest: unknown[]) {
    every.add(sql);
    if (/\b(symbols|edges|chunks)\b/.test(sql) && !/^\s*(INSERT|DELETE|UPDATE|CREATE|DROP)/i.test(sql)) seen.add(sql);
    return (prepare as (this: DatabaseSync, ...a: unknown[]) => ReturnType<typeof prepare>).call(this, sql, ...rest);
  } as typeof prepare;
  let made: number;
  try {
    made = (await answers(["go_basic", "nav_go", "nav_py", "nav_ts"])).length;
    // A prefix shared by more names than one read counts (no fixture has one) reads the length index.
    const { migrate, PROJECT_MIGRATIONS } = await import("../src/state/schema.ts");
    const { namesWithPrefix, PREFIX_SCAN_NAMES } = await import("../src/state/name_lookup.ts");
    const many = new DatabaseSync(":memory:");
    migrate(many, PROJECT_MIGRATIONS);
    many.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i <= ${PREFIX_SCAN_NAMES})
      INSERT INTO symbol_names(name_lower, len, clen, count) SELECT 'a' || i, length(i) + 1, length(i) + 1, 1 FROM n`);
    assert.equal(namesWithPrefix(many, "a", 5).capped, true);
  } finally {
    DatabaseSync.prototype.prepare = prepare;
  }
  assert.ok(made > 200 && seen.size > 40, `${made} calls, ${seen.size} statements`);
  // Plans against a store of the current schema: the one a fresh index has.
  const db = new DatabaseSync(":memory:");
  const { migrate, PROJECT_MIGRATIONS } = await import("../src/state/schema.ts");
  migrate(db, PROJECT_MIGRATIONS);
  const whole: string[] = [];
  for (const sql of seen) {
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail);
    if (plan.some((d) => /MATERIALIZE (symbols|edges|chunks)\b/.test(d))) whole.push(`${sql}\n  ${plan.join("\n  ")}`);
    // An automatic index over a row table is built from all its rows at every run (seconds on a kernel's store).
    if (plan.some((d) => /AUTOMATIC .*INDEX/.test(d) && /\b(symbol|edge|chunk)_rows\b|\brefs\b/.test(sql))) {
      whole.push(`${sql}\n  ${plan.join("\n  ")}`);
    }
  }
  assert.deepEqual(whole, [], whole.join("\n\n"));

  // Every secondary index of the store is the one some statement (a read, or the writer's delete of a file's
  // rows) searches: an index no plan reads only costs disk and insert time.
  const indexes = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL").all() as {
    name: string;
  }[]).map((r) => r.name);
  const read = new Set<string>();
  for (const sql of every) {
    let plan: { detail: string }[];
    try {
      plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[];
    } catch {
      continue; // a statement of another store (the registry) or of TEMP objects
    }
    for (const { detail } of plan) for (const m of detail.matchAll(/USING (?:COVERING )?INDEX (\w+)/g)) read.add(m[1]);
  }
  assert.ok(indexes.length >= 8, indexes.join());
  assert.deepEqual(indexes.filter((n) => !read.has(n)), [], "indexes no statement reads");

  // The same statements read one commit of a refs store (TEMP views restricted to its files): no view is
  // built whole there either, and no table is scanned that the working tree's plan does not scan.
  const { REF_POOL_SQL } = await import("../src/state/schema.ts");
  const { scopeToRef } = await import("../src/state/ref_stores.ts");
  const refs = new DatabaseSync(":memory:");
  migrate(refs, PROJECT_MIGRATIONS);
  refs.exec(REF_POOL_SQL);
  refs.exec("INSERT INTO ref_commits(id, commit_id) VALUES (1, 'c')");
  assert.ok(scopeToRef(refs, 1));
  const scans = (d: DatabaseSync, sql: string) =>
    (d.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail);
  const worse: string[] = [];
  for (const sql of seen) {
    const plan = scans(refs, sql);
    const own = new Set(scans(db, sql).filter((d) => d.startsWith("SCAN ")).map((d) => d.replace(/main\./g, "")));
    const extra = plan.filter((d) => d.startsWith("SCAN ") && !own.has(d.replace(/main\./g, "")));
    // The read starts from the same index: a file's rows from the file's path, a name's from the name index.
    const drivenBy = (p: string[]) =>
      (p.find((d) => /^(SEARCH|SCAN) /.test(d))?.match(/USING (?:COVERING )?(INDEX \S+|INTEGER PRIMARY KEY)/)?.[1] ??
        "").replace("sqlite_autoindex_files_1", "files_path");
    if (drivenBy(plan) !== drivenBy(scans(db, sql))) extra.push(`driven by ${drivenBy(plan)}`);
    // Walking the commit's whole file list for one lookup is as bad as a scan.
    const walks = plan.some((d) => /SCAN (temp\.)?ref_manifest|ref_manifest FOR IN-OPERATOR/.test(d));
    if (plan.some((d) => /MATERIALIZE (symbols|edges|chunks|files|refs)\b/.test(d)) || extra.length || walks) {
      worse.push(`${sql}\n  ${plan.join("\n  ")}`);
    }
  }
  assert.deepEqual(worse, [], worse.join("\n\n"));
});
