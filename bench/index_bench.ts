/**
 * Indexing benchmark (not a test): cold full index, no-op sync, and syncs
 * after changing 1 and 10 files, on a copy of a real source tree; then what
 * the live index runs: a no-op and 1-file syncs on a warm job worker, the
 * latter naming the changed path (no scan of the tree).
 * Prints files/s, MB/s, wall time and peak RSS (with the parse worker count), one line per measure, and
 * `ctags -R` and `rg --files` over the same tree timed in the same run.
 *
 * Usage: deno task bench [CORPUS_DIR ...]   (default /work/corpora/go)
 */
import { join } from "node:path";
import type { Registry } from "../src/state/registry.ts";
import { benchRunner } from "./bench_runner.ts";

function peakRssMiB(): number {
  try {
    const s = Deno.readTextFileSync("/proc/self/status");
    const m = s.match(/VmHWM:\s+(\d+) kB/);
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Wall time of `ctags -R` over `tree` (its tags file written under `work`); null without ctags. */
function ctagsMs(tree: string, work: string): number | null {
  const t0 = performance.now();
  try {
    const r = new Deno.Command("ctags", {
      args: ["-R", "--fields=+n", "-f", join(work, "tags"), tree],
      stdout: "null",
      stderr: "null",
    }).outputSync();
    return r.success ? performance.now() - t0 : null;
  } catch {
    return null; // not installed
  }
}

function copyTree(src: string, dest: string): void {
  const r = new Deno.Command("cp", { args: ["-a", src + "/.", dest] }).outputSync();
  if (!r.success) throw new Error(`cp failed: ${new TextDecoder().decode(r.stderr)}`);
}

function goFiles(dir: string, ext: string, n: number): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of Deno.readDirSync(d)) {
      if (out.length >= n) return;
      const p = join(d, e.name);
      if (e.isDirectory && !["testdata", "vendor"].includes(e.name)) walk(p);
      else if (e.isFile && e.name.endsWith(ext)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

async function benchCorpus(corpus: string): Promise<void> {
  const work = Deno.makeTempDirSync({ prefix: "cruxe-bench-" });
  const tree = join(work, "tree");
  Deno.mkdirSync(tree);
  copyTree(corpus, tree);
  const home = join(work, "home");
  const { config, registry, runner, project, summary } = benchRunner(home, tree);
  const run = async (label: string, mode: "full" | "incremental", live: { paths?: string[] } | null = null) => {
    const t0 = performance.now();
    const job = await runner.start(project, { mode, force: false, ...(live ? { warm: true, ...live } : {}) }).active
      .done;
    const ms = performance.now() - t0;
    const s = summary();
    if (job.status !== "published" || !s) throw new Error(`${label}: job ${job.status} ${job.error_message}`);
    return { ms, s };
  };
  const name = corpus.split("/").filter(Boolean).pop();
  const cold = await run("cold", "full");
  const bytes = await sizeOfIndexed(tree, registry, project.project_id);
  console.log(
    `${name} cold-index: ${cold.ms.toFixed(0)} ms wall, ${cold.s.filesIndexed} files, ` +
      `${(bytes / 2 ** 20).toFixed(1)} MB, ${(cold.s.filesIndexed / (cold.ms / 1000)).toFixed(0)} files/s, ` +
      `${(bytes / 2 ** 20 / (cold.ms / 1000)).toFixed(1)} MB/s, ${cold.s.totalSymbols} symbols, ` +
      `${cold.s.parseErrors} files with syntax errors, peak RSS ${peakRssMiB().toFixed(0)} MiB ` +
      `(${config.workers} parse workers), load ${Deno.loadavg().map((x) => x.toFixed(1)).join(" ")}`,
  );
  const ctags = ctagsMs(tree, work);
  if (ctags !== null) {
    console.log(
      `${name} reference: ctags -R over the tree: ${ctags.toFixed(0)} ms wall (cold index ${
        (cold.ms / ctags).toFixed(1)
      }x)`,
    );
  }
  // A reference timed in the same run: the machine's load moves every wall time above.
  const r0 = performance.now();
  const rg = new Deno.Command("rg", { args: ["--files", tree], stdout: "null", stderr: "null" }).outputSync();
  if (rg.success) {
    console.log(`${name} reference: rg --files over the tree: ${(performance.now() - r0).toFixed(0)} ms wall`);
  }
  const noop = await run("noop", "incremental");
  console.log(`${name} no-op sync: ${noop.ms.toFixed(0)} ms wall, ${noop.s.changedFiles} changed`);
  for (const n of [1, 10]) {
    const ext = name === "django" ? ".py" : name === "rust" ? ".rs" : name === "java" ? ".java" : ".go";
    // A comment in the file's own syntax, so the touched file still parses.
    const comment = ext === ".py" ? "#" : "//";
    for (const f of goFiles(tree, ext, n)) {
      Deno.writeTextFileSync(f, `\n${comment} touched ${Date.now()}\n`, { append: true });
    }
    const r = await run(`sync-${n}`, "incremental");
    console.log(`${name} sync after changing ${n} file(s): ${r.ms.toFixed(0)} ms wall, ${r.s.changedFiles} changed`);
  }
  // What the live index runs: a warm job worker (parsers loaded) syncing the paths a watcher named.
  const ext = name === "django" ? ".py" : name === "rust" ? ".rs" : name === "java" ? ".java" : ".go";
  const comment = ext === ".py" ? "#" : "//";
  await run("warm-up", "incremental", {});
  const warmNoop = await run("warm-noop", "incremental", {});
  console.log(`${name} no-op sync, warm worker: ${warmNoop.ms.toFixed(0)} ms wall`);
  const [victim] = goFiles(tree, ext, 1);
  for (let i = 0; i < 3; i++) {
    Deno.writeTextFileSync(victim, `\n${comment} touched ${Date.now()}\n`, { append: true });
    const r = await run("warm-named", "incremental", { paths: [victim.slice(tree.length + 1)] });
    console.log(
      `${name} 1-file sync of the named path, warm worker (what the live index runs): ${r.ms.toFixed(0)} ms wall, ` +
        `${r.s.changedFiles} changed, scope ${r.s.scope}`,
    );
  }
  console.log(`${name} peak RSS (process, all workers): ${peakRssMiB().toFixed(0)} MiB`);
  runner.shutdown();
  registry.close();
  Deno.removeSync(work, { recursive: true });
}

async function sizeOfIndexed(root: string, registry: Registry, projectId: string): Promise<number> {
  const { openIndexForRead } = await import("../src/state/project_index.ts");
  const { db } = openIndexForRead(registry.projectDir(projectId));
  const row = db!.prepare("SELECT sum(size) AS b FROM files").get() as { b: number };
  db!.close();
  void root;
  return Number(row.b);
}

const corpora = Deno.args.length ? Deno.args : ["/work/corpora/go"];
for (const c of corpora) await benchCorpus(c);
