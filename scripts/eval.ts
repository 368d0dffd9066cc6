/**
 * Retrieval evaluation: `deno task eval FOLDER [--repos-root DIR] [--home DIR]
 * [--only a,b] [--languages x,y] [--folds K] [--candidates a,b] [--budgets 500,1000,...] [--json] [--out FILE]`.
 *
 * FOLDER holds labelled queries in the semble format (`repos.json`,
 * `annotations/*.json`). Each repository's tree is `--repos-root/NAME` (or
 * the entry's `path`), indexed under `benchmark_root` into a Cruxe home that
 * is reused between runs (an unchanged tree costs one incremental scan) as
 * long as the build fingerprint (a hash of the indexing sources, see
 * `eval/fingerprint.ts`) is unchanged; otherwise the index is rebuilt.
 * Every query runs through `searchCode` and through a plain BM25-over-whole-
 * files baseline on the same files; NDCG@10 (semble rules), MRR@10 and
 * Recall@5 are reported per repository, per category, per language and
 * overall (means over repositories), with search_code latency p50/p95.
 * `--folds K` adds K-fold cross-validation by repository (`eval/cross_validate.ts`):
 * ranking parameters chosen on K−1 folds, scored on the held-out one, overall and
 * per category and language; `--candidates a,b` limits the settings tried to
 * these (besides the default).
 * `--budgets` adds get_code_context's token-budget recall (`eval/budget.ts`).
 * `--semantic` (with `CRUXE_EMBED_URL`) embeds every repository and query through
 * that endpoint and adds the semantic layer's fusion weights to the candidates.
 * Needs --allow-read, --allow-write (home), --allow-env, --allow-run=git, --allow-sys.
 */
import { join, resolve } from "node:path";
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { resolveConfig } from "../src/core/config.ts";
import { digest } from "../src/core/ids.ts";
import { Registry } from "../src/state/registry.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { JobRunner } from "../src/index/job_runner.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { searchCode } from "../src/query/search_code.ts";
import type { Db } from "../src/state/db.ts";
import { type LabelledQuery, type Published, readDataset, readPublished, type RepoEntry } from "./eval/dataset.ts";
import { mean, quantile, queryScores, type Retrieved, type Scores } from "./eval/metrics.ts";
import { FileBm25 } from "./eval/baseline.ts";
import { buildFingerprint } from "./eval/fingerprint.ts";
import {
  assignFolds,
  type CandidateEffect,
  candidateEffects,
  crossValidate,
  type CrossValidation,
  groupBreakdown,
  type GroupedScores,
  rankingCandidates,
} from "./eval/cross_validate.ts";
import { type BudgetOutcome, budgetRecall, parseBudgets, summarizeBudgets } from "./eval/budget.ts";
import { getCodeContext } from "../src/query/code_context.ts";
import { compactContext } from "../src/service/compact.ts";
import { buildMetadata } from "../src/core/metadata.ts";
import { estimateTokens } from "../src/query/_token_estimate.ts";
import type { RankingParams } from "../src/query/search/ranking_params.ts";
import type { ChunkHit } from "../src/query/search/candidates.ts";
import type { CruxeConfig } from "../src/core/config.ts";
import { EmbedRunner } from "../src/index/embed_runner.ts";
import { embedConfigured } from "../src/core/semantic_layer.ts";
import { indexChunkTexts } from "../src/state/chunk_vectors.ts";
import { semanticHits } from "../src/query/semantic_search.ts";

interface QueryOutcome {
  repo: string;
  query: string;
  category: string;
  intent: string;
  cruxe: Scores;
  baseline: Scores;
  ms: number;
  top: string[];
}

interface RepoOutcome {
  repo: string;
  language: string;
  queries: number;
  files: number;
  /** "full" when the index was (re)built, "incremental" when a same-fingerprint index was reused. */
  index_mode: "full" | "incremental";
  cruxe: Scores;
  baseline: Scores;
  published: Published;
  revision_note?: string;
}

function score(results: Retrieved[], q: LabelledQuery): Scores {
  return queryScores(results, q.relevant, q.secondary);
}

function meanScores(xs: Scores[]): Scores {
  return { ndcg: mean(xs.map((x) => x.ndcg)), mrr: mean(xs.map((x) => x.mrr)), r5: mean(xs.map((x) => x.r5)) };
}

/**
 * Indexes `dir`: incrementally when an index built under the same build
 * fingerprint exists, else a forced full rebuild. Returns the open index.
 */
async function ensureIndex(
  registry: Registry,
  runner: JobRunner,
  readers: IndexReaders,
  dir: string,
  name: string,
  fingerprint: string,
) {
  const project = registerProject(registry, dir, { name });
  readers.invalidate(project.project_id);
  let view = readers.view(project);
  const stampFile = join(registry.projectDir(project.project_id), "eval_build_fingerprint");
  const builtWith = existsSync(stampFile) ? Deno.readTextFileSync(stampFile).trim() : null;
  const usable = view.schemaStatus === "compatible" && builtWith === fingerprint;
  const t0 = performance.now();
  const job = await runner.start(project, { mode: usable ? "incremental" : "full", force: !usable }).active.done;
  if (job.status !== "published") throw new Error(`indexing ${dir} ended ${job.status}: ${job.error_message}`);
  Deno.writeTextFileSync(stampFile, fingerprint + "\n");
  readers.invalidate(project.project_id);
  view = readers.view(project);
  return {
    db: requireIndex(view),
    indexMs: performance.now() - t0,
    changed: job.changed_files,
    mode: usable ? "incremental" as const : "full" as const,
  };
}

function filesOf(db: Db): { path: string; hash: string }[] {
  return db.prepare("SELECT path, hash FROM files ORDER BY path").all() as { path: string; hash: string }[];
}

const f3 = (x: number) => x.toFixed(3);

async function main() {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      "repos-root": { type: "string", default: "/work/semble" },
      home: { type: "string", default: join(Deno.env.get("TMPDIR") ?? "/tmp", "cruxe-eval-home") },
      only: { type: "string" },
      languages: { type: "string" },
      json: { type: "boolean", default: false },
      out: { type: "string" },
      folds: { type: "string" },
      candidates: { type: "string" },
      budgets: { type: "string" },
      semantic: { type: "boolean", default: false },
      verbose: { type: "boolean", short: "v", default: false },
    },
  });
  const folder = positionals[0];
  if (!folder) {
    console.error(
      "usage: deno task eval FOLDER [--repos-root DIR] [--home DIR] [--only a,b] [--folds K] [--budgets 500,1000] [--semantic] [--json] [--out FILE]",
    );
    Deno.exit(2);
  }
  const { repos, queries } = readDataset(folder);
  const published = readPublished(folder);
  const only = values.only ? new Set(values.only.split(",")) : null;
  const langs = values.languages ? new Set(values.languages.split(",")) : null;
  const home = resolve(values.home!);
  Deno.mkdirSync(join(home, "baseline"), { recursive: true });
  const config = resolveConfig({ ...Deno.env.toObject(), CRUXE_HOME: home }, Deno.build.os);
  const registry = Registry.open(home);
  const runner = new JobRunner(registry, config);
  const readers = new IndexReaders(registry);
  const fingerprint = buildFingerprint();
  const outcomes: QueryOutcome[] = [];
  const perRepo: RepoOutcome[] = [];
  const skipped: { repo: string; reason: string }[] = [];
  const opened: OpenRepo[] = [];
  const folds = values.folds === undefined ? 0 : Number(values.folds);
  const budgets = values.budgets === undefined ? [] : parseBudgets(values.budgets);
  let cv: RankingValidation | null = null;
  let budgetOutcomes: BudgetOutcome[] = [];
  try {
    for (const repo of repos) {
      if (only && !only.has(repo.name)) continue;
      if (langs && !langs.has(repo.language)) continue;
      const base = repo.path ? resolve(folder, repo.path) : join(values["repos-root"]!, repo.name);
      const dir = repo.benchmark_root ? join(base, repo.benchmark_root) : base;
      if (!existsSync(dir)) {
        skipped.push({ repo: repo.name, reason: `no tree at ${dir}` });
        continue;
      }
      const r = await evalRepo(repo, dir, queries.get(repo.name) ?? [], {
        registry,
        runner,
        readers,
        home,
        fingerprint,
      });
      const revFile = join(base, ".cruxe_rev");
      const note = existsSync(revFile) ? Deno.readTextFileSync(revFile).trim() : undefined;
      perRepo.push({ ...r.summary, published: published.get(repo.name) ?? {}, revision_note: note });
      outcomes.push(...r.outcomes);
      opened.push(r.open);
      if (!values.json) {
        const s = r.summary;
        console.error(
          `${repo.name.padEnd(22)} ndcg ${f3(s.cruxe.ndcg)} (bm25-files ${f3(s.baseline.ndcg)}) files ${s.files} ` +
            `index ${(r.indexMs / 1000).toFixed(1)}s`,
        );
        if (values.verbose) {
          for (const o of r.outcomes.filter((o) => o.cruxe.ndcg < 1)) {
            console.error(
              `   ${f3(o.cruxe.ndcg)} [${o.category}/${o.intent}] ${o.query}  -> ${o.top.slice(0, 3).join(", ")}`,
            );
          }
        }
      }
    }
    if (values.semantic) await embedRepos(opened, home, config.embed, console.error);
    const tried = values.candidates ? new Set(values.candidates.split(",")) : null;
    if (folds) cv = crossValidateRanking(opened, folds, tried, values.json ? null : console.error);
    if (budgets.length) budgetOutcomes = budgetPass(opened, budgets);
  } finally {
    readers.closeAll();
    runner.shutdown();
    registry.close();
  }
  const report = {
    build_fingerprint: fingerprint,
    ...summarize(perRepo, outcomes, skipped),
    cross_validation: cv,
    budgets: budgetOutcomes.length ? summarizeBudgets(budgetOutcomes) : null,
  };
  if (values.out) Deno.writeTextFileSync(values.out, JSON.stringify(report, null, 2));
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else printTable(report);
}

/** An indexed repository kept open for the later passes (cross-validation, budgets). */
interface OpenRepo {
  repo: string;
  language: string;
  db: Db;
  prefix: string;
  queries: LabelledQuery[];
  /** With `--semantic`: each query's nearest chunks from the configured embeddings endpoint. */
  semantic?: Map<string, ChunkHit[]>;
}

/**
 * `--semantic`: embeds every opened repository's chunks through the configured
 * endpoint (a vector store per repository under the eval home) and each query,
 * so the cross-validation can score the semantic layer and its fusion weight.
 */
async function embedRepos(opened: OpenRepo[], home: string, embed: CruxeConfig["embed"], log: (s: string) => void) {
  if (!embedConfigured(embed)) throw new Error("--semantic needs CRUXE_EMBED_URL (and CRUXE_EMBED_MODEL)");
  Deno.mkdirSync(join(home, "vectors"), { recursive: true });
  for (const r of opened) {
    const store = join(home, "vectors", `${r.repo}.db`);
    const t0 = performance.now();
    const st = await new EmbedRunner(embed).start(r.repo, store, () => indexChunkTexts(r.db));
    log(
      `embedded ${r.repo}: ${st.status} ${st.chunks_embedded}/${st.chunks_total} (${st.embedded_this_pass} new) in ` +
        `${((performance.now() - t0) / 1000).toFixed(1)}s${st.error ? ` — ${st.error}` : ""}`,
    );
    r.semantic = new Map();
    for (const q of r.queries) {
      r.semantic.set(q.query, (await semanticHits(r.db, store, embed, { query: q.query })).hits);
    }
  }
}

/** Every query of `r` through search_code with `ranking`: each query's scores with its category and language. */
function scoreRepo(r: OpenRepo, ranking: RankingParams): GroupedScores[] {
  return r.queries.map((q) => {
    const res = searchCode(r.db, { query: q.query, limit: 10 }, ranking, r.semantic?.get(q.query));
    const scores = score(
      res.results.map((x) => ({ path: r.prefix + x.path, line_start: x.line_start, line_end: x.line_end })),
      q,
    );
    return { groups: [q.category, r.language], scores };
  });
}

/** Held-out figures of a cross-validation run with the candidates tried and per category/language figures. */
type RankingValidation = CrossValidation & {
  candidates: string[];
  groups: ReturnType<typeof groupBreakdown>;
  effects: CandidateEffect[];
};

/**
 * K-fold cross-validation of the ranking candidates over the opened
 * repositories (`only`: just these candidates besides the default).
 */
function crossValidateRanking(
  opened: OpenRepo[],
  k: number,
  only: Set<string> | null,
  log: ((s: string) => void) | null,
): RankingValidation {
  const candidates = rankingCandidates(opened.some((r) => r.semantic))
    .filter((c, i) => i === 0 || !only || only.has(c.name));
  const perQuery = new Map<string, Map<string, GroupedScores[]>>();
  const scores = new Map<string, Map<string, Scores>>();
  for (const c of candidates) {
    const t0 = performance.now();
    const byRepo = new Map(opened.map((r) => [r.repo, scoreRepo(r, c.params)]));
    perQuery.set(c.name, byRepo);
    scores.set(c.name, new Map([...byRepo].map(([repo, qs]) => [repo, meanScores(qs.map((q) => q.scores))])));
    const all = [...scores.get(c.name)!.values()];
    log?.(
      `candidate ${c.name.padEnd(20)} ndcg ${f3(mean(all.map((s) => s.ndcg)))} (${
        ((performance.now() - t0) / 1000).toFixed(1)
      }s)`,
    );
  }
  const names = candidates.map((c) => c.name);
  const folds = assignFolds(opened.map((r) => r.repo), k);
  const cv = crossValidate(names, scores, folds);
  const groups = groupBreakdown(cv, names[0], (c, repo) => perQuery.get(c)!.get(repo)!);
  return { candidates: names, ...cv, groups, effects: candidateEffects(names, scores, folds) };
}

/** get_code_context at every budget for every query: recall and the tokens of the whole answer. */
function budgetPass(opened: OpenRepo[], budgets: number[]): BudgetOutcome[] {
  const out: BudgetOutcome[] = [];
  const metadata = buildMetadata({});
  for (const r of opened) {
    for (const q of r.queries) {
      for (const b of budgets) {
        const res = getCodeContext(r.db, { query: q.query, max_tokens: b });
        const items = res.items.map((i) => ({
          path: r.prefix + i.path,
          line_start: i.line_start,
          line_end: i.line_end,
        }));
        out.push({
          repo: r.repo,
          budget: b,
          recall: budgetRecall(items, [...q.relevant, ...q.secondary]),
          answer_tokens: estimateTokens(
            JSON.stringify({ ...compactContext(res as unknown as Record<string, unknown>), metadata }),
          ),
          verbose_tokens: estimateTokens(JSON.stringify({ ...res, metadata })),
        });
      }
    }
  }
  return out;
}

async function evalRepo(
  repo: RepoEntry,
  dir: string,
  qs: LabelledQuery[],
  ctx: { registry: Registry; runner: JobRunner; readers: IndexReaders; home: string; fingerprint: string },
) {
  const { db, indexMs, mode } = await ensureIndex(
    ctx.registry,
    ctx.runner,
    ctx.readers,
    dir,
    `eval-${repo.name}`,
    ctx.fingerprint,
  );
  const files = filesOf(db);
  const stamp = digest(...files.map((f) => f.path + ":" + f.hash));
  const baseline = FileBm25.open(join(ctx.home, "baseline", `${repo.name}.db`), dir, files.map((f) => f.path), stamp);
  const prefix = repo.benchmark_root ? repo.benchmark_root.replace(/\/+$/, "") + "/" : "";
  const outcomes: QueryOutcome[] = [];
  for (const q of qs) {
    const t0 = performance.now();
    const res = searchCode(db, { query: q.query, limit: 10 });
    const ms = performance.now() - t0;
    const got: Retrieved[] = res.results.map((r) => ({
      path: prefix + r.path,
      line_start: r.line_start,
      line_end: r.line_end,
    }));
    const base: Retrieved[] = baseline.search(q.query, 10).map((r) => ({ path: prefix + r.path }));
    outcomes.push({
      repo: repo.name,
      query: q.query,
      category: q.category,
      intent: res.query_intent,
      cruxe: score(got, q),
      baseline: score(base, q),
      ms,
      top: res.results.slice(0, 5).map((r) => `${r.path}:${r.line_start}`),
    });
  }
  baseline.close();
  return {
    indexMs,
    outcomes,
    open: { repo: repo.name, language: repo.language, db, prefix, queries: qs },
    summary: {
      repo: repo.name,
      language: repo.language,
      queries: qs.length,
      files: files.length,
      index_mode: mode,
      cruxe: meanScores(outcomes.map((o) => o.cruxe)),
      baseline: meanScores(outcomes.map((o) => o.baseline)),
    },
  };
}

/** Means over repositories of per-repository means of a subset of queries. */
function groupBy(outcomes: QueryOutcome[], key: (o: QueryOutcome) => string) {
  const byGroup = new Map<string, Map<string, QueryOutcome[]>>();
  for (const o of outcomes) {
    const g = key(o);
    const m = byGroup.get(g) ?? new Map<string, QueryOutcome[]>();
    const list = m.get(o.repo) ?? [];
    list.push(o);
    m.set(o.repo, list);
    byGroup.set(g, m);
  }
  const out: Record<string, { repos: number; queries: number; cruxe: Scores; baseline: Scores }> = {};
  for (const [g, m] of [...byGroup.entries()].sort()) {
    const repos = [...m.values()];
    out[g] = {
      repos: repos.length,
      queries: repos.reduce((a, r) => a + r.length, 0),
      cruxe: meanScores(repos.map((r) => meanScores(r.map((o) => o.cruxe)))),
      baseline: meanScores(repos.map((r) => meanScores(r.map((o) => o.baseline)))),
    };
  }
  return out;
}

function summarize(perRepo: RepoOutcome[], outcomes: QueryOutcome[], skipped: { repo: string; reason: string }[]) {
  const ms = outcomes.map((o) => o.ms);
  const withPub = perRepo.filter((r) => r.published.semble_lexical !== undefined);
  const repoLang = new Map(perRepo.map((r) => [r.repo, r.language]));
  return {
    overall: {
      repos: perRepo.length,
      queries: outcomes.length,
      cruxe: meanScores(perRepo.map((r) => r.cruxe)),
      baseline: meanScores(perRepo.map((r) => r.baseline)),
      published_on_same_repos: withPub.length
        ? {
          raw_bm25: mean(withPub.map((r) => r.published.raw_bm25!)),
          semble_lexical: mean(withPub.map((r) => r.published.semble_lexical!)),
          semble_hybrid: mean(withPub.map((r) => r.published.semble_hybrid!)),
        }
        : null,
      below_raw_bm25: withPub.filter((r) => r.cruxe.ndcg < r.published.raw_bm25!).map((r) => r.repo),
    },
    latency_ms: { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), max: quantile(ms, 1) },
    per_category: groupBy(outcomes, (o) => o.category),
    per_intent: groupBy(outcomes, (o) => o.intent),
    per_language: groupBy(outcomes, (o) => repoLang.get(o.repo) ?? "?"),
    per_repo: perRepo,
    skipped,
    queries: outcomes,
  };
}

function printTable(
  report: ReturnType<typeof summarize> & {
    build_fingerprint: string;
    cross_validation: RankingValidation | null;
    budgets: ReturnType<typeof summarizeBudgets> | null;
  },
) {
  const rows: string[] = [];
  const hdr = "repo                   lang        n   NDCG   MRR    R@5  | files-BM25 | pub raw  lexical hybrid";
  rows.push(hdr, "-".repeat(hdr.length));
  for (const r of report.per_repo) {
    const p = r.published;
    const pub = p.semble_lexical !== undefined
      ? `${f3(p.raw_bm25!)}  ${f3(p.semble_lexical)}   ${f3(p.semble_hybrid!)}`
      : "";
    rows.push(
      `${r.repo.padEnd(22)} ${r.language.padEnd(10)} ${String(r.queries).padStart(3)}  ${f3(r.cruxe.ndcg)}  ${
        f3(r.cruxe.mrr)
      }  ${f3(r.cruxe.r5)} |   ${f3(r.baseline.ndcg)}    | ${pub}${
        r.revision_note?.includes("APPROX") ? "  (approx. revision)" : ""
      }`,
    );
  }
  const o = report.overall;
  rows.push("-".repeat(hdr.length));
  rows.push(
    `${"OVERALL".padEnd(22)} ${"".padEnd(10)} ${String(o.queries).padStart(3)}  ${f3(o.cruxe.ndcg)}  ${
      f3(o.cruxe.mrr)
    }  ${f3(o.cruxe.r5)} |   ${f3(o.baseline.ndcg)}    | ${
      o.published_on_same_repos
        ? `${f3(o.published_on_same_repos.raw_bm25)}  ${f3(o.published_on_same_repos.semble_lexical)}   ${
          f3(o.published_on_same_repos.semble_hybrid)
        }`
        : ""
    }`,
  );
  for (
    const [title, group] of [["category", report.per_category], ["intent", report.per_intent], [
      "language",
      report.per_language,
    ]] as const
  ) {
    rows.push("", `by ${title}:`);
    for (const [g, s] of Object.entries(group)) {
      rows.push(
        `  ${g.padEnd(20)} repos ${String(s.repos).padStart(2)} q ${String(s.queries).padStart(4)}  NDCG ${
          f3(s.cruxe.ndcg)
        }  MRR ${f3(s.cruxe.mrr)}  R@5 ${f3(s.cruxe.r5)}  | files-BM25 NDCG ${f3(s.baseline.ndcg)}`,
      );
    }
  }
  rows.push(
    "",
    `search_code latency ms: p50 ${report.latency_ms.p50.toFixed(1)}  p95 ${report.latency_ms.p95.toFixed(1)}  max ${
      report.latency_ms.max.toFixed(1)
    }`,
  );
  if (o.below_raw_bm25.length) rows.push(`below published raw BM25: ${o.below_raw_bm25.join(", ")}`);
  rows.push(
    `build fingerprint ${report.build_fingerprint.slice(0, 12)}. A score on queries that were read while the ` +
      "ranking rules were written (the project's own corpus set, fixtures/eval/corpora) is a regression check, " +
      "not a quality claim; only a held-out set measures quality.",
  );
  for (const s of report.skipped) rows.push(`skipped ${s.repo}: ${s.reason}`);
  const cv = report.cross_validation;
  if (cv) {
    const fmt = (s: Scores) => `NDCG ${f3(s.ndcg)}  MRR ${f3(s.mrr)}  R@5 ${f3(s.r5)}`;
    rows.push(
      "",
      `cross-validation: ${cv.k} folds by repository, ${cv.candidates.length} ranking settings ` +
        `(tuned on k-1 folds, scored on the held-out fold)`,
    );
    for (const f of cv.folds) {
      rows.push(
        `  fold ${f.fold} (${f.repos.length} repos) chose ${f.chosen.padEnd(20)} train NDCG ${f3(f.train_ndcg)}  ` +
          `held-out ${fmt(f.held_out)}`,
      );
    }
    rows.push(`  plain (defaults)       ${fmt(cv.plain)}`);
    rows.push(`  held-out, pooled       ${fmt(cv.pooled)}`);
    rows.push(
      `  held-out, fold mean    ${fmt(cv.mean)}   (sd over folds: NDCG ${f3(cv.sd.ndcg)}  MRR ${f3(cv.sd.mrr)}  ` +
        `R@5 ${f3(cv.sd.r5)})`,
    );
    rows.push("  each setting against the default alone (whole-set NDCG | held-out NDCG, folds choosing it):");
    for (const e of cv.effects) {
      rows.push(`    ${e.candidate.padEnd(22)} ${f3(e.ndcg)} | ${f3(e.held_out)}  ${e.chosen_by}/${cv.k}`);
    }
    rows.push("  by category and language (held-out | plain):");
    for (const [g, x] of Object.entries(cv.groups)) {
      rows.push(
        `    ${g.padEnd(20)} repos ${String(x.repos).padStart(2)} q ${String(x.queries).padStart(4)}  held-out ` +
          `${fmt(x.held_out)}  | plain NDCG ${f3(x.plain.ndcg)}`,
      );
    }
  }
  if (report.budgets) {
    rows.push(
      "",
      "get_code_context token-budget recall (a target is covered when a returned item overlaps it; tokens are the " +
        "whole answer, envelope included, chars/4):",
      "  budget  recall  semble-chunks | answer tokens mean  max | verbose max  over budget",
    );
    for (const b of report.budgets) {
      rows.push(
        `  ${String(b.budget).padStart(6)}  ${f3(b.recall)}  ${b.published === undefined ? "     " : f3(b.published)}` +
          `         | ${b.answer_tokens_mean.toFixed(0).padStart(17)}  ${String(b.answer_tokens_max).padStart(4)} | ` +
          `${String(b.verbose_tokens_max).padStart(11)}  ${b.over_budget}`,
      );
    }
  }
  console.log(rows.join("\n"));
}

if (import.meta.main) await main();
