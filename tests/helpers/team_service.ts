/**
 * A team replica's service in the test's own process (as a long-lived
 * server holds it): `call(tool, args)` answers with the tool result's
 * structured content, `isError` set on an error result.
 */
import { openTeamService } from "../../src/service/team_open.ts";
import { tempDir } from "./temp_dir.ts";

/** A tool answer: the body with its metadata, or `{error, metadata}` with `isError` true. */
export type TeamAnswer = Record<string, unknown> & { isError?: boolean };

/** Runs `fn` with a replica service reading the store at `url` (its shard cache in a temporary home). */
export async function withTeamService<T>(
  url: string,
  fn: (call: (tool: string, args: Record<string, unknown>) => Promise<TeamAnswer>) => Promise<T>,
): Promise<T> {
  const home = tempDir("cruxe-replica-home-");
  const team = await openTeamService(url, home, 2);
  const signal = new AbortController().signal;
  try {
    return await fn(async (tool, args) => {
      const r = await team.service.call(tool, args, { sendNotification: () => Promise.resolve(), signal });
      return r.isError ? { ...r.structuredContent, isError: true } : r.structuredContent;
    });
  } finally {
    await team.close();
    Deno.removeSync(home, { recursive: true });
  }
}
