/**
 * Every statement the query tools prepare, checked with SQLite's own plan:
 * none may build a whole `symbols`, `edges` or `chunks` view first (a view
 * of a join is built whole when, for instance, it is the right side of a
 * LEFT JOIN: on a kernel-sized store that is seconds per call). The
 * statements are the ones really prepared while every tool answers over a
 * few fixture repositories.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { answers } from "../scripts/answer_snapshot.ts";

Deno.test("no statement of the query tools builds a whole view of symbols, edges or chunks", async () => {
  const seen = new Set<string>();
  const prepare = DatabaseSync.prototype.prepare;
  DatabaseSync.prototype.prepare = function (this: DatabaseSync, sql: string, ...rest: unknown[]) {
    if (/\b(symbols|edges|chunks)\b/.test(sql) && !/^\s*(INSERT|DELETE|UPDATE|CREATE|DROP)/i.test(sql)) seen.add(sql);
    return (prepare as (this: DatabaseSync, ...a: unknown[]) => ReturnType<typeof prepare>).call(this, sql, ...rest);
  } as typeof prepare;
  let made: number;
  try {
    made = (await answers(["go_basic", "nav_py", "nav_ts"])).length;
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
  }
  assert.deepEqual(whole, [], whole.join("\n\n"));
});
