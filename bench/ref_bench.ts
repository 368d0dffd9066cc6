/**
 * Ref indexing benchmark (not a test): on a git repository made from a copy
 * of a real source tree (`main`; `feature` changes 50 files; `feature2`
 * changes 50 more on top of it), index the working tree, then measure
 * - the first ref (`feature`: seeds the refs store with a copy of the working
 *   tree's index, reads every blob once to compare contents),
 * - a second ref (`feature2`: starts from `feature`'s list by blob id),
 * - a third (`main` itself: 50 files back from `feature`),
 * - the same commit again (a no-op),
 * and, as references timed in the same run, a working-tree sync of the same
 * 50 changed files, `git ls-tree -r -l` of the commit and `cp` of the store
 * file. Prints one line per measure, with the refs store's size and how much
 * each ref added to it, and the load average.
 *
 * Usage: deno task bench:refs [CORPUS_DIR]   (default /work/corpora/go)
 */
import { join } from "node:path";
import { benchRunner } from "./bench_runner.ts";
import { refsStoreBytes } from "../src/state/ref_stores.ts";
import type { IndexSummary } from "../src/state/jobs.ts";

function run(cmd: string, args: string[], cwd?: string): string {
  const r = new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).outputSync();
  if (!r.success) throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(r.stderr)}`);
  return new TextDecoder().decode(r.stdout);
}

function git(dir: string, ...args: string[]): string {
  return run("git", ["-C", dir, "-c", "user.name=b", "-c", "user.email=b@example.com", ...args]);
}

function timed<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const out = fn();
  return [out, performance.now() - t0];
}

function load(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  } catch {
    return "?";
  }
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(0);
}

/** Appends a function to `n` tracked `.go` files (outside testdata) picked from `offset`; returns their paths. */
function changeFiles(tree: string, n: number, offset: number, tag: string): string[] {
  const files = git(tree, "ls-files", "*.go").split("\n").filter((f) => f && !f.includes("testdata"));
  const picked = files.filter((_, i) => i % 97 === offset).slice(0, n);
  for (const f of picked) {
    Deno.writeTextFileSync(join(tree, f), `\nfunc Bench${tag}${picked.indexOf(f)}() int { return 1 }\n`, {
      append: true,
    });
  }
  return picked;
}

async function benchCorpus(corpus: string): Promise<void> {
  const work = Deno.makeTempDirSync({ prefix: "cruxe-ref-bench-" });
  const tree = join(work, "tree");
  Deno.mkdirSync(tree);
  run("cp", ["-a", corpus + "/.", tree]);
  git(tree, "init", "-q", "-b", "main");
  git(tree, "add", "-A");
  git(tree, "commit", "-q", "-m", "main");
  git(tree, "checkout", "-q", "-b", "feature");
  const changed = changeFiles(tree, 50, 7, "A");
  git(tree, "commit", "-q", "-am", "feature");
  git(tree, "checkout", "-q", "-b", "feature2");
  changeFiles(tree, 50, 3, "B");
  git(tree, "commit", "-q", "-am", "feature2");
  git(tree, "checkout", "-q", "main");

  const home = join(work, "home");
  const { registry, runner, project, summary } = benchRunner(home, tree);
  const name = corpus.split("/").filter(Boolean).pop();
  const wt = await runner.start(project, { mode: "full", force: false }).active.done;
  if (wt.status !== "published") throw new Error(`working tree index: ${wt.error_message}`);
  const projectDir = registry.projectDir(project.project_id);
  const wtBytes = Deno.statSync(join(projectDir, "index.db")).size;
  console.log(`${name} working tree: ${summary()?.totalFiles} files, store ${mib(wtBytes)} MiB`);

  const indexRef = async (label: string, ref: string) => {
    const t0 = performance.now();
    const started = await runner.startRef(project, ref, { force: false });
    const job = started.active ? await started.active.done : null;
    const ms = performance.now() - t0;
    if (job && job.status !== "published") throw new Error(`${label}: ${job.error_message}`);
    const s = job ? summary() as (IndexSummary & Record<string, unknown>) | null : null;
    // The file and its journal, as the build's own growth figure counts them.
    const store = refsStoreBytes(projectDir);
    const grew = s ? Number(s.storeGrowthBytes) : 0;
    console.log(
      `${name} ${label}: ${ms.toFixed(0)} ms wall` +
        (s
          ? `, ${s.filesIndexed} files parsed, base ${s.base}, prep ${JSON.stringify(s.refTimings)}, ` +
            `run ${JSON.stringify(s.timings)}`
          : ", already indexed") +
        `, refs store ${mib(store)} MiB (${grew >= 0 ? "+" : ""}${(grew / 2 ** 20).toFixed(2)} MiB), load ${load()}`,
    );
  };
  await indexRef("first ref (50 files changed, seeded from the working tree's index)", "feature");
  await indexRef("second ref (50 more files changed, from the first ref)", "feature2");
  await indexRef("third ref (main: 50 files back from the first ref)", git(tree, "rev-parse", "main").trim());
  await indexRef("same commit again", "feature2");

  // References, in the same run: the working tree's own sync of the same 50 changed files, git and cp.
  for (const f of changed) Deno.writeTextFileSync(join(tree, f), git(tree, "show", `feature:${f}`));
  const t0 = performance.now();
  const sync = await runner.start(project, { mode: "incremental", force: false }).active.done;
  console.log(
    `${name} reference: working-tree sync of the same 50 files: ${(performance.now() - t0).toFixed(0)} ms wall ` +
      `(${sync.status}), load ${load()}`,
  );
  const [, lsMs] = timed(() => git(tree, "ls-tree", "-r", "-l", "--full-tree", "feature2"));
  const [, cpMs] = timed(() => run("cp", [join(projectDir, "index.db"), join(work, "copy.db")]));
  console.log(
    `${name} reference: git ls-tree -r -l ${lsMs.toFixed(0)} ms, cp of the ${mib(wtBytes)} MiB store ` +
      `${cpMs.toFixed(0)} ms, load ${load()}`,
  );
  runner.shutdown();
  registry.close();
  Deno.removeSync(work, { recursive: true });
}

const corpora = Deno.args.length ? Deno.args : ["/work/corpora/go"];
for (const c of corpora) await benchCorpus(c);
