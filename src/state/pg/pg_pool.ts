/**
 * Connections to a PostgreSQL store: one pool per process and URL, every
 * query parameterised (the SQL text is always one of `./sql.ts`'s
 * constants), every failure through `pgFault`. An idle connection the server
 * drops is forgotten, never an unhandled error. Requires `--allow-net` to the
 * database host (and `--allow-env`, `--allow-read` the client library asks for).
 */
import pg from "pg";
import { pgFault } from "./pg_faults.ts";

/** A query's rows as plain objects. */
export type PgRow = Record<string, unknown>;

/** Something that runs a parameterised statement: the pool, or one connection inside a transaction. */
export interface PgQuerier {
  query(sql: string, params?: unknown[]): Promise<PgRow[]>;
}

/** How long a connection attempt may take before the store is said unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;

/** A pool of connections to one PostgreSQL store. */
export class PgPool implements PgQuerier {
  private readonly pool: pg.Pool;

  /** Opens (lazily: nothing connects before the first query) a pool of at most `max` connections to `url`. */
  constructor(readonly url: string, opts: { max?: number; applicationName?: string } = {}) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: opts.max ?? 4,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      idleTimeoutMillis: 10_000,
      application_name: opts.applicationName ?? "cruxe",
    });
    // A connection dropped while idle (the server restarted): the pool discards it; the next query reconnects.
    this.pool.on("error", () => {});
  }

  /** Runs one statement with `params`; a store fault is `storage_unavailable`. */
  async query(sql: string, params: unknown[] = []): Promise<PgRow[]> {
    try {
      return (await this.pool.query(sql, params)).rows;
    } catch (e) {
      throw pgFault(e, this.url);
    }
  }

  /**
   * Runs `fn` inside one transaction (`mode`: `BEGIN` options such as
   * `ISOLATION LEVEL REPEATABLE READ READ ONLY`): committed when it resolves,
   * rolled back when it throws. A store fault is `storage_unavailable`.
   */
  async transaction<T>(fn: (q: PgQuerier) => Promise<T>, mode = ""): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw pgFault(e, this.url);
    }
    let broken: unknown = null;
    const q: PgQuerier = {
      query: async (sql, params = []) => {
        try {
          return (await client.query(sql, params)).rows;
        } catch (e) {
          throw pgFault(e, this.url);
        }
      },
    };
    try {
      await q.query(`BEGIN ${mode}`);
      const out = await fn(q);
      await q.query("COMMIT");
      return out;
    } catch (e) {
      broken = e;
      try {
        await client.query("ROLLBACK");
        broken = null; // the connection is usable again
      } catch { /* the connection is gone: released as broken below */ }
      throw e;
    } finally {
      client.release(broken ? (broken instanceof Error ? broken : new Error(String(broken))) : undefined);
    }
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    await this.pool.end();
  }
}
