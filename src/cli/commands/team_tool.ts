/**
 * A tool command run against a team store (`--store`, `--read-store`, or the
 * config's `store`): the same arguments as the local call, minus the
 * workspace (a team store names repositories: `--repo`), through the one
 * team entry (`callTeamTool`); `--json` prints its answer, else the tool's
 * view for people after a line naming the repository, ref and commit read.
 * Requires `--allow-net` to the database.
 */
import { CruxeError, type ErrorCode } from "../../core/errors.ts";
import { PgTeamStore } from "../../state/pg/pg_team_store.ts";
import { callTeamTool } from "../../service/team_call.ts";
import type { CliSpec } from "../../service/tools/tool.ts";
import { EXIT_FOUND, EXIT_NOTHING, exitCodeFor, printJson, say } from "../output.ts";
import { showAnswer } from "../tool_views.ts";

/** Runs tool `name` against the store at `url`; returns the exit code (an error answer is thrown or printed). */
export async function runTeamTool(
  url: string,
  name: string,
  spec: CliSpec,
  args: Record<string, unknown>,
  json: boolean,
): Promise<number> {
  const store = await PgTeamStore.open(url, { migrate: false, max: 1 });
  try {
    let answer: Record<string, unknown>;
    try {
      answer = await callTeamTool(store, name, args) as Record<string, unknown>;
    } catch (e) {
      if (!json || !(e instanceof CruxeError)) throw e;
      printJson({ error: e.toJSON() });
      return exitCodeFor(e.code as ErrorCode);
    }
    if (json) printJson(answer);
    else {
      const m = answer.metadata as { repo: string; ref: string; commit: string };
      say(`${spec.command} in ${m.repo} at ${m.ref} (${m.commit}), team store:`);
      showAnswer(spec.command, answer, null);
    }
    return (spec.found?.(answer) ?? true) ? EXIT_FOUND : EXIT_NOTHING;
  } finally {
    await store.close();
  }
}
