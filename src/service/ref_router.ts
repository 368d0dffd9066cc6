/**
 * Ref routing: which index a call reads. A call without `ref` reads the
 * session's default (set by `switch_ref`; without one, the live working
 * tree). `WORKTREE` (or `live`) is the working tree; every branch, tag,
 * remote branch or commit, the checked-out branch included, is resolved to
 * its commit and read from that commit's index in the refs store. A ref not indexed answers
 * `ref_not_indexed` carrying the `index_repo` call that fixes it; one still
 * being built answers `overlay_not_ready` with its job's handles. A
 * branch that moved since it was indexed is answered from its last indexed
 * commit, marked `stale` with the fix.
 * Requires `--allow-run=git` (resolving refs) and `--allow-read` on the store.
 */
import { CruxeError } from "../core/errors.ts";
import { gitReadBlobs, gitResolveCommit, refFor, type ResolvedRef } from "../io/git.ts";
import { findRefStore, indexRefFix, isLiveRef, resolveProjectRef } from "../state/project_refs.ts";
import { dirname } from "node:path";
import { type IndexReaders, type IndexView, requireIndex } from "../query/index_reader.ts";
import type { RefSource } from "./ref_views.ts";
import { fileBlobIds } from "../state/read/file_blobs.ts";
import { jobElsewhere, refIndexStatus } from "../query/index_status.ts";
import { listRefStores, type RefStoreInfo, touchRefStore } from "../state/ref_stores.ts";
import type { ProjectRow, Registry } from "../state/registry.ts";
import type { ActiveJob } from "../state/jobs.ts";
import type { ServerRuntime } from "./runtime.ts";

/** A read view of one (workspace, ref): the same kind of handle the working tree's queries use. */
export interface RefRead {
  view: IndexView;
  /** True for the live working tree (watched and synced), false for an indexed commit. */
  live: boolean;
  /** The ref label answers carry (`metadata.ref`). */
  ref: string;
  /** The commit answered from (indexed commits only). */
  commit?: string;
  /** Set when the ref now points at another commit than the one indexed for it: why, and the fix. */
  stale?: string;
}

/** The key of a session's default ref for one project. */
function sessionKey(session: string, projectId: string): string {
  return `${session}\0${projectId}`;
}

/** The ref a session reads by default for `project` (undefined: the working tree). */
export function sessionRef(rt: ServerRuntime, session: string | undefined, projectId: string): string | undefined {
  return session === undefined ? undefined : rt.sessionRefs.get(sessionKey(session, projectId));
}

/** Sets (or with `undefined` clears) a session's default ref for `project`. */
export function setSessionRef(rt: ServerRuntime, session: string, projectId: string, ref: string | undefined): void {
  if (ref === undefined) rt.sessionRefs.delete(sessionKey(session, projectId));
  else rt.sessionRefs.set(sessionKey(session, projectId), ref);
}

/** How often an indexed commit's use is recorded (its eviction order), at most. */
const TOUCH_EVERY_MS = 60_000;
const touched = new Map<string, number>();

function noteUse(dir: string, commit: string): void {
  const now = Date.now();
  const key = `${dir}\0${commit}`;
  if (now - (touched.get(key) ?? 0) < TOUCH_EVERY_MS) return;
  touched.set(key, now);
  touchRefStore(dir, commit);
}

/**
 * The view of an indexed commit, or `index_incompatible` when an older
 * build wrote its refs store: its fix is indexing the ref again (which
 * rebuilds that store), not rebuilding the working tree's index. Null when
 * the commit was rebuilt or evicted since `store` was read.
 */
function currentRefView(rt: RefReadDeps, project: ProjectRow, store: RefStoreInfo, name: string): IndexView | null {
  const view = rt.readers.refView(project, store);
  if (view.schemaStatus === "not_indexed") return null;
  noteUse(store.dir, store.commit);
  if (view.schemaStatus !== "reindex_required") return view;
  throw new CruxeError(
    "index_incompatible",
    `The index of ref ${name} of ${project.repo_root} was built by an older Cruxe (schema ${view.currentSchemaVersion}); ` +
      `index it again with index_repo {"ref": "${name}", "wait": true} (\`cruxe index --ref ${name}\`), which rebuilds it.`,
    { schema_status: "reindex_required", requested_ref: name, fix: indexRefFix(project, name) },
  );
}

/** What `readViewFor` reads through: a server's runtime, or the CLI's registry and readers (no job runner). */
export interface RefReadDeps {
  registry: Registry;
  readers: IndexReaders;
  runner?: { activeRef(projectId: string, commit: string): ActiveJob | undefined };
}

/**
 * The read view of `ref` of `project` (see the module comment); `ref`
 * undefined, `WORKTREE` or `live` reads the working tree. This is the one place a
 * (workspace, ref) pair becomes an index to read: query tools, the CLI's
 * query commands and the ref-comparing tools all come through it.
 */
export async function readViewFor(rt: RefReadDeps, project: ProjectRow, ref: string | undefined): Promise<RefRead> {
  if (isLiveRef(ref)) {
    return { view: rt.readers.view(project), live: true, ref: refFor(project.repo_root, project.vcs_mode) };
  }
  const name = ref!;
  const projectDir = rt.registry.projectDir(project.project_id);
  // One git call on the usual path; without a commit, `resolveProjectRef` says why (unknown ref, not git).
  const commit = (project.vcs_mode === "git" ? await gitResolveCommit(project.repo_root, name) : null) ??
    (await resolveProjectRef(project, name)).commit;
  // The view already open while it reads the commit's current build; else this workspace's refs store, else
  // another worktree's of the repository.
  const cached = rt.readers.cachedRefView(project, commit);
  if (cached) {
    noteUse(dirname(cached.storePath), commit);
    return { view: cached, live: false, ref: name, commit };
  }
  // Looked up again once when the commit was rebuilt between the lookup and the open.
  for (let attempt = 0; attempt < 2; attempt++) {
    const store = findRefStore(rt.registry, project, commit);
    const view = store ? currentRefView(rt, project, store, name) : null;
    if (view) return { view, live: false, ref: name, commit };
    if (!store) break;
  }
  const building = rt.runner?.activeRef(project.project_id, commit) ?? null;
  const elsewhere = building ? null : jobElsewhere(rt.registry, project.project_id, commit);
  if (building || elsewhere) {
    const job = building?.job ?? elsewhere!;
    throw new CruxeError(
      "overlay_not_ready",
      `Ref ${name} (${commit}) of ${project.repo_root} is still being indexed (job ${job.job_id}); retry when it ` +
        "is published (follow the progress token or poll index_status).",
      {
        requested_ref: name,
        commit,
        job_id: job.job_id,
        progress_token: job.progress_token,
        estimated_completion_pct: building?.last?.percentage ?? job.estimated_completion_pct,
      },
    );
  }
  const previous = listRefStores(projectDir).find((s) => s.refName === name);
  const previousView = previous ? currentRefView(rt, project, previous, name) : null;
  if (previous && previousView) {
    return {
      view: previousView,
      live: false,
      ref: name,
      commit: previous.commit,
      stale: `${name} moved to ${commit} since it was indexed at ${previous.commit}; answers come from ` +
        `${previous.commit}. Fix: index_repo {"ref": "${name}"}.`,
    };
  }
  throw new CruxeError(
    "ref_not_indexed",
    `Ref ${name} (${commit}) of ${project.repo_root} is not indexed. Index it (from git objects; the working ` +
      `tree is not touched) with index_repo {"ref": "${name}", "wait": true}, or \`cruxe index --ref ${name}\`.`,
    { requested_ref: name, commit, fix: indexRefFix(project, name) },
  );
}

/**
 * What `index_status {ref}` answers for a git ref: the same shape as for the
 * working tree, about that ref's commit (see `refIndexStatus`), with its
 * `metadata` naming the ref.
 */
export async function refStatus(rt: ServerRuntime, project: ProjectRow, ref: string) {
  const resolved = await resolveProjectRef(project, ref);
  return refIndexStatus(rt.registry, project, {
    resolved,
    store: findRefStore(rt.registry, project, resolved.commit),
    active: rt.runner.activeRef(project.project_id, resolved.commit),
    fix: indexRefFix(project, ref),
  });
}

/** A resolved ref as answers show it. */
export function refFields(r: ResolvedRef) {
  return { ref: r.ref, commit: r.commit, kind: r.kind };
}

/**
 * Builds the index of a git ref a ref-comparing call needs (`why`: the
 * `ref_not_indexed` or `overlay_not_ready` it answered, null for a branch
 * answered from an older commit). Resolves once the ref's commit is
 * published; throws (the caller's error, or why it could not) otherwise.
 */
export type RefIndexer = (ref: string, why: CruxeError | null) => Promise<void>;

/** True for an error a `RefIndexer` may cure: a known commit not indexed, or one still being built. */
function curable(e: unknown): e is CruxeError {
  if (!(e instanceof CruxeError)) return false;
  return e.code === "overlay_not_ready" || (e.code === "ref_not_indexed" && typeof e.data?.commit === "string");
}

/**
 * What the ref-comparing queries (`diff_context`, `compare_symbol_between_commits`) resolve refs against: the
 * project's live index from `working`, and every indexed ref through `readViewFor` (so they answer
 * `ref_not_indexed` and `overlay_not_ready` like every other tool). With `index`, a ref not yet indexed (or
 * being built, or moved since) is indexed first and then read. A git ref's files are read from the blobs
 * its store recorded, never from the working tree.
 */
export function refSourceFor(
  rt: RefReadDeps,
  project: ProjectRow,
  working: () => IndexView,
  maxFileBytes?: number,
  index?: RefIndexer,
): RefSource {
  const readRef = async (ref: string): Promise<RefRead> => {
    let read: RefRead;
    try {
      read = await readViewFor(rt, project, ref);
    } catch (e) {
      if (!index || !curable(e)) throw e;
      await index(ref, e);
      return await readViewFor(rt, project, ref);
    }
    if (!read.stale || !index) return read;
    try {
      await index(ref, null);
    } catch {
      return read; // the older commit, marked stale in the answer
    }
    return await readViewFor(rt, project, ref);
  };
  return {
    project,
    working,
    maxFileBytes,
    indexedRef: async (ref) => {
      const read = await readRef(ref);
      const db = requireIndex(read.view);
      let blobs: Map<string, string> | null = null;
      return {
        db,
        label: ref,
        commitId: read.commit ?? null,
        ...(read.stale ? { stale: read.stale } : {}),
        readFiles: async (paths) => {
          blobs ??= fileBlobIds(db);
          const byOid = new Map<string, string[]>();
          for (const p of paths) {
            const oid = blobs.get(p);
            if (oid) byOid.set(oid, [...byOid.get(oid) ?? [], p]);
          }
          const out = new Map<string, Uint8Array>();
          if (!byOid.size) return out;
          // One `cat-file --batch` for all of them.
          await gitReadBlobs(project.repo_root, [...byOid.keys()], (oid, b) => {
            if (b) { for (const p of byOid.get(oid) ?? []) out.set(p, b); }
          });
          return out;
        },
      };
    },
  };
}
