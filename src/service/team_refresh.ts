/**
 * Read-your-writes on a team replica: `index_repo` asks the workers (through
 * the primary store) to index a ref now, and the next read of that ref in the
 * same session waits, bounded, until the commit the workers published is
 * what the read store (a streaming replica, which may lag) serves. A wait
 * that runs out answers from what the read store has, with a warning saying
 * so. HTTP calls have no session: a client there passes `wait: true` to
 * `index_repo`, which keeps the call open until the same point.
 */
import { CruxeError } from "../core/errors.ts";
import type { TeamStore } from "../state/pg/team_store.ts";
import type { TeamTarget } from "./team_router.ts";

/** How long a read waits for a requested ref by default. */
export const SETTLE_MS = 30_000;
/** How long `index_repo {wait: true}` waits at most. */
export const REQUEST_WAIT_MS = 15 * 60_000;
/** How often the stores are asked again while waiting. */
const POLL_MS = 200;

/** What `index_repo` answers on a replica. */
export interface RefreshAnswer {
  request_id: number;
  repo: string;
  ref: string;
  /** `published`: the read store serves `commit`; `queued`: a worker has yet to publish it. */
  status: "published" | "queued";
  commit?: string;
  message: string;
}

/** The refresh requests of one replica and the sessions waiting on them. */
export class TeamRefresh {
  private pending = new Map<string, number>();
  private writerStore: Promise<TeamStore> | null = null;

  /**
   * Requests go to the store `openWriter` opens (the primary; opened on the
   * first request, so a replica starts while the primary is down); waits end
   * when `reader` (the read store) serves the commit.
   */
  constructor(
    private readonly openWriter: () => Promise<TeamStore>,
    private readonly reader: TeamStore,
    private readonly settleMs = SETTLE_MS,
  ) {}

  /** The primary, opened once (a failed open is tried again by the next call). */
  private writer(): Promise<TeamStore> {
    this.writerStore ??= this.openWriter().catch((e) => {
      this.writerStore = null;
      throw e;
    });
    return this.writerStore;
  }

  /** Closes the primary's connections when they were opened. */
  async close(): Promise<void> {
    const w = await this.writerStore?.catch(() => null);
    if (w && w !== this.reader) await w.close();
  }

  /** Asks for `t`'s ref to be indexed now; with `wait`, answers once the read store serves it. */
  async request(t: TeamTarget, session: string | undefined, wait: boolean, signal: AbortSignal) {
    const id = await (await this.writer()).requestRefresh(t.repo.id, t.ref);
    const base = { request_id: id, repo: t.repo.name, ref: t.ref };
    if (wait) {
      const commit = await this.until(id, t, REQUEST_WAIT_MS, signal);
      if (commit) {
        return { ...base, status: "published", commit, message: `${t.ref} of ${t.repo.name} is at ${commit}.` };
      }
    } else if (session !== undefined) this.pending.set(key(session, t), id);
    return {
      ...base,
      status: "queued",
      message: `A worker indexes ${t.ref} of ${t.repo.name} and publishes it; ` +
        (session !== undefined
          ? "this session's next query of that ref waits for it (bounded)."
          : "call index_repo with wait: true to wait for it (an HTTP call has no session to wait in)."),
    } satisfies RefreshAnswer;
  }

  /**
   * Before a read of `t` in `session`: waits for its pending request, if any
   * (at most the settle time). Null when there was nothing to wait for or it
   * arrived; else the warning the answer carries.
   */
  async settle(t: TeamTarget, session: string | undefined, signal: AbortSignal): Promise<string | null> {
    if (session === undefined) return null;
    const k = key(session, t);
    const id = this.pending.get(k);
    if (id === undefined) return null;
    this.pending.delete(k);
    if (await this.until(id, t, this.settleMs, signal)) return null;
    return `index_repo request ${id} for ${t.ref} is not served by this replica yet (waited ${this.settleMs} ms): ` +
      "this answer is from the commit before it.";
  }

  /**
   * Waits until request `id` is answered and the read store's head of `t` is
   * its commit; the commit, or null when `ms` ran out. A failed request
   * throws `ref_not_indexed` with the worker's reason.
   */
  private async until(id: number, t: TeamTarget, ms: number, signal: AbortSignal): Promise<string | null> {
    const end = Date.now() + ms;
    while (!signal.aborted) {
      const r = await (await this.writer()).request(id);
      if (r?.answered && r.error !== null) {
        throw new CruxeError("ref_not_indexed", `Indexing ${t.ref} of ${t.repo.name} failed: ${r.error}`, {
          requested_ref: t.ref,
          repo: t.repo.name,
          request_id: id,
        });
      }
      if (r?.answered && r.commit && (await this.reader.head(t.repo.id, t.ref))?.commit === r.commit) return r.commit;
      if (Date.now() >= end) return null;
      await new Promise((res) => setTimeout(res, POLL_MS));
    }
    return null;
  }
}

function key(session: string, t: TeamTarget): string {
  return `${session}\0${t.repo.id}\0${t.ref}`;
}
