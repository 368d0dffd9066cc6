/**
 * The index writer alone: parses a tree once on the parse workers, holds
 * every file's rows in memory, then times a cold bulk load of them into a
 * fresh store (row inserts, secondary indexes, name tables, commit) with no
 * parser competing for the cores, and prints bytes per table (`dbstat`).
 * Process CPU time is printed beside wall time, since the machine may be shared.
 *
 *   deno run -A bench/write_bench.ts DIR [--files N]
 */
import { cpuUsage } from "node:process";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { scanRepository } from "../src/index/scan.ts";
import { languageForPath } from "../src/index/languages/registry.ts";
import { readRepoFile } from "../src/io/safe_open.ts";
import { contentHash } from "../src/core/ids.ts";
import { WorkerPool } from "../src/index/worker_pool.ts";
import type { FileRows } from "../src/state/file_rows.ts";
import { IndexWriter } from "../src/state/project_index.ts";

const root = Deno.args[0];
if (!root) {
  console.error("usage: write_bench.ts DIR [--files N]");
  Deno.exit(2);
}
const fi = Deno.args.indexOf("--files");
const maxFiles = fi >= 0 ? Number(Deno.args[fi + 1]) : Infinity;

const scan = await scanRepository(root, { maxFileBytes: 16 * 1024 * 1024, useGit: false });
const pool = new WorkerPool(2, 1000);
const jobs: Promise<FileRows>[] = [];
let id = 0;
for (const f of scan.files) {
  if (id >= maxFiles) break;
  const language = languageForPath(f.path)?.id;
  if (!language) continue;
  const bytes = readRepoFile(root, f.path, { maxBytes: 16 * 1024 * 1024 }).bytes;
  if (bytes.indexOf(0) >= 0) continue;
  const facts = {
    path: f.path,
    hash: contentHash(bytes),
    size: f.size,
    mtimeMs: f.mtimeMs,
    language,
    lineCount: 0,
    parseError: null,
  };
  jobs.push(pool.parse({ id: id++, facts, bytes, fullText: f.size <= 1024 * 1024 }).then((r) => r.rows));
}
const all = await Promise.all(jobs);
pool.close();
const count = (k: "symbols" | "edges" | "occurrences" | "chunks") => all.reduce((n, r) => n + r[k].length, 0);
console.log(
  `${all.length} files, ${count("symbols")} symbols, ${count("edges")} edges, ${count("occurrences")} refs, ${
    count("chunks")
  } chunks; load ${Deno.loadavg().map((x) => x.toFixed(1)).join(" ")}`,
);

const dir = Deno.makeTempDirSync({ prefix: "cruxe-write-bench-" });
const phases: [string, number, number][] = [];
let wall = performance.now();
let cpu = cpuUsage();
const lap = (name: string) => {
  const now = performance.now();
  const c = cpuUsage(cpu);
  phases.push([name, now - wall, (c.user + c.system) / 1000]);
  wall = now;
  cpu = cpuUsage();
};
const w = IndexWriter.open(dir, false);
const extra = Deno.env.get("BENCH_SQL");
if (extra) w.db.exec(extra);
w.begin();
w.beginBulkLoad();
lap("open");
const skip = Deno.env.get("BENCH_SKIP");
if (skip) { for (const r of all) (r as unknown as Record<string, unknown[]>)[skip] = []; }
for (const rows of all) w.insertFile(rows);
lap("rows");
w.endBulkLoad();
lap("merge");
w.createSecondaryIndexes();
lap("indexes");
w.publishNames();
lap("names");
w.commit();
w.checkpoint();
w.close();
lap("commit");
for (const [name, ms, cpuMs] of phases) {
  console.log(`${name.padEnd(8)} wall ${(ms / 1000).toFixed(2)} s, cpu ${(cpuMs / 1000).toFixed(2)} s`);
}
const db = new DatabaseSync(join(dir, "index.db"), { readOnly: true });
const sizes = db.prepare("SELECT name, sum(pgsize) AS b FROM dbstat GROUP BY name ORDER BY b DESC").all() as {
  name: string;
  b: number;
}[];
const total = sizes.reduce((n, r) => n + Number(r.b), 0);
const free = Number((db.prepare("PRAGMA freelist_count").get() as { freelist_count: number }).freelist_count);
console.log(`store ${(total / 1048576).toFixed(1)} MiB in use, ${free} free pages`);
for (const r of sizes.slice(0, 16)) console.log(`  ${r.name.padEnd(32)} ${(Number(r.b) / 1048576).toFixed(1)} MiB`);
db.close();
Deno.removeSync(dir, { recursive: true });
const P = (globalThis as unknown as { __prof?: Record<string, number> }).__prof;
if (P) console.log(Object.entries(P).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)}`).join(", "));
