/**
 * Ref-comparison benchmark (not a test): two copies of a real source tree,
 * the second with N files edited (a renamed function, a changed body, an
 * added function, in turn), 5 files moved and 5 deleted; both indexed into
 * their own stores; then diff_context between them (default and largest
 * budget) and compare_symbol_between_commits on a renamed function, timed.
 * `diff -rq` over the same two trees is timed in the same run as the
 * reference. Prints one line per measure, with the load average.
 *
 * Usage: deno run -A bench/diff_bench.ts [CORPUS_DIR] [CHANGED_FILES]
 *        (default /work/corpora/go/net, 50; the store goes under CRUXE_HOME or a temporary directory)
 */
import { basename, dirname, join } from "node:path";
import { resolveConfig } from "../src/core/config.ts";
import { Registry } from "../src/state/registry.ts";
import { JobRunner } from "../src/index/job_runner.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { IndexReaders, requireIndex } from "../src/query/index_reader.ts";
import { diffContext } from "../src/query/diff_context.ts";
import { compareSymbol } from "../src/query/compare_symbol.ts";
import type { RefView } from "../src/state/read/ref_view.ts";

const corpus = Deno.args[0] ?? "/work/corpora/go/net";
const changed = Number(Deno.args[1] ?? 50);

function sh(cmd: string, args: string[]): { ok: boolean; out: string } {
  const r = new Deno.Command(cmd, { args, stdout: "piped", stderr: "null" }).outputSync();
  return { ok: r.success, out: new TextDecoder().decode(r.stdout) };
}

function goFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of [...Deno.readDirSync(d)].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(d, e.name);
      if (e.isDirectory && !["testdata", "vendor"].includes(e.name)) walk(p);
      else if (e.isFile && e.name.endsWith(".go") && !e.name.endsWith("_test.go")) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** Edits file `i` of the head tree in one of three ways; returns the renamed function's new name, if any. */
function mutate(path: string, i: number): string | null {
  const text = Deno.readTextFileSync(path);
  const m = text.match(/^func (\w+)\(/m);
  if (i % 3 === 0 && m) {
    Deno.writeTextFileSync(path, text.replace(new RegExp(`\\b${m[1]}\\b`, "g"), `${m[1]}Renamed`));
    return `${m[1]}Renamed`;
  }
  if (i % 3 === 1 && m) {
    const at = text.indexOf("{\n", text.indexOf(m[0]));
    if (at > 0) {
      Deno.writeTextFileSync(
        path,
        text.slice(0, at + 2) + "\t_ = 0 // changed for the benchmark\n" + text.slice(at + 2),
      );
      return null;
    }
  }
  Deno.writeTextFileSync(path, text + `\nfunc benchAdded${i}() int {\n\treturn ${i}\n}\n`);
  return null;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function time<T>(runs: number, fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const ms: number[] = [];
  let value!: T;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    value = await fn();
    ms.push(performance.now() - t0);
  }
  return { ms: median(ms), value };
}

const work = Deno.makeTempDirSync({ prefix: "cruxe-diff-bench-" });
const baseDir = join(work, "base"), headDir = join(work, "head");
for (const d of [baseDir, headDir]) {
  Deno.mkdirSync(d);
  if (!sh("cp", ["-a", corpus + "/.", d]).ok) throw new Error("cp failed");
}
const files = goFiles(headDir);
const step = Math.max(1, Math.floor(files.length / (changed + 10)));
const picked = files.filter((_, i) => i % step === 0);
let renamed: string | null = null;
picked.slice(0, changed).forEach((p, i) => renamed = mutate(p, i) ?? renamed);
for (const p of picked.slice(changed, changed + 5)) {
  Deno.mkdirSync(join(headDir, "moved_by_bench"), { recursive: true });
  Deno.renameSync(p, join(headDir, "moved_by_bench", basename(dirname(p)) + "_" + basename(p)));
}
for (const p of picked.slice(changed + 5, changed + 10)) Deno.removeSync(p);

const home = Deno.env.get("CRUXE_HOME") ?? join(work, "home");
const config = resolveConfig({ CRUXE_HOME: home, CRUXE_WORKERS: Deno.env.get("CRUXE_WORKERS") }, Deno.build.os);
const registry = Registry.open(home);
const runner = new JobRunner(registry, config);
const readers = new IndexReaders(registry);
try {
  const views: RefView[] = [];
  for (const [label, dir] of [["base", baseDir], ["head", headDir]]) {
    const t0 = performance.now();
    const project = registerProject(registry, dir);
    const job = await runner.start(project, { mode: "full", force: false }).active.done;
    const view = readers.view(project);
    console.log(
      `index ${label}: ${job.status}, ${view.fileCount} files, ${view.symbolCount} symbols, ` +
        `${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    views.push({ db: requireIndex(view), label, commitId: null });
  }
  const [base, head] = views;
  const ref = await time(3, () => Promise.resolve(sh("diff", ["-rq", baseDir, headDir])));
  const refLines = ref.value.out.split("\n").filter(Boolean).length;
  console.log(`reference diff -rq: ${ref.ms.toFixed(0)} ms (${refLines} differing entries)`);
  for (const max of [8000, 100000]) {
    const r = await time(3, () => diffContext(base, head, { max_tokens: max }));
    const s = r.value.summary;
    console.log(
      `diff_context max_tokens=${max}: ${r.ms.toFixed(0)} ms median of 3; files ${s.files_modified} modified, ` +
        `${s.files_moved} moved, ${s.files_removed} removed; symbols ${s.symbols_modified} modified, ` +
        `${s.symbols_renamed} renamed, ${s.symbols_added} added, ${s.symbols_removed} removed, ${s.symbols_moved} moved; ` +
        `${r.value.changes.length} changes shown, ${r.value.omitted.changes} omitted, ` +
        `~${r.value.estimated_tokens} tokens`,
    );
  }
  if (renamed) {
    const r = await time(3, () => compareSymbol(base, head, { symbol_name: renamed! }));
    console.log(`compare_symbol ${renamed}: ${r.ms.toFixed(1)} ms median of 3, status ${r.value.status}`);
  }
  console.log(`load average: ${Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ")}`);
} finally {
  readers.closeAll();
  runner.shutdown();
  registry.close();
  Deno.removeSync(work, { recursive: true });
}
