/**
 * Building one commit for a team store: the ordinary ref indexing from git
 * objects (`./ref_index.ts`, run by the job runner) into a scratch Cruxe
 * home the worker keeps (so a later commit of the same repository reuses
 * what it shares with the one built before), then the commit's file list
 * and a compacted copy of its index (the shard) for the publish. The working tree is never read or touched.
 * Requires what the indexer requires, plus `--allow-run=git`.
 */
import { CruxeError } from "../core/errors.ts";
import type { CruxeConfig } from "../core/config.ts";
import { Registry } from "../state/registry.ts";
import { findRefStore } from "../state/project_refs.ts";
import { openIndexForRead } from "../state/project_index.ts";
import { compactCopy } from "../state/db.ts";
import { gitBlobSizes, gitListTree, gitReadBlobs } from "../io/git.ts";
import { readCommitFiles } from "../state/read/commit_snapshot.ts";
import { join } from "node:path";
import type { SnapshotFile, SnapshotRows } from "../state/pg/team_store.ts";
import { JobRunner } from "./job_runner.ts";
import { registerProject } from "./project_setup.ts";

/** A worker's scratch home: where its ref builds are kept between jobs. */
export class TeamBuilder {
  private readonly registry: Registry;
  private readonly runner: JobRunner;
  private readonly maxFileBytes: number;

  /** Opens (creating) the scratch home `dir`, with `config`'s limits. */
  constructor(readonly dir: string, config: CruxeConfig) {
    this.registry = Registry.open(dir);
    this.maxFileBytes = config.maxFileBytes;
    // One commit per repository in the scratch refs store: a build still starts from the commit built before
    // (only the files that differ are parsed), and the store left holds exactly the commit to publish.
    this.runner = new JobRunner(this.registry, { ...config, home: dir, maxRefStores: 1 }, { warmIdleMs: 1 });
  }

  /**
   * Indexes `commit` of the repository at `repoPath` (from git objects) and
   * returns its rows; `index_not_ready`-style failures of the build are
   * thrown with the build's own error code.
   */
  async build(repoPath: string, commit: string): Promise<SnapshotRows> {
    const project = registerProject(this.registry, repoPath);
    const started = await this.runner.startRef(project, commit, { force: false });
    if (started.active) {
      const job = await started.active.done;
      if (job.status !== "published") {
        const e = started.active.error;
        throw new CruxeError(
          e?.code ?? "internal_error",
          `Building ${commit} of ${repoPath} ended ${job.status}: ${e?.message ?? job.error_message ?? ""}`,
        );
      }
    }
    const store = findRefStore(this.registry, project, commit, []);
    if (!store) throw new CruxeError("internal_error", `the build of ${commit} of ${repoPath} is not in its store`);
    const open = openIndexForRead(store.dir, { refs: true });
    if (!open.db) {
      throw new CruxeError("internal_error", `the refs store of ${repoPath} cannot be read: ${open.status}`);
    }
    // The refs store keeps one commit (see the constructor): its compacted copy is the commit's shard.
    Deno.mkdirSync(join(this.dir, "shards"), { recursive: true });
    const path = join(this.dir, "shards", `${commit}-${crypto.randomUUID()}.db`);
    let files;
    try {
      files = readCommitFiles(open.db, store.refId);
      compactCopy(open.db, path);
    } catch (e) {
      rmQuietly(path);
      throw e;
    } finally {
      open.db.close();
    }
    return {
      files: [...files, ...await otherFiles(repoPath, commit, files, this.maxFileBytes)],
      shard: { path, refId: store.refId, schemaVersion: store.schemaVersion },
      readBlobs: (oids) => readBlobs(repoPath, oids),
      discard: () => rmQuietly(path),
    };
  }

  /** Stops the build workers and closes the scratch registry. */
  close(): void {
    this.runner.shutdown();
    this.registry.close();
  }
}

/**
 * The commit's other files (not indexed: `go.mod`, a README, data), each
 * with its blob, so `open_file` on a replica reads any file of the commit as
 * the local `open_file` reads any file of the working tree; regular files up
 * to the indexing size limit (`maxFileBytes`). Their language is empty and their counts zero.
 */
async function otherFiles(
  root: string,
  commit: string,
  indexed: SnapshotFile[],
  maxBytes: number,
): Promise<SnapshotFile[]> {
  const have = new Set(indexed.map((f) => f.path));
  const tree = await gitListTree(root, commit);
  if (!tree) throw new CruxeError("internal_error", `git could not list the tree of ${commit} in ${root}`);
  const rest = tree.filter((e) => e.type === "blob" && /^1006[0-7]{2}$/.test(e.mode) && !have.has(e.path));
  const sizes = await gitBlobSizes(root, rest.map((e) => e.oid));
  if (!sizes) throw new CruxeError("internal_error", `git could not read the blob sizes of ${commit} in ${root}`);
  return rest.filter((e) => (sizes.get(e.oid) ?? Infinity) <= maxBytes).map((e) => ({
    path: e.path,
    blob: e.oid,
    language: "",
    lineCount: 0,
    symbolCount: 0,
  }));
}

/** Removes the file at `path` if it is there. */
function rmQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch { /* already gone */ }
}

/** The bytes of the blobs `oids` of the repository at `root`. */
async function readBlobs(root: string, oids: string[]): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  const ok = await gitReadBlobs(root, oids, (oid, b) => {
    if (b) out.set(oid, b);
  });
  if (!ok) throw new CruxeError("internal_error", `git could not read the blobs of ${root}`);
  return out;
}
