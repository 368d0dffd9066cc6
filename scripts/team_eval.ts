/**
 * Relevance of the team store's `search_code` against the SQLite store's on
 * the same trees: `deno run -A scripts/team_eval.ts FOLDER [--repos-root DIR]
 * [--home DIR] [--store URL] [--only a,b]`. Each repository of FOLDER (semble
 * format, as `deno task eval` reads it) is indexed once into a Cruxe home;
 * its index is published whole into the team store (a throwaway PostgreSQL
 * cluster when `--store` is not given), and every labelled query runs
 * through both `searchCode` (SQLite) and `teamSearch` (PostgreSQL). Prints
 * NDCG@10, MRR@10 and Recall@5 of each (means over repositories) and each
 * one's query latency p50/p95.
 */
import { join, resolve } from "node:path";
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { resolveConfig } from "../src/core/config.ts";
import { Registry } from "../src/state/registry.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { JobRunner } from "../src/index/job_runner.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { searchCode } from "../src/query/search_code.ts";
import { readCommitSnapshot } from "../src/state/read/commit_snapshot.ts";
import { PgTeamStore } from "../src/state/pg/pg_team_store.ts";
import { teamSearch, teamTarget } from "../src/query/team_reads.ts";
import { readDataset } from "./eval/dataset.ts";
import { mean, quantile, queryScores, type Retrieved, type Scores } from "./eval/metrics.ts";
import { startPgCluster } from "../tests/helpers/pg_cluster.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    "repos-root": { type: "string", default: "/work/semble" },
    home: { type: "string", default: join(Deno.env.get("TMPDIR") ?? "/tmp", "cruxe-team-eval-home") },
    store: { type: "string" },
    only: { type: "string" },
  },
});
const folder = positionals[0];
if (!folder) {
  console.error("usage: scripts/team_eval.ts FOLDER [--repos-root DIR] [--home DIR] [--store URL] [--only a,b]");
  Deno.exit(2);
}

const { repos, queries } = readDataset(folder);
const only = values.only ? new Set(values.only.split(",")) : null;
const home = resolve(values.home!);
const config = resolveConfig({ ...Deno.env.toObject(), CRUXE_HOME: home }, Deno.build.os);
const registry = Registry.open(home);
const runner = new JobRunner(registry, config);
const readers = new IndexReaders(registry);
const cluster = values.store ? null : await startPgCluster();
const url = values.store ?? cluster?.url;
if (!url) throw new Error("no --store and no PostgreSQL binaries to start one");
const store = await PgTeamStore.open(url, { migrate: true, max: 2 });

const meanOf = (xs: Scores[]): Scores => ({
  ndcg: mean(xs.map((x) => x.ndcg)),
  mrr: mean(xs.map((x) => x.mrr)),
  r5: mean(xs.map((x) => x.r5)),
});
const perRepo: { repo: string; sqlite: Scores; pg: Scores }[] = [];
const ms = { sqlite: [] as number[], pg: [] as number[] };
try {
  for (const repo of repos) {
    if (only && !only.has(repo.name)) continue;
    const base = repo.path ? resolve(folder, repo.path) : join(values["repos-root"]!, repo.name);
    const dir = repo.benchmark_root ? join(base, repo.benchmark_root) : base;
    if (!existsSync(dir)) {
      console.error(`${repo.name}: no tree at ${dir}, skipped`);
      continue;
    }
    const project = registerProject(registry, dir, { name: `eval-${repo.name}` });
    const job = await runner.start(project, { mode: "full", force: false }).active.done;
    if (job.status !== "published") throw new Error(`indexing ${dir} ended ${job.status}`);
    readers.invalidate(project.project_id);
    const db = requireIndex(readers.view(project));
    // The same index, published whole into the team store under a job of its own.
    const teamRepo = await store.addRepo(repo.name, dir, ["worktree"]);
    const commit = job.job_id.replace(/[^0-9a-f]/g, "").padEnd(40, "0").slice(0, 40);
    await store.enqueue(teamRepo.id, "worktree", commit);
    const claimed = await store.claim("team-eval", 600);
    if (!claimed) throw new Error(`no job to publish ${repo.name}`);
    const rows = readCommitSnapshot(db, null);
    await store.publish(claimed, "team-eval", { ...rows, readBlobs: () => Promise.resolve(new Map()) });
    const target = teamTarget(await store.listRepos(), repo.name, "worktree");
    const prefix = repo.benchmark_root ? repo.benchmark_root.replace(/\/+$/, "") + "/" : "";
    const lite: Scores[] = [];
    const team: Scores[] = [];
    for (const q of queries.get(repo.name) ?? []) {
      let t0 = performance.now();
      const a = searchCode(db, { query: q.query, limit: 10 }).results;
      ms.sqlite.push(performance.now() - t0);
      t0 = performance.now();
      const b = (await teamSearch(store.pool, target, { query: q.query, limit: 10 })).results;
      ms.pg.push(performance.now() - t0);
      const as = (rs: { path: string; line_start: number; line_end: number }[]): Retrieved[] =>
        rs.map((r) => ({ path: prefix + r.path, line_start: r.line_start, line_end: r.line_end }));
      lite.push(queryScores(as(a), q.relevant, q.secondary));
      team.push(queryScores(as(b), q.relevant, q.secondary));
    }
    const row = { repo: repo.name, sqlite: meanOf(lite), pg: meanOf(team) };
    perRepo.push(row);
    console.error(`${repo.name}: NDCG@10 sqlite ${row.sqlite.ndcg.toFixed(3)} postgres ${row.pg.ndcg.toFixed(3)}`);
  }
  const f3 = (x: number) => x.toFixed(3);
  const s = meanOf(perRepo.map((r) => r.sqlite));
  const p = meanOf(perRepo.map((r) => r.pg));
  console.log(`repositories: ${perRepo.length}`);
  console.log(
    `sqlite   NDCG@10 ${f3(s.ndcg)}  MRR@10 ${f3(s.mrr)}  R@5 ${f3(s.r5)}  ` +
      `p50 ${quantile(ms.sqlite, 0.5).toFixed(1)} ms  p95 ${quantile(ms.sqlite, 0.95).toFixed(1)} ms`,
  );
  console.log(
    `postgres NDCG@10 ${f3(p.ndcg)}  MRR@10 ${f3(p.mrr)}  R@5 ${f3(p.r5)}  ` +
      `p50 ${quantile(ms.pg, 0.5).toFixed(1)} ms  p95 ${quantile(ms.pg, 0.95).toFixed(1)} ms`,
  );
} finally {
  await store.close();
  readers.closeAll();
  runner.shutdown();
  registry.close();
  await cluster?.destroy();
}
