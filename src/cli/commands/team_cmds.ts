/**
 * The team-store commands of the CLI: `repo add`, `worker`, `store-setup`,
 * and the `--store` forms of `index` and `status` (the query commands' team
 * form is the tool commands with `--store`), all against a PostgreSQL store
 * (see docs/TEAM.md). Without a store URL none of this runs: the SQLite
 * commands are untouched. Requires `--allow-net` to the database, and for
 * `index`, `repo add` and `worker` what ref indexing requires.
 */
import { basename, join } from "node:path";
import { CruxeError } from "../../core/errors.ts";
import type { CruxeConfig } from "../../core/config.ts";
import { canonicalDir } from "../../io/workspace_dir.ts";
import { currentRef } from "../../io/git.ts";
import { PgTeamStore } from "../../state/pg/pg_team_store.ts";
import { DEFAULT_ROLES, setupRoles } from "../../state/pg/roles.ts";
import { migratePgStore } from "../../state/pg/schema.ts";
import { redactedStoreUrl } from "../../state/pg/store_url.ts";
import type { TeamRepo } from "../../state/pg/team_store.ts";
import { TeamBuilder } from "../../index/team_build.ts";
import { localRepo, queueRepoRefs, runTeamWorker, type TeamWorkerSummary } from "../../index/team_worker.ts";
import { isRemoteUrl, nameFromUrl, remoteProtocol } from "../../io/git_fetch.ts";
import { printJson, say } from "../output.ts";

/** Runs `fn` on the store at `url` (opened for writing: schema created or migrated when `migrate`), closing it after. */
async function withStore<T>(url: string, migrate: boolean, fn: (s: PgTeamStore) => Promise<T>): Promise<T> {
  const store = await PgTeamStore.open(url, { migrate });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** `ref_patterns` from `--refs a,b/*` (default for a local checkout: its current branch). */
function refPatterns(refs: string | undefined, path: string | null): string[] {
  const list = (refs ?? (path ? currentRef(path) : null) ?? "").split(",").map((r) => r.trim()).filter(Boolean);
  if (!list.length) throw new CruxeError("invalid_input", `name the refs to index with --refs (e.g. --refs main)`);
  return list;
}

/** Where this machine keeps its copies of repositories registered by URL (under the worker's scratch home). */
function copiesDir(config: CruxeConfig, workDir?: string): string {
  return join(workDir ?? join(config.home, "team-worker"), "copies");
}

/**
 * Registers the repository at `path` (a local git directory, or a URL that
 * workers fetch into copies of their own) and queues its refs; returns it
 * with the jobs queued.
 */
async function addRepo(
  config: CruxeConfig,
  store: PgTeamStore,
  a: { path: string; refs?: string; name?: string },
): Promise<{ repo: TeamRepo; queued: { ref: string; job: number }[] }> {
  const remote = isRemoteUrl(a.path);
  if (remote) remoteProtocol(a.path); // a scheme Cruxe does not fetch over is refused before anything is written
  const root = remote ? a.path : canonicalDir(a.path);
  const name = a.name ?? (remote ? nameFromUrl(root) : basename(root) || "root");
  const repo = await store.addRepo(name, root, refPatterns(a.refs, remote ? null : root));
  const copies = copiesDir(config);
  return { repo, queued: await queueRepoRefs(store, repo, (p) => localRepo(p, copies)) };
}

/** `cruxe repo add PATH [--refs main,release/*] --store URL`. */
export async function runRepoAdd(
  config: CruxeConfig,
  url: string,
  a: { path: string; refs?: string; name?: string; json: boolean },
): Promise<number> {
  return await withStore(url, true, async (store) => {
    const { repo, queued } = await addRepo(config, store, a);
    if (a.json) printJson({ repo, queued });
    else {
      say(
        `Registered ${repo.path} as "${repo.name}" (refs ${repo.refPatterns.join(", ")}) in ${redactedStoreUrl(url)}.`,
      );
      say(queued.length ? `Queued: ${queued.map((q) => `${q.ref} (job ${q.job})`).join(", ")}` : "Nothing to queue.");
    }
    return 0;
  });
}

/** A name for this worker in job rows: host, process and a random part (unique among running workers). */
function workerName(): string {
  let host = "host";
  try {
    host = Deno.hostname();
  } catch { /* no --allow-sys: the pid and random part still tell workers apart */ }
  return `${host}:${Deno.pid}:${crypto.randomUUID().slice(0, 8)}`;
}

/** Runs a worker over the store until `once` finds no job left or the process is interrupted. */
async function work(
  config: CruxeConfig,
  store: PgTeamStore,
  o: { once: boolean; leaseSeconds: number; pollMs: number; workDir?: string },
): Promise<TeamWorkerSummary> {
  const builder = new TeamBuilder(o.workDir ?? join(config.home, "team-worker"), config);
  const abort = new AbortController();
  const stop = () => abort.abort();
  try {
    Deno.addSignalListener("SIGINT", stop);
    Deno.addSignalListener("SIGTERM", stop);
  } catch { /* signals unavailable here: run until done */ }
  try {
    return await runTeamWorker({
      store,
      builder,
      name: workerName(),
      leaseSeconds: o.leaseSeconds,
      pollMs: o.pollMs,
      once: o.once,
      signal: abort.signal,
      stallMs: config.testWorkerStallMs,
      local: (p) => localRepo(p, copiesDir(config, o.workDir)),
      report: (line) => console.error(line),
    });
  } finally {
    try {
      Deno.removeSignalListener("SIGINT", stop);
      Deno.removeSignalListener("SIGTERM", stop);
    } catch { /* never added */ }
    builder.close();
  }
}

/** A whole number option in [min, max], or `invalid_input` naming it. */
export function intOption(v: string | undefined, flag: string, d: number, min: number, max: number): number {
  if (v === undefined) return d;
  const n = /^\d{1,9}$/.test(v) ? Number(v) : NaN;
  if (n >= min && n <= max) return n;
  throw new CruxeError("invalid_input", `${flag} must be a whole number from ${min} to ${max} (got ${v})`);
}

/** `cruxe worker --store URL [--once] [--lease-seconds N] [--poll-ms N] [--work-dir DIR]`. */
export async function runWorkerCommand(
  config: CruxeConfig,
  url: string,
  a: { once: boolean; leaseSeconds?: string; pollMs?: string; workDir?: string; json: boolean },
): Promise<number> {
  return await withStore(url, true, async (store) => {
    const s = await work(config, store, {
      once: a.once,
      leaseSeconds: intOption(a.leaseSeconds, "--lease-seconds", 60, 1, 86400),
      pollMs: intOption(a.pollMs, "--poll-ms", 5000, 50, 3_600_000),
      workDir: a.workDir,
    });
    if (a.json) printJson(s);
    else say(`worker done: ${s.published} published, ${s.failed} failed, ${s.lost} taken over by another worker`);
    return s.failed ? 1 : 0;
  });
}

/** `cruxe index --store URL --path P [--ref R]`: registers, queues, and runs the queued jobs here. */
export async function runTeamIndex(
  config: CruxeConfig,
  url: string,
  a: { path: string; ref?: string; json: boolean },
): Promise<number> {
  return await withStore(url, true, async (store) => {
    const { repo, queued } = await addRepo(config, store, { path: a.path, refs: a.ref });
    const s = await work(config, store, { once: true, leaseSeconds: 60, pollMs: 1000 });
    const heads = (await store.status()).heads.filter((h) => h.repo === repo.name);
    if (a.json) printJson({ repo: repo.name, queued, ...s, heads });
    else {
      for (const h of heads) {
        say(
          `${repo.name} ${h.ref} at ${h.commit}: ${h.files} files, ${h.symbols} symbols (published ${h.publishedAt})`,
        );
      }
    }
    if (s.failed) {
      throw new CruxeError(
        "internal_error",
        `${s.failed} index job(s) of ${repo.name} failed (cruxe status --store URL)`,
      );
    }
    return 0;
  });
}

/** `cruxe status --store URL`: repositories, published refs and jobs. */
export async function runTeamStatus(url: string, json: boolean): Promise<number> {
  return await withStore(url, false, async (store) => {
    const s = await store.status();
    if (json) return printJson({ store: redactedStoreUrl(url), ...s }), 0;
    say(`team store ${redactedStoreUrl(url)} (schema ${s.schemaVersion})`);
    for (const r of s.repos) say(`repo ${r.name}: ${r.path} (refs ${r.refPatterns.join(", ")})`);
    for (const h of s.heads) {
      say(`  ${h.repo} ${h.ref} at ${h.commit}: ${h.files} files, ${h.symbols} symbols, published ${h.publishedAt}`);
    }
    say(`jobs: ${Object.entries(s.jobs).map(([k, n]) => `${n} ${k}`).join(", ") || "none"}`);
    return 0;
  });
}

/** `cruxe store-setup --store URL`: creates or migrates the schema and the reader and writer roles. */
export async function runStoreSetup(
  url: string,
  a: { readerRole?: string; writerRole?: string; json: boolean },
): Promise<number> {
  const roles = { reader: a.readerRole ?? DEFAULT_ROLES.reader, writer: a.writerRole ?? DEFAULT_ROLES.writer };
  return await withStore(url, true, async (store) => {
    const before = await migratePgStore(store.pool);
    await store.pool.transaction((q) => setupRoles(q, roles));
    if (a.json) printJson({ store: redactedStoreUrl(url), schema_before: before, roles });
    else {
      say(
        `Schema cruxe ready in ${redactedStoreUrl(url)}; roles ${roles.reader} (read-only) and ${roles.writer} ` +
          "(rows of the cruxe schema only) granted.",
      );
      say(`Give logins a role: CREATE ROLE replica1 LOGIN PASSWORD '…' IN ROLE ${roles.reader};`);
    }
    return 0;
  });
}
