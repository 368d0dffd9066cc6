/**
 * Team store benchmark (not a test): a source tree made a git repository and
 * indexed into the SQLite store (`cruxe index`) and into a throwaway
 * PostgreSQL cluster (`cruxe index --store`, which builds the commit from
 * git objects and publishes it), with `ctags -R` on the same tree in the
 * same run; wall time and store size of each. Then, per replica (each with
 * its own home, so each copies the shard), the first call's latency (the
 * shard copied from the store and opened), and query latency and throughput
 * of `search_code` and `locate_symbol` over HTTP with 20 concurrent clients
 * against one replica and against two (round-robin).
 *
 * Usage: deno task bench:team [CORPUS_DIR]   (default /work/corpora/go)
 */
import { join } from "node:path";
import { startPgCluster } from "../tests/helpers/pg_cluster.ts";
import { awaitHttpPort } from "../tests/mcp_helpers.ts";
import { PgPool } from "../src/state/pg/pg_pool.ts";

const corpus = Deno.args[0] ?? "/work/corpora/go";
const MAIN = new URL("../main.ts", import.meta.url).pathname;
const CLIENTS = 20;
const CALLS = 400;

/** Runs a command; its wall time in seconds (throws on failure). */
async function timed(cmd: string, args: string[], env: Record<string, string> = {}, cwd?: string): Promise<number> {
  const t0 = performance.now();
  const out = await new Deno.Command(cmd, { args, env, cwd, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).slice(-800)}`);
  return (performance.now() - t0) / 1000;
}

/** Total bytes of the files under `dir`. */
function bytesUnder(dir: string): number {
  let n = 0;
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) n += bytesUnder(p);
    else if (e.isFile) n += Deno.statSync(p).size;
  }
  return n;
}

const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
const repo = Deno.makeTempDirSync({ prefix: "cruxe-team-bench-" });
const homes = [0, 1, 2].map(() => Deno.makeTempDirSync({ prefix: "cruxe-team-bench-home-" }));
const pg = (await startPgCluster())!;
const replicas: { port: number; stop(): Promise<void> }[] = [];
try {
  await timed("cp", ["-a", corpus + "/.", repo]);
  const g = ["-c", "user.name=b", "-c", "user.email=b@example.com", "-C", repo];
  await timed("git", [...g, "init", "-q", "-b", "main"]);
  await timed("git", [...g, "add", "-A"]);
  await timed("git", [...g, "commit", "-q", "-m", "corpus"]);
  const files = Number(
    new TextDecoder().decode(new Deno.Command("git", { args: [...g, "ls-files"] }).outputSync().stdout)
      .split("\n").filter(Boolean).length,
  );
  console.log(`corpus ${corpus}: ${files} files in git, ${mib(bytesUnder(corpus))}`);
  const ctags = await timed("ctags", ["-R", "-f", join(homes[2], "tags"), "."], {}, repo);
  console.log(`ctags -R: ${ctags.toFixed(1)} s, tags ${mib(Deno.statSync(join(homes[2], "tags")).size)}`);
  const lite = await timed(Deno.execPath(), ["run", "-A", MAIN, "index", "--path", repo], { CRUXE_HOME: homes[0] });
  console.log(`SQLite  cruxe index: ${lite.toFixed(1)} s, store ${mib(bytesUnder(join(homes[0], "projects")))}`);
  const team = await timed(Deno.execPath(), [
    "run",
    "-A",
    MAIN,
    "index",
    "--store",
    pg.url,
    "--path",
    repo,
    "--ref",
    "main",
  ], {
    CRUXE_HOME: homes[1],
  });
  const admin = new PgPool(pg.url);
  const [{ bytes }] = await admin.query(
    `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'cruxe' AND c.relkind IN ('r', 'm')`,
  );
  const [shard] = await admin.query("SELECT bytes, stored_bytes FROM cruxe.shards");
  await admin.close();
  console.log(
    `shard: SQLite index ${mib(Number(shard.bytes))}, stored compressed ${mib(Number(shard.stored_bytes))}`,
  );
  console.log(
    `Postgres cruxe index --store: ${team.toFixed(1)} s (ref build from git objects + publish), ` +
      `store ${mib(Number(bytes))} (schema cruxe, indexes and TOAST included; the worker's build cache ` +
      `${mib(bytesUnder(join(homes[1], "team-worker")))} besides)`,
  );
  // Replicas: one, then two, each answering 400 calls from 20 clients.
  const queries = ["Handler", "ServeHTTP", "parse duration", "read file contents", "Reader", "tls handshake"];
  const call = async (port: number, i: number) => {
    const q = queries[i % queries.length];
    const [name, args] = i % 2 ? ["locate_symbol", { name: q.split(" ")[0] }] : ["search_code", { query: q }];
    const t0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name, arguments: args } }),
    });
    const body = await res.json();
    if (body.result?.isError) throw new Error(JSON.stringify(body.result).slice(0, 300));
    return performance.now() - t0;
  };
  for (const n of [1, 2]) {
    while (replicas.length < n) {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, "serve-mcp", "--transport", "http", "--port", "0", "--store", pg.url],
        env: { CRUXE_HOME: Deno.makeTempDirSync({ dir: homes[2] }) },
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      replicas.push(await awaitHttpPort(child));
      const first = await call(replicas[replicas.length - 1].port, 0);
      console.log(`replica ${replicas.length}: first call ${first.toFixed(0)} ms (copies and opens the shard)`);
    }
    for (let i = 0; i < 20; i++) await call(replicas[i % n].port, i); // warm
    const ms: number[] = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (next < CALLS) {
        const i = next++;
        ms.push(await call(replicas[i % n].port, i));
      }
    }));
    const wall = (performance.now() - t0) / 1000;
    ms.sort((a, b) => a - b);
    const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))].toFixed(1);
    console.log(
      `${n} replica(s), ${CLIENTS} clients, ${CALLS} calls (search_code and locate_symbol): ` +
        `p50 ${q(0.5)} ms, p95 ${q(0.95)} ms, ${(CALLS / wall).toFixed(0)} calls/s`,
    );
  }
} finally {
  for (const r of replicas) await r.stop();
  await pg.destroy();
  for (const d of [repo, ...homes]) Deno.removeSync(d, { recursive: true });
}
