/**
 * A replica's copies of the shards it reads, in one directory it owns: each
 * shard copied from the team store once, checked (`readShardInto`), renamed
 * into place as `<digest>.db`, then opened read-only and scoped to its commit
 * (`scopeToRef`), so every query tool reads it exactly as it reads a local
 * ref's index. The directory is a cache: deleting it loses nothing (the next
 * call copies again). A file is named by the digest of its content and only
 * ever renamed into place whole and checked, so a file found there is taken
 * for its shard when its size is right. Copies no ref head reads any more
 * are removed after a minute without use.
 * Requires `--allow-read`/`--allow-write` on the directory and `--allow-net` to the store.
 */
import { join } from "node:path";
import { CruxeError } from "../../core/errors.ts";
import { SCHEMA_VERSION } from "../../core/version.ts";
import { closeQuietly, type Db, openDb } from "../db.ts";
import { scopeToRef } from "../ref_stores.ts";
import type { PgQuerier } from "./pg_pool.ts";
import { readShardInto, type ShardInfo } from "./shards.ts";

/** How long an open copy no head reads stays (a query may still be reading it). */
const GRACE_MS = 60_000;

interface OpenShard {
  db: Db;
  usedAt: number;
}

/** The shard copies of one replica. */
export class ShardCache {
  private opened = new Map<string, OpenShard>();
  private copying = new Map<string, Promise<void>>();

  /**
   * Copies live in `dir` (created); shards are read from the store through
   * `q`; after each copy, the copies of shards `keep()` does not name are pruned.
   */
  constructor(
    readonly dir: string,
    private readonly q: PgQuerier,
    private readonly keep: () => Promise<ReadonlySet<string>>,
  ) {
    Deno.mkdirSync(dir, { recursive: true });
  }

  /**
   * A read connection to `shard`'s commit, copying the shard first when this
   * replica has no copy. `index_incompatible` when another Cruxe version wrote it.
   */
  async db(shard: ShardInfo): Promise<Db> {
    const open = this.opened.get(shard.digest);
    if (open) {
      open.usedAt = Date.now();
      return open.db;
    }
    if (shard.schemaVersion !== SCHEMA_VERSION) {
      throw new CruxeError(
        "index_incompatible",
        `The team store's index of this ref was written with schema ${shard.schemaVersion}; this Cruxe reads ` +
          `schema ${SCHEMA_VERSION}. A worker of this version republishes it (cruxe index --store URL --path ` +
          "REPO --ref REF after the old head is replaced), or run replicas of the version that wrote it.",
        { schema_status: "reindex_required", found: shard.schemaVersion, expected: SCHEMA_VERSION },
      );
    }
    const path = this.pathOf(shard);
    if (!this.present(path, shard)) await this.copy(shard, path);
    const again = this.opened.get(shard.digest); // another call opened it while this one waited
    if (again) return again.db;
    const db = openDb(path, { readOnly: true });
    if (!scopeToRef(db, shard.refId)) {
      db.close();
      throw new CruxeError("storage_unavailable", `The team store's shard ${shard.id} does not hold its commit.`, {
        reason: "shard_damaged",
        shard: shard.id,
      });
    }
    this.opened.set(shard.digest, { db, usedAt: Date.now() });
    return db;
  }

  /**
   * Copies (and opens) each of `shards` this replica has no copy of yet, one
   * at a time, so the first call that reads a newly published commit does not
   * wait for its copy; a shard that cannot be copied is left to the call that
   * needs it (which then says why). Returns how many were copied.
   */
  async warm(shards: readonly ShardInfo[]): Promise<number> {
    let copied = 0;
    for (const shard of shards) {
      if (this.opened.has(shard.digest) || shard.schemaVersion !== SCHEMA_VERSION) continue;
      try {
        await this.db(shard);
        copied++;
      } catch { /* the call that reads it reports the fault */ }
    }
    return copied;
  }

  /** Closes and deletes the copies whose digest is not in `keep` and that were not used for a minute. */
  prune(keep: ReadonlySet<string>, now = Date.now()): void {
    for (const [digest, o] of this.opened) {
      if (keep.has(digest) || now - o.usedAt < GRACE_MS) continue;
      closeQuietly(o.db);
      this.opened.delete(digest);
    }
    for (const e of Deno.readDirSync(this.dir)) {
      if (e.name.includes(".part-")) {
        this.dropStaleCopy(join(this.dir, e.name), now);
        continue;
      }
      const digest = e.name.replace(/\.db(-wal|-shm)?$/, "");
      if (!/^[0-9a-f]{64}$/.test(digest) || keep.has(digest) || this.opened.has(digest)) continue;
      try {
        Deno.removeSync(join(this.dir, e.name));
      } catch { /* another replica sharing the directory removed it */ }
    }
  }

  /** Removes a copy a process left half written (it died copying), once it is an hour old. */
  private dropStaleCopy(path: string, now: number): void {
    try {
      if (now - (Deno.statSync(path).mtime?.getTime() ?? now) > 3_600_000) Deno.removeSync(path);
    } catch { /* gone already */ }
  }

  /** Closes every open copy (the files stay for the next start). */
  close(): void {
    for (const o of this.opened.values()) closeQuietly(o.db);
    this.opened.clear();
  }

  private pathOf(shard: ShardInfo): string {
    if (!/^[0-9a-f]{64}$/.test(shard.digest)) {
      throw new CruxeError("storage_unavailable", `The team store's shard ${shard.id} has no digest.`, {
        reason: "shard_damaged",
        shard: shard.id,
      });
    }
    return join(this.dir, `${shard.digest}.db`);
  }

  /** True when a whole copy of `shard` is at `path`. */
  private present(path: string, shard: ShardInfo): boolean {
    try {
      return Deno.statSync(path).size === shard.bytes;
    } catch {
      return false;
    }
  }

  /** Copies `shard` to `path` (one copy at a time per shard in this process; another process's copy is atomic). */
  private async copy(shard: ShardInfo, path: string): Promise<void> {
    const running = this.copying.get(shard.digest);
    if (running) return await running;
    const tmp = `${path}.part-${crypto.randomUUID()}`;
    const done = readShardInto(this.q, shard, tmp).then(() => Deno.renameSync(tmp, path)).finally(() =>
      this.copying.delete(shard.digest)
    );
    this.copying.set(shard.digest, done);
    await done;
    const keep = new Set(await this.keep());
    keep.add(shard.digest);
    this.prune(keep);
  }
}
