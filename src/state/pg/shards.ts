/**
 * Shards: a published build's SQLite index stored in the team store, gzip
 * compressed and cut into parts of at most `PART_BYTES`, with the sha-256
 * digest of the uncompressed file. A worker writes one inside its publish
 * transaction; a replica copies it to a local file and checks its size and
 * digest before anything opens it, so a shard cut short or altered on the
 * way is never read. Every statement is one of `./sql.ts`'s.
 * Requires `--allow-net` to the database and read/write on the files named.
 */
import { createHash } from "node:crypto";
import { CruxeError } from "../../core/errors.ts";
import { concatChunks } from "../../core/byte_chunks.ts";
import type { PgQuerier } from "./pg_pool.ts";
import * as SQL from "./sql.ts";

/** Largest part written (a row's bytea stays far below PostgreSQL's limits and a read holds one in memory). */
export const PART_BYTES = 4 * 1024 * 1024;

/** What a shard is, as its row records it. */
export interface ShardInfo {
  id: number;
  digest: string;
  /** Size of the SQLite file. */
  bytes: number;
  /** Size stored (compressed). */
  storedBytes: number;
  /** The commit's id inside the shard (its refs-store `ref_commits` row). */
  refId: number;
  /** The Cruxe index schema the shard was written with. */
  schemaVersion: number;
}

/**
 * Writes the SQLite file at `path` as a new shard through `q` (inside the
 * publish's transaction): compressed, in parts, with its digest. Returns its row.
 */
export async function writeShard(
  q: PgQuerier,
  path: string,
  shard: { refId: number; schemaVersion: number },
): Promise<ShardInfo> {
  const id = Number((await q.query(SQL.NEW_SHARD, ["", 0, 0, shard.refId, shard.schemaVersion]))[0].id);
  const hash = createHash("sha256");
  let bytes = 0;
  let stored = 0;
  let seq = 0;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (!pendingBytes) return;
    await q.query(SQL.INSERT_SHARD_PART, [id, seq++, concatChunks(pending, pendingBytes)]);
    stored += pendingBytes;
    pending = [];
    pendingBytes = 0;
  };
  using file = await Deno.open(path, { read: true });
  const compressed = file.readable.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        hash.update(chunk);
        bytes += chunk.length;
        ctl.enqueue(chunk);
      },
    }),
  ).pipeThrough(new CompressionStream("gzip") as TransformStream<Uint8Array, Uint8Array>);
  for await (const chunk of compressed) {
    for (let at = 0; at < chunk.length;) {
      const take = Math.min(chunk.length - at, PART_BYTES - pendingBytes);
      pending.push(chunk.subarray(at, at + take));
      pendingBytes += take;
      at += take;
      if (pendingBytes === PART_BYTES) await flush();
    }
  }
  await flush();
  const digest = hash.digest("hex");
  await q.query(SQL.FINISH_SHARD, [id, digest, bytes, stored]);
  return { id, digest, bytes, storedBytes: stored, refId: shard.refId, schemaVersion: shard.schemaVersion };
}

/**
 * Copies `shard` from the store into the new file `dest` (which must not
 * exist), part by part, and checks it: `storage_unavailable` (with `reason`
 * `shard_damaged`) and the file removed when its size or digest is not the
 * shard's (a part missing or altered).
 */
export async function readShardInto(q: PgQuerier, shard: ShardInfo, dest: string): Promise<void> {
  const hash = createHash("sha256");
  let bytes = 0;
  const file = await Deno.open(dest, { write: true, createNew: true });
  try {
    const parts = new ReadableStream<Uint8Array>(
      {
        seq: 0,
        async pull(ctl) {
          const rows = await q.query(SQL.SHARD_PART, [shard.id, this.seq++]);
          if (!rows.length) ctl.close();
          else ctl.enqueue(rows[0].data as Uint8Array);
        },
      } as UnderlyingDefaultSource<Uint8Array> & { seq: number },
    );
    const plain = parts.pipeThrough(new DecompressionStream("gzip") as TransformStream<Uint8Array, Uint8Array>);
    for await (const chunk of plain) {
      hash.update(chunk);
      bytes += chunk.length;
      let at = 0;
      while (at < chunk.length) at += await file.write(chunk.subarray(at));
    }
  } catch (e) {
    file.close();
    Deno.removeSync(dest);
    if (e instanceof CruxeError) throw e;
    throw mismatch(shard, `it does not decompress (${(e as Error).message})`);
  }
  file.close();
  const digest = hash.digest("hex");
  if (bytes !== shard.bytes || digest !== shard.digest) {
    Deno.removeSync(dest);
    throw mismatch(shard, `got ${bytes} bytes with digest ${digest.slice(0, 12)}`);
  }
}

/** The error for a shard whose copy is not what its row says. */
function mismatch(shard: ShardInfo, why: string): CruxeError {
  return new CruxeError(
    "storage_unavailable",
    `The team store's index shard ${shard.id} is damaged: ${why}, expected ${shard.bytes} bytes with digest ` +
      `${shard.digest.slice(0, 12)}. Nothing was read from it; a worker republishing the ref replaces it.`,
    { reason: "shard_damaged", shard: shard.id },
  );
}
