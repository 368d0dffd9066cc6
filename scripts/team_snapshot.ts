/**
 * A team replica's answers against a local index of the same commit, over
 * every fixture repository: `deno run -A scripts/team_snapshot.ts [--only
 * a,b]`. Each fixture is copied and committed as a git repository (branch
 * `main`), indexed locally at `main` (`index_repo {ref: "main"}`) and
 * published into a throwaway PostgreSQL store by a team worker. Every call
 * `scripts/answer_snapshot.ts` makes on a repository (`repoCalls`) that a
 * replica answers is made on both with `ref: "main"` (`open_file`, which
 * reads the working tree locally, without it and compared without its
 * metadata), and the two answers are compared after the checkout's path is
 * blanked. Prints how many are
 * identical and names each one that is not; exits 1 when any differs.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { resolveConfig } from "../src/core/config.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { TeamBuilder } from "../src/index/team_build.ts";
import { queueRepoRefs, runTeamWorker } from "../src/index/team_worker.ts";
import { PgTeamStore } from "../src/state/pg/pg_team_store.ts";
import { openTeamService } from "../src/service/team_open.ts";
import { teamToolNames } from "../src/service/team_service.ts";
import { TOOL } from "../src/core/tool_names.ts";
import { startPgCluster } from "../tests/helpers/pg_cluster.ts";
import { copyFixture } from "../tests/helpers/fixture_repo.ts";
import { repoCalls, REPOS, scrub, snapshotRuntime } from "./answer_snapshot.ts";

const { values } = parseArgs({ args: Deno.args, options: { only: { type: "string" } } });
const only = values.only ? new Set(values.only.split(",")) : null;
const names = [...Deno.readDirSync(REPOS)].filter((e) => e.isDirectory && (!only || only.has(e.name)))
  .map((e) => e.name).sort();

const home = Deno.makeTempDirSync({ prefix: "cruxe-team-snapshot-" });
const cluster = await startPgCluster();
if (!cluster) throw new Error("no PostgreSQL binaries to start a cluster with");
const store = await PgTeamStore.open(cluster.url, { migrate: true, max: 2 });
const { registry, rt, dispatcher } = snapshotRuntime(join(home, "local"));
const builder = new TeamBuilder(join(home, "worker"), resolveConfig({ CRUXE_HOME: join(home, "worker") }, "linux"));
const replica = await openTeamService(cluster.url, join(home, "replica"), 2);
const answered = new Set(teamToolNames(false));
const info = { sendNotification: () => Promise.resolve(), signal: new AbortController().signal };
const copies: string[] = [];
let same = 0;
let total = 0;
try {
  for (const name of names) {
    const copy = copyFixture(name, { git: true });
    copies.push(copy);
    const project = registerProject(registry, copy);
    const local = await dispatcher.call(TOOL.index_repo, { workspace: copy, ref: "main", wait: true }, info);
    if (local.isError) throw new Error(`${name}: ${JSON.stringify(local.structuredContent)}`);
    const repo = await store.addRepo(project.name, copy, ["main"]);
    await queueRepoRefs(store, repo, (p) => Promise.resolve(p));
    const w = await runTeamWorker({
      store,
      builder,
      name: "snapshot",
      leaseSeconds: 600,
      pollMs: 50,
      once: true,
      local: (p) => Promise.resolve(p),
    });
    if (w.published !== 1) throw new Error(`publishing ${name}: ${JSON.stringify(w)}`);
    let differs = 0;
    await repoCalls(copy, async (tool, args) => {
      const withRef = tool === TOOL.open_file ? args : { ...args, ref: "main" };
      const mine = await dispatcher.call(tool, withRef, info);
      if (!answered.has(tool)) return JSON.parse(mine.content[0].text);
      const theirs = await replica.service.call(tool, { ...withRef, workspace: project.name }, info);
      // open_file reads the working tree locally (its metadata is the working tree's); the bodies must agree.
      const shown = (r: typeof mine) => {
        const { metadata, ...body } = r.structuredContent;
        return scrub({ isError: r.isError ?? false, body, ...(tool === TOOL.open_file ? {} : { metadata }) }, copy);
      };
      const a = JSON.stringify(shown(mine));
      const b = JSON.stringify(shown(theirs));
      total++;
      if (a === b) same++;
      else {
        differs++;
        console.log(`differs: ${name} ${tool} ${JSON.stringify({ ...args, workspace: undefined })}`);
        if (Deno.env.get("TEAM_SNAPSHOT_SHOW")) console.log(`  local: ${a}\n  team:  ${b}`);
      }
      return JSON.parse(mine.content[0].text);
    });
    console.error(`${name}: ${differs} of its answers differ`);
  }
  console.log(`identical answers: ${same} / ${total} over ${names.length} fixture repositories`);
} finally {
  await replica.close();
  builder.close();
  rt.close();
  registry.close();
  await store.close();
  await cluster.destroy();
  for (const c of copies) Deno.removeSync(c, { recursive: true });
  Deno.removeSync(home, { recursive: true });
}
if (same !== total) Deno.exit(1);
