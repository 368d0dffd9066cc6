/** A live index in this process, beside a real runtime and dispatcher: for tests that steer the watch's timing. */
import assert from "node:assert/strict";
import { bodyOf, tempHomeDir } from "../mcp_helpers.ts";
import { resolveConfig } from "../../src/core/config.ts";
import { Registry } from "../../src/state/registry.ts";
import { registerProject } from "../../src/index/project_setup.ts";
import { ServerRuntime } from "../../src/service/runtime.ts";
import { Dispatcher } from "../../src/service/dispatch.ts";

/**
 * An in-process runtime with the live index on, tuned by `live`, serving one indexed repository. `quiet`:
 * indexed by the job runner, not a call, so the server has answered nothing when watching begins.
 */
export async function liveInProcess(
  repo: string,
  live: ConstructorParameters<typeof ServerRuntime>[2]["live"],
  quiet = false,
) {
  const home = tempHomeDir();
  const config = { ...resolveConfig({ CRUXE_HOME: home }, Deno.build.os), workers: 1 };
  const registry = Registry.open(home);
  const project = registerProject(registry, repo);
  const rt = new ServerRuntime(config, registry, {
    prewarm: false,
    watch: true,
    live,
    router: {
      startupWorkspaces: [project.repo_root],
      autoWorkspace: false,
      allowedRoots: [],
      maxAutoWorkspaces: 10,
      cwd: repo,
    },
  });
  const dispatcher = new Dispatcher(rt);
  const run = async (name: string, args: Record<string, unknown> = {}) =>
    bodyOf(
      await dispatcher.call(name, args, {
        sendNotification: () => Promise.resolve(),
        signal: new AbortController().signal,
      }),
    );
  const indexed = quiet
    ? (await rt.runner.start(project, { mode: "full", force: false }).active.done).status
    : (await run("index_repo", { wait: true })).status;
  assert.equal(indexed, "published");
  rt.live.begin([project], []);
  return { rt, project, run, close: () => rt.close() };
}
