/**
 * Live-index benchmark (not a test): how long after a file is written does a
 * running `serve-mcp` (stdio, the SDK's Client) answer the new truth, and
 * what does watching cost when nothing happens.
 *
 * - edit-to-visible p50/p95 over N edits (default 60), cycling through: a new
 *   function appended to an existing Go file (visible when `locate_symbol`
 *   finds it there), that function renamed (the new name found, the old one
 *   gone), a file deleted (its function no longer found);
 * - a burst: a branch switch that changes 1,000 files (`git checkout`), until
 *   answers are consistent (a function of the first and of the last changed
 *   file found, the ref label is the new branch, freshness is `fresh`);
 * - idle: CPU of the serving process tree over S seconds (default 60, from
 *   `/proc/<pid>/stat`) after the run, and two fresh servers side by side on
 *   the same index, one watching and one `--no-watch`, over the same window:
 *   the difference in CPU and memory is what watching costs.
 *
 * The corpus is copied to a temporary directory first (never edited in
 * place); without one, a ~2,000-file Go tree is generated. Linux only (for
 * `/proc`); needs git.
 *
 * Usage: deno task bench:live [CORPUS_DIR] [--edits N] [--idle-seconds S] [--burst N]
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import {
  cpuSeconds,
  definedAt,
  FLAGS,
  idleCost,
  locate,
  pct,
  processTree,
  ROOT,
  rssMiB,
  serve,
  until,
} from "./live_common.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: {
    edits: { type: "string", default: "60" },
    "idle-seconds": { type: "string", default: "60" },
    burst: { type: "string", default: "1000" },
  },
  allowPositionals: true,
});
const EDITS = Number(values.edits);
const IDLE_S = Number(values["idle-seconds"]);
const BURST = Number(values.burst);
/** A branch switch parses every changed file: on a loaded 2-core machine that can take minutes. */
const BURST_BOUND_MS = 600_000;

function sh(cwd: string, cmd: string, ...args: string[]): string {
  const out = new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).outputSync();
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

function git(cwd: string, ...args: string[]): string {
  return sh(
    cwd,
    "git",
    "-c",
    "user.email=bench@example.com",
    "-c",
    "user.name=bench",
    "-c",
    "commit.gpgsign=false",
    ...args,
  );
}

/** A Go tree of `files` files (10 packages), 6 functions each. */
function generateTree(dir: string, files: number): void {
  Deno.writeTextFileSync(join(dir, "go.mod"), "module example.com/livebench\n\ngo 1.21\n");
  for (let i = 0; i < files; i++) {
    const pkg = `pkg${i % 40}`;
    Deno.mkdirSync(join(dir, pkg), { recursive: true });
    let src = `package ${pkg}\n\n// Item${i} is a generated type.\ntype Item${i} struct {\n\tN int\n}\n\n`;
    for (let f = 0; f < 6; f++) {
      src += `func (it *Item${i}) Op${i}x${f}(n int) int {\n\treturn it.N + n*${f + 1}\n}\n\n`;
    }
    Deno.writeTextFileSync(join(dir, pkg, `item${i}.go`), src);
  }
}

function goFiles(dir: string, rel = "", out: string[] = []): string[] {
  for (const e of Deno.readDirSync(join(dir, rel))) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory && !e.name.startsWith(".") && e.name !== "testdata" && e.name !== "vendor") goFiles(dir, r, out);
    else if (e.isFile && e.name.endsWith(".go") && !e.name.endsWith("_test.go")) out.push(r);
  }
  return out;
}

// --- setup: a private copy with a branch that changes BURST files ---
const work = Deno.makeTempDirSync({ prefix: "cruxe-live-bench-" });
const repo = join(work, "repo");
const home = join(work, "home");
if (positionals[0]) sh(work, "cp", "-a", positionals[0], repo);
else {
  Deno.mkdirSync(repo);
  generateTree(repo, 2000);
}
Deno.mkdirSync(join(repo, "zz_live_bench"), { recursive: true });
for (let k = 0; k < EDITS; k++) {
  Deno.writeTextFileSync(join(repo, "zz_live_bench", `del${k}.go`), `package zz\n\nfunc BenchDelete${k}() {}\n`);
}
const hadGit = (() => {
  try {
    return Deno.statSync(join(repo, ".git")).isDirectory;
  } catch {
    return false;
  }
})();
if (!hadGit) git(repo, "init", "-q", "-b", "main");
git(repo, "add", "-A");
git(repo, "commit", "-q", "-m", "live bench base", "--allow-empty");
const base = git(repo, "rev-parse", "--abbrev-ref", "HEAD").trim();
const targets = goFiles(repo).filter((p) => !p.startsWith("zz_live_bench/"));
const burstFiles = targets.slice(0, Math.min(BURST, targets.length));
git(repo, "checkout", "-q", "-b", "live-bench-burst");
burstFiles.forEach((p, i) =>
  Deno.writeTextFileSync(join(repo, p), `\nfunc BurstFn${i}() int { return ${i} }\n`, { append: true })
);
git(repo, "commit", "-q", "-am", "burst");
git(repo, "checkout", "-q", base);
console.log(
  `corpus: ${positionals[0] ?? "generated 2,000-file Go tree"} (${targets.length} Go files), copy at ${repo}; ` +
    `${burstFiles.length} files differ on branch live-bench-burst`,
);

const t0 = performance.now();
const idx = new Deno.Command(Deno.execPath(), {
  args: ["run", ...FLAGS, join(ROOT, "main.ts"), "index", "--path", repo, "--json"],
  env: { ...Deno.env.toObject(), CRUXE_HOME: home, NO_COLOR: "1" },
  stdout: "piped",
  stderr: "null",
}).outputSync();
if (!idx.success) throw new Error("indexing failed");
const summary = JSON.parse(new TextDecoder().decode(idx.stdout));
/** The load average now and a reference tool timed now: the machine's load moves every wall time here. */
function loadLine(when: string): string {
  const t = performance.now();
  const rg = new Deno.Command("rg", { args: ["-c", "func", repo], stdout: "null", stderr: "null" }).outputSync();
  const ref = rg.code <= 1 ? `rg -c func over the tree ${(performance.now() - t).toFixed(0)} ms` : "rg not run";
  return `${when}: load average ${Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ")} ` +
    `(2 cores); ${ref}`;
}
console.log(loadLine("after indexing"));
console.log(
  `index: ${summary.total_files} files, ${summary.total_symbols} symbols in ${Math.round(performance.now() - t0)} ms`,
);

const s = await serve(home, repo);
let watchMode = "off";
try {
  // The first call routes the workspace; wait until the watch is up and nothing is pending.
  await until(performance.now(), async () => {
    const st = await s.client.callTool({ name: "index_status", arguments: {} });
    const body = JSON.parse((st.content as { text: string }[])[0].text);
    watchMode = body.watch?.mode;
    return body.watch?.mode !== "off" && body.watch?.pending_changes === 0 && !body.active_job;
  });

  // The first query builds the in-memory name index; that one-off cost is not an edit's.
  await locate(s.client, "main");

  // --- edit-to-visible ---
  const lat: Record<string, number[]> = { add: [], rename: [], delete: [] };
  let timeouts = 0;
  let k = 0;
  for (let e = 0; e < EDITS; e++, k++) {
    const kind = (["add", "rename", "delete"] as const)[e % 3];
    const file = targets[(k * 7919) % targets.length];
    const abs = join(repo, file);
    let ms: number | null;
    if (kind === "add") {
      const t = performance.now();
      Deno.writeTextFileSync(abs, `\nfunc LiveAdd${k}() int { return ${k} }\n`, { append: true });
      ms = await until(t, async () => definedAt(await locate(s.client, `LiveAdd${k}`), `LiveAdd${k}`).includes(file));
    } else if (kind === "rename") {
      const prev = targets[((k - 1) * 7919) % targets.length];
      const text = Deno.readTextFileSync(join(repo, prev)).replace(`LiveAdd${k - 1}(`, `LiveRen${k - 1}(`);
      const t = performance.now();
      Deno.writeTextFileSync(join(repo, prev), text);
      ms = await until(t, async () => {
        const now = definedAt(await locate(s.client, `LiveRen${k - 1}`), `LiveRen${k - 1}`);
        return now.includes(prev) &&
          definedAt(await locate(s.client, `LiveAdd${k - 1}`), `LiveAdd${k - 1}`).length === 0;
      });
    } else {
      const t = performance.now();
      Deno.removeSync(join(repo, "zz_live_bench", `del${e}.go`));
      ms = await until(
        t,
        async () => definedAt(await locate(s.client, `BenchDelete${e}`), `BenchDelete${e}`).length === 0,
      );
    }
    if (ms === null) {
      timeouts++;
      const st = JSON.parse(
        ((await s.client.callTool({ name: "index_status", arguments: {} })).content as { text: string }[])[0].text,
      );
      const probe = kind === "delete" ? `BenchDelete${e}` : kind === "add" ? `LiveAdd${k}` : `LiveRen${k - 1}`;
      const cli = new Deno.Command(Deno.execPath(), {
        args: ["run", ...FLAGS, join(ROOT, "main.ts"), "locate", probe, "--workspace", repo, "--json"],
        env: { ...Deno.env.toObject(), CRUXE_HOME: home, NO_COLOR: "1" },
        stdout: "piped",
        stderr: "null",
      }).outputSync();
      const found = new TextDecoder().decode(cli.stdout).match(/"name": "[^"]+"/g)?.slice(0, 2);
      console.log(`  timeout: a fresh CLI process finds ${probe} as ${found}`);
      console.log(
        `  timeout: ${kind} #${e} (${probe}): ${
          JSON.stringify((await locate(s.client, probe)).results?.slice(0, 2))
        } ` +
          `watch ${JSON.stringify(st.watch)} jobs ${JSON.stringify(st.recent_jobs.slice(0, 2))}`,
      );
    } else lat[kind].push(ms);
  }
  console.log(loadLine("after the edits"));
  const all = [...lat.add, ...lat.rename, ...lat.delete];
  console.log(
    `edit-to-visible over ${all.length} edits: p50 ${pct(all, 50).toFixed(0)} ms, p95 ${pct(all, 95).toFixed(0)} ms, ` +
      `max ${Math.max(...all).toFixed(0)} ms; timeouts ${timeouts}`,
  );
  const jobs = JSON.parse(
    ((await s.client.callTool({ name: "index_status", arguments: {} })).content as { text: string }[])[0].text,
  ).recent_jobs as { duration_ms: number }[];
  const done = jobs.filter((j) => j.duration_ms !== null);
  console.log(`  sync jobs (last ${done.length}): ${done.map((j) => j.duration_ms).join(", ")} ms inside the job`);
  for (const [kind, xs] of Object.entries(lat)) {
    if (xs.length) {
      console.log(`  ${kind}: n ${xs.length}, p50 ${pct(xs, 50).toFixed(0)} ms, p95 ${pct(xs, 95).toFixed(0)} ms`);
    }
  }

  // --- burst: a branch switch ---
  const last = burstFiles.length - 1;
  const tb = performance.now();
  git(repo, "checkout", "-q", "-f", "live-bench-burst"); // -f: the edits above are discarded by the switch
  const checkoutMs = performance.now() - tb;
  const burstMs = await until(tb, async () => {
    const a = await locate(s.client, `BurstFn${last}`);
    if (!definedAt(a, `BurstFn${last}`).length) return false;
    const b = await locate(s.client, "BurstFn0");
    return definedAt(b, "BurstFn0").length === 1 && b.metadata.ref === "live-bench-burst" &&
      b.metadata.freshness_status === "fresh";
  }, BURST_BOUND_MS);
  const st = JSON.parse(
    ((await s.client.callTool({ name: "index_status", arguments: {} })).content as { text: string }[])[0].text,
  );
  const burstJobs = (st.recent_jobs as { ref: string; duration_ms: number | null }[])
    .filter((j) => j.ref === "live-bench-burst");
  const syncsForBurst = burstJobs.length;
  console.log(
    `burst: ${burstFiles.length}-file branch switch (git checkout ${checkoutMs.toFixed(0)} ms) consistent after ` +
      `${burstMs === null ? "TIMEOUT" : `${burstMs.toFixed(0)} ms`}; ${syncsForBurst} sync job(s) on the new ref ` +
      `(${burstJobs.map((j) => j.duration_ms ?? "running").join(", ")} ms inside the job)`,
  );

  // --- idle ---
  if (IDLE_S > 0) {
    // The first 10 s let the burst's aftermath (GC, workers ending) settle.
    const idle = await idleCost(s.pid, IDLE_S);
    console.log(
      `idle after the run (watching, ${watchMode}): ${idle.cpuPct.toFixed(2)} % of one core over ` +
        `${idle.wallS.toFixed(0)} s (${idle.cpuS.toFixed(2)} CPU s); RSS ${idle.rssMiB.toFixed(0)} MiB`,
    );
  }
  // What watching itself costs: two fresh servers on the same index side by side, one watching and one not,
  // each after one query, measured over the same window.
  const fresh = [await serve(home, repo), await serve(home, repo, ["--no-watch"])];
  try {
    for (const f of fresh) await locate(f.client, "BurstFn0");
    await new Promise((r) => setTimeout(r, 5000));
    const trees = fresh.map((f) => processTree(f.pid));
    const c0 = trees.map(cpuSeconds);
    const w0 = performance.now();
    await new Promise((r) => setTimeout(r, Math.max(10, IDLE_S) * 1000));
    const wall = (performance.now() - w0) / 1000;
    const [cw, cn] = trees.map((t, i) => (100 * (cpuSeconds(t) - c0[i])) / wall);
    const [mw, mn] = trees.map(rssMiB);
    console.log(
      `fresh servers side by side over ${wall.toFixed(0)} s: watching ${cw.toFixed(2)} % CPU, ${mw.toFixed(0)} MiB; ` +
        `--no-watch ${cn.toFixed(2)} % CPU, ${mn.toFixed(0)} MiB; watching costs ${(cw - cn).toFixed(2)} % of a core ` +
        `and ${(mw - mn).toFixed(0)} MiB`,
    );
  } finally {
    for (const f of fresh) await f.client.close();
  }
} finally {
  await s.client.close();
  Deno.removeSync(work, { recursive: true });
}
