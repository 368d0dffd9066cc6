/**
 * Opening a team replica's service: the store at a URL (read-only use, its
 * schema already this build's), its shard cache under the Cruxe home, and
 * the `TeamService` answering through both. Requires `--allow-net` to the
 * database and read/write on the home.
 */
import { join } from "node:path";
import { PgTeamStore } from "../state/pg/pg_team_store.ts";
import { ShardCache } from "../state/pg/shard_cache.ts";
import { TeamService } from "./team_service.ts";
import { TeamRefresh } from "./team_refresh.ts";

/** A team service with what it holds open. */
export interface OpenTeamService {
  service: TeamService;
  store: PgTeamStore;
  /** Copies the shards of every ref head this replica has no copy of yet; how many it copied. */
  warmHeads(): Promise<number>;
  /** Closes the shard copies and the store's connections. */
  close(): Promise<void>;
}

/** Where a replica keeps its shard copies under the Cruxe home `home`. */
export function shardCacheDir(home: string): string {
  return join(home, "team-shards");
}

/**
 * Opens the service reading the store at `url` (with at most `connections`)
 * and caching shards under `home`. `primary`, when given, is the store
 * `index_repo` writes its requests to (the primary of a streaming replica
 * `url`, or `url` itself); without it the service does not offer `index_repo`.
 */
export async function openTeamService(
  url: string,
  home: string,
  connections: number,
  primary: string | null = null,
): Promise<OpenTeamService> {
  const store = await PgTeamStore.open(url, { migrate: false, max: connections });
  const shards = new ShardCache(shardCacheDir(home), store.pool, () => store.headDigests());
  const openWriter = () =>
    primary === url ? Promise.resolve(store) : PgTeamStore.open(primary!, { migrate: false, max: 2 });
  const refresh = primary === null ? null : new TeamRefresh(openWriter, store);
  const service = new TeamService(store, shards, refresh);
  return {
    service,
    store,
    warmHeads: async () => await shards.warm(await store.headShards()),
    close: async () => {
      shards.close();
      await refresh?.close();
      await store.close();
    },
  };
}
