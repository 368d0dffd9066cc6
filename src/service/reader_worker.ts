/**
 * Reader worker: answers reader tools off the server's main thread. It runs
 * the tool's own handler, which the compiler holds to a `ReaderContext` (the
 * index and nothing of the server), against its own read-only connection to
 * the index file the main thread names. A commit rebuilt or evicted since
 * the main thread looked is handed back to it. Requires `--allow-read` on the
 * Cruxe home.
 */
/// <reference lib="deno.worker" />
import type { Db } from "../state/db.ts";
import { closeQuietly, openDb } from "../state/db.ts";
import { storeIdentity } from "../state/project_index.ts";
import { scopeToRef } from "../state/ref_stores.ts";
import { CruxeError } from "../core/errors.ts";
import { TOOLS } from "./tools/registry.ts";
import type { ReaderContext } from "./tools/tool.ts";
import {
  MAIN_THREAD_ONLY,
  type ReaderReply,
  type ReaderRequest,
  type ReaderWarm,
  type ReaderWarmed,
} from "./reader_pool.ts";
import { TOOL } from "../core/tool_names.ts";

/** The reader tools, by name: the only ones a worker runs. */
const tools = new Map(TOOLS.flatMap((t) => t.runs === "worker" ? [[t.name, t] as const] : []));

/** Open connections by index path (and commit, for a refs store), with the file identity they were opened on. */
const open = new Map<string, { db: Db; id: string | null }>();
/** Connections kept at most (each commit of a refs store read has its own). */
const MAX_OPEN = 16;

/**
 * A read-only connection to the index at `path` (with `scope`, to that
 * commit of a refs store), reopened when the file was replaced: `knownId` is
 * the identity the main thread's view has (it checks the file), else the
 * file is stat'ed here.
 */
function connection(path: string, knownId?: string | null, scope?: number): Db {
  const id = knownId !== undefined ? knownId : storeIdentity(path);
  const key = scope === undefined ? path : `${path}\0${scope}`;
  const have = open.get(key);
  open.delete(key); // re-inserted below: the map's order is the order of use
  if (have && have.id === id) {
    open.set(key, have);
    return have.db;
  }
  closeQuietly(have?.db);
  const db = openDb(path, { readOnly: true });
  try {
    // A commit rebuilt or evicted since the main thread looked: the main thread answers (it looks again).
    if (scope !== undefined && !scopeToRef(db, scope)) mainThreadOnly();
  } catch (e) {
    db.close();
    throw e;
  }
  open.set(key, { db, id });
  for (const [k, c] of open) {
    if (open.size <= MAX_OPEN) break;
    open.delete(k);
    closeQuietly(c.db);
  }
  return db;
}

/** The commit to read is no longer in the refs store: the main thread answers (it looks again). */
class RefGone extends Error {
  constructor() {
    super(MAIN_THREAD_ONLY);
  }
}

function mainThreadOnly(): never {
  throw new RefGone();
}

/** Blocks this worker `ms` ms (the tests' stand-in for a slow query or a slow start). */
function stall(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

async function answer(req: ReaderRequest): Promise<ReaderReply> {
  // A synchronous block, like a slow SQLite query: nothing else runs in this worker meanwhile.
  if (req.stallMs) stall(req.stallMs);
  try {
    const def = tools.get(req.tool);
    if (!def) return { id: req.id, fallback: true };
    const db = connection(req.storePath, req.storeId, req.scope);
    const ctx: ReaderContext = { db: () => db, signal: new AbortController().signal };
    const body = await def.handler(req.args as never, ctx);
    return { id: req.id, body: body as Record<string, unknown> };
  } catch (e) {
    if (e instanceof RefGone) return { id: req.id, fallback: true };
    if (e instanceof CruxeError) {
      return { id: req.id, error: { cruxe: true, code: e.code, message: e.message, data: e.data } };
    }
    const err = e as { message?: unknown; code?: unknown; name?: unknown };
    return {
      id: req.id,
      error: {
        cruxe: false,
        code: typeof err?.code === "string" ? err.code : undefined,
        message: typeof err?.message === "string" ? err.message : String(e),
        name: typeof err?.name === "string" ? err.name : "Error",
      },
    };
  }
}

/**
 * A search term no index holds: the warm search runs the query code without
 * reading a common word's postings, which on a kernel-sized index took
 * 0.4–0.7 s that the first real call waited for.
 */
const WARM_QUERY = "cruxe_warm_0q7zx";

/**
 * Opens the named indexes ahead of the first call (`ReaderPool.warm`) and
 * runs one search on the first whose term matches nothing, so the first real
 * query finds the query code loaded and the store's schema read without
 * waiting behind a large read; then says it is warm.
 */
async function warm(paths: string[], stallMs?: number): Promise<void> {
  if (stallMs) stall(stallMs);
  for (const p of paths) {
    try {
      connection(p);
    } catch { /* the first call reports what is wrong with it */ }
  }
  if (paths[0]) await answer({ id: 0, tool: TOOL.search_code, args: { query: WARM_QUERY }, storePath: paths[0] });
  self.postMessage({ warmed: true } satisfies ReaderWarmed);
}

self.onmessage = async (e: MessageEvent<ReaderRequest | ReaderWarm>) => {
  if ("warm" in e.data) return await warm(e.data.warm, e.data.stallMs);
  self.postMessage(await answer(e.data));
};
