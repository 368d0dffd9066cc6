/**
 * Relevance of a team replica's `search_code` against the SQLite store's on
 * the same trees: `deno run -A scripts/team_eval.ts FOLDER [--repos-root DIR]
 * [--home DIR] [--store URL] [--only a,b]`. Each repository of FOLDER (semble
 * format, as `deno task eval` reads it) is indexed once into a Cruxe home
 * (its working tree), and committed into a scratch git directory (the tree
 * is not touched) that a team worker builds and publishes into the team
 * store (a throwaway PostgreSQL cluster when `--store` is not given). Every
 * labelled query runs through the local `searchCode` and through a replica's
 * `search_code`, and `get_code_context` (4,000 tokens) through both. Prints
 * NDCG@10, MRR@10 and Recall@5 of each (means over repositories), how many
 * answers are identical, and each one's query latency p50/p95.
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
import { getCodeContext } from "../src/query/code_context.ts";
import { PgTeamStore } from "../src/state/pg/pg_team_store.ts";
import { TeamBuilder } from "../src/index/team_build.ts";
import { queueRepoRefs, runTeamWorker } from "../src/index/team_worker.ts";
import { openTeamService } from "../src/service/team_open.ts";
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
const builder = new TeamBuilder(join(home, "worker"), config);
const replica = await openTeamService(url, join(home, "replica"), 2);
const scratch = Deno.makeTempDirSync({ prefix: "cruxe-team-eval-git-" });
const callInfo = { sendNotification: () => Promise.resolve(), signal: new AbortController().signal };
const same = { search: 0, context: 0, queries: 0 };

/**
 * Commits the tree at `dir` into a new repository under the scratch folder
 * whose work tree stays empty (the tree is not touched); returns its directory.
 */
async function commitTree(name: string, dir: string): Promise<string> {
  const copy = join(scratch, name);
  const run = async (args: string[]) => {
    const out = await new Deno.Command("git", {
      args,
      env: {
        GIT_AUTHOR_NAME: "eval",
        GIT_AUTHOR_EMAIL: "eval@localhost",
        GIT_COMMITTER_NAME: "eval",
        GIT_COMMITTER_EMAIL: "eval@localhost",
      },
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  };
  await run(["init", "-q", "-b", "main", copy]);
  const tree = [`--git-dir=${join(copy, ".git")}`, `--work-tree=${dir}`];
  await run([...tree, "add", "-A", "."]);
  await run([...tree, "commit", "-q", "-m", "tree"]);
  return copy;
}

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
    // The same tree, committed, built by a team worker and published into the store.
    const teamRepo = await store.addRepo(repo.name, await commitTree(repo.name, dir), ["main"]);
    await queueRepoRefs(store, teamRepo, (p) => Promise.resolve(p));
    const worked = await runTeamWorker({
      store,
      builder,
      name: "team-eval",
      leaseSeconds: 600,
      pollMs: 50,
      once: true,
      local: (p) => Promise.resolve(p),
    });
    if (worked.published !== 1) throw new Error(`publishing ${repo.name}: ${JSON.stringify(worked)}`);
    const prefix = repo.benchmark_root ? repo.benchmark_root.replace(/\/+$/, "") + "/" : "";
    const lite: Scores[] = [];
    const team: Scores[] = [];
    for (const q of queries.get(repo.name) ?? []) {
      let t0 = performance.now();
      const a = searchCode(db, { query: q.query, limit: 10 }).results;
      ms.sqlite.push(performance.now() - t0);
      t0 = performance.now();
      const args = { query: q.query, limit: 10, workspace: repo.name, verbose: true };
      const answer = (await replica.service.call("search_code", args, callInfo)).structuredContent;
      ms.pg.push(performance.now() - t0);
      if (answer.error) throw new Error(`${repo.name}: ${JSON.stringify(answer.error)}`);
      const b = answer.results as typeof a;
      const as = (rs: { path: string; line_start: number; line_end: number }[]): Retrieved[] =>
        rs.map((r) => ({ path: prefix + r.path, line_start: r.line_start, line_end: r.line_end }));
      lite.push(queryScores(as(a), q.relevant, q.secondary));
      team.push(queryScores(as(b), q.relevant, q.secondary));
      const key = (rs: { path: string; line_start: number; line_end: number }[]) =>
        JSON.stringify(rs.map((r) => [r.path, r.line_start, r.line_end]));
      same.queries++;
      if (key(a) === key(b)) same.search++;
      const ctxArgs = { query: q.query, max_tokens: 4000 };
      const localCtx = getCodeContext(db, ctxArgs);
      const teamCtx =
        (await replica.service.call("get_code_context", { ...ctxArgs, workspace: repo.name, verbose: true }, callInfo))
          .structuredContent;
      if (key(localCtx.items) === key(teamCtx.items as typeof localCtx.items)) same.context++;
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
    `identical answers: search_code ${same.search}/${same.queries}, get_code_context ${same.context}/${same.queries}`,
  );
  console.log(
    `sqlite   NDCG@10 ${f3(s.ndcg)}  MRR@10 ${f3(s.mrr)}  R@5 ${f3(s.r5)}  ` +
      `p50 ${quantile(ms.sqlite, 0.5).toFixed(1)} ms  p95 ${quantile(ms.sqlite, 0.95).toFixed(1)} ms`,
  );
  console.log(
    `postgres NDCG@10 ${f3(p.ndcg)}  MRR@10 ${f3(p.mrr)}  R@5 ${f3(p.r5)}  ` +
      `p50 ${quantile(ms.pg, 0.5).toFixed(1)} ms  p95 ${quantile(ms.pg, 0.95).toFixed(1)} ms`,
  );
} finally {
  await replica.close();
  builder.close();
  Deno.removeSync(scratch, { recursive: true });
  await store.close();
  readers.closeAll();
  runner.shutdown();
  registry.close();
  await cluster?.destroy();
}
