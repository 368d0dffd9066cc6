/**
 * What the in-process indexing benchmarks share: a registry in `home`, a job
 * runner with the environment's worker count, the tree registered as a
 * project, and the summary of the last job that ended.
 */
import type { IndexSummary } from "../src/state/jobs.ts";
import { resolveConfig } from "../src/core/config.ts";
import { Registry } from "../src/state/registry.ts";
import { JobRunner } from "../src/index/job_runner.ts";
import { registerProject } from "../src/index/project_setup.ts";

/** A runner over `tree` with its store in `home`; `summary()` is the last ended job's summary (null before one). */
export function benchRunner(home: string, tree: string) {
  const config = resolveConfig({ CRUXE_HOME: home, CRUXE_WORKERS: Deno.env.get("CRUXE_WORKERS") }, Deno.build.os);
  const registry = Registry.open(home);
  const runner = new JobRunner(registry, config);
  const project = registerProject(registry, tree);
  let last: IndexSummary | null = null;
  runner.subscribe((e) => {
    if (e.type === "end") last = e.summary;
  });
  return { config, registry, runner, project, summary: (): IndexSummary | null => last };
}
