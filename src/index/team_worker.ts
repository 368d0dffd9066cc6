/**
 * A team worker: claims index jobs from the team store (`FOR UPDATE SKIP
 * LOCKED`, a lease it renews while it builds), builds the job's commit
 * (`./team_build.ts`) and publishes it in one transaction that first checks
 * the worker still holds the job. A worker killed mid-job stops renewing:
 * when its lease runs out another worker claims the job and finishes it, and
 * the killed one's build, never published, is simply gone. When idle, the
 * worker queues the registered refs whose commit moved.
 * Requires what `TeamBuilder` requires, plus `--allow-net` to the database.
 */
import { CruxeError, toCruxeError } from "../core/errors.ts";
import { debug, warn } from "../core/log.ts";
import { gitListRefs, gitResolveRef } from "../io/git.ts";
import { copyDirFor, fetchCopy, isRemoteUrl } from "../io/git_fetch.ts";
import type { ClaimedJob, SnapshotRows, TeamRepo, TeamStore } from "../state/pg/team_store.ts";
import type { TeamBuilder } from "./team_build.ts";

/** How a worker runs. */
export interface TeamWorkerOptions {
  store: TeamStore;
  builder: TeamBuilder;
  /** This worker's name in the job rows (unique among running workers). */
  name: string;
  /** Lease length; renewed every third of it while a job runs. */
  leaseSeconds: number;
  /** How long an idle worker waits before looking for work again. */
  pollMs: number;
  /**
   * Return when no job is queued or running (one running under another
   * worker's lease is waited for: it is taken over if that lease runs out).
   */
  once: boolean;
  signal?: AbortSignal;
  /** Test hook (the config's `testWorkerStallMs`): hold each built job this long before its publish. */
  stallMs?: number;
  /** One line per job event, for the log. */
  report?: (line: string) => void;
  /**
   * The local git directory of a registered repository's path: the path
   * itself, or for a URL this worker's copy, fetched now (`localRepo`).
   */
  local: (path: string) => Promise<string>;
}

/**
 * The local git directory of registered path `path` for a worker whose
 * copies live in `copies`: a local path as it is; a URL's copy, fetched first.
 */
export async function localRepo(path: string, copies: string): Promise<string> {
  return isRemoteUrl(path) ? await fetchCopy(path, await copyDirFor(copies, path)) : path;
}

/** What a worker did. */
export interface TeamWorkerSummary {
  published: number;
  failed: number;
  /** Jobs whose lease this worker lost before it could publish (another worker took them over). */
  lost: number;
}

/** A `*` in a ref pattern matches any characters (`release/*` matches `release/1.2`). */
function patternMatches(pattern: string, name: string): boolean {
  const re = new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
  return re.test(name);
}

/**
 * Queues a job for each ref of `repo` its patterns name whose commit has no
 * job or head yet (branches and tags by name, a plain name also resolved as
 * any ref git knows); returns the jobs queued.
 */
export async function queueRepoRefs(
  store: TeamStore,
  repo: TeamRepo,
  local: (path: string) => Promise<string>,
): Promise<{ ref: string; job: number }[]> {
  const root = await local(repo.path);
  const refs = await gitListRefs(root);
  if (!refs) {
    throw new CruxeError("project_not_found", `${repo.path} is not a git repository Cruxe can read`, {
      path: repo.path,
    });
  }
  const wanted = new Map<string, string>();
  for (const p of repo.refPatterns) {
    for (const r of refs) if (r.kind !== "remote" && patternMatches(p, r.short)) wanted.set(r.short, r.commit);
    if (!p.includes("*") && !wanted.has(p)) {
      const resolved = await gitResolveRef(root, p);
      if (resolved) wanted.set(p, resolved.commit);
    }
  }
  const queued: { ref: string; job: number }[] = [];
  for (const [ref, commit] of wanted) {
    const job = await store.enqueue(repo.id, ref, commit);
    if (job !== null) queued.push({ ref, job });
  }
  return queued;
}

/**
 * Takes up the open refresh requests (a client's `index_repo` on a replica):
 * each ref resolved in its repository; a ref already published at that
 * commit is answered at once, any other gets its job queued and is answered
 * by the job's publish (or failure). A ref the repository does not have is
 * answered with that error. Returns how many jobs it queued.
 */
export async function serveRequests(store: TeamStore, local: (path: string) => Promise<string>): Promise<number> {
  const open = await store.openRequests();
  if (!open.length) return 0;
  let queued = 0;
  const repos = new Map((await store.listRepos()).map((r) => [r.id, r]));
  for (const r of open) {
    const repo = repos.get(r.repoId);
    if (!repo) continue; // removed meanwhile: its requests went with it
    try {
      const resolved = await gitResolveRef(await local(repo.path), r.ref);
      if (!resolved) {
        await store.answerRequest(r.id, null, `${repo.name} has no ref ${r.ref}`);
        continue;
      }
      const head = await store.head(repo.id, r.ref);
      if (head?.commit === resolved.commit) {
        await store.answerRequest(r.id, resolved.commit, null);
        continue;
      }
      if (r.commit === resolved.commit) continue; // its job is queued or running
      await store.noteRequestCommit(r.id, resolved.commit);
      if ((await store.enqueue(repo.id, r.ref, resolved.commit)) !== null) queued++;
    } catch (e) {
      const err = toCruxeError(e);
      if (err.code === "storage_unavailable" && err.data.reason !== "fetch_failed") throw err;
      await store.answerRequest(r.id, null, `${err.code}: ${err.message}`);
    }
  }
  return queued;
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Runs one claimed job: build with the lease renewed, then publish if the lease is still ours. */
async function runJob(o: TeamWorkerOptions, job: ClaimedJob): Promise<"published" | "failed" | "lost"> {
  let lost = false;
  const renew = setInterval(() => {
    o.store.renewLease(job.id, o.name, o.leaseSeconds).then((held) => {
      if (!held) lost = true;
    }, (e) => debug(`lease renewal of job ${job.id} failed: ${(e as Error).message}`));
  }, Math.max(200, (o.leaseSeconds * 1000) / 3));
  let rows: SnapshotRows | null = null;
  try {
    rows = await o.builder.build(await o.local(job.repoPath), job.commit);
    // Test hook: hold the built job before its publish, so a test can kill the worker mid-job.
    const stall = o.stallMs ?? 0;
    if (stall) {
      o.report?.(`job ${job.id} built, holding ${stall} ms`);
      await pause(stall, o.signal);
    }
    if (lost) return "lost";
    return (await o.store.publish(job, o.name, rows)) ? "published" : "lost";
  } catch (e) {
    const err = toCruxeError(e);
    // The store itself failing: the job stays claimed and is taken over when the lease runs out.
    if (err.code === "storage_unavailable") throw err;
    await o.store.fail(job.id, o.name, `${err.code}: ${err.message}`);
    return "failed";
  } finally {
    clearInterval(renew);
    rows?.discard();
  }
}

/** Runs jobs until none is left (`once`) or `signal` aborts; see the module comment. */
export async function runTeamWorker(o: TeamWorkerOptions): Promise<TeamWorkerSummary> {
  const summary: TeamWorkerSummary = { published: 0, failed: 0, lost: 0 };
  while (!o.signal?.aborted) {
    const job = await o.store.claim(o.name, o.leaseSeconds);
    if (!job) {
      if (await serveRequests(o.store, o.local)) continue; // a request queued a job: claim it now
      if (o.once) {
        if (!(await o.store.openJobs())) break;
        await pause(o.pollMs, o.signal);
        continue;
      }
      for (const repo of await o.store.listRepos()) {
        try {
          await queueRepoRefs(o.store, repo, o.local);
        } catch (e) {
          warn(`repository ${repo.name}: ${(e as Error).message}`);
        }
      }
      await pause(o.pollMs, o.signal);
      continue;
    }
    o.report?.(`job ${job.id}: ${job.repoName} ${job.ref} at ${job.commit} (attempt ${job.attempts})`);
    const outcome = await runJob(o, job);
    summary[outcome]++;
    o.report?.(`job ${job.id} ${outcome}`);
  }
  return summary;
}
