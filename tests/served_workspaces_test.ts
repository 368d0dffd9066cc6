/**
 * A server prewarms and watches the workspaces it serves, not every project
 * of the registry: a project indexed from the CLI (after the server started,
 * so outside its permission sandbox) is not watched because a status page
 * asked about it, and when a call does use it, the answer and stderr say
 * what stops the watch in Cruxe's words, never the runtime's permission text.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { awaitHttpPort, CRUXE_FLAGS, REPO_ROOT, syntheticGoRepo, tempHomeDir, waitFor } from "./mcp_helpers.ts";
import { tempHome } from "./helpers/fixture_repo.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { resolveConfig } from "../src/core/config.ts";
import { Registry } from "../src/state/registry.ts";
import { JobRunner } from "../src/index/job_runner.ts";
import { Warmset } from "../src/service/warmset.ts";
import { IndexReaders } from "../src/query/index_reader.ts";
import { ServerRuntime } from "../src/service/runtime.ts";

const RAW_PERMISSION = /run again with|--allow-read|NotCapable|Requires read access/;

async function call(port: number, name: string, args: Record<string, unknown>) {
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const msg = await res.json();
  return JSON.parse(msg.result.content[0].text) as Record<string, unknown>;
}

async function health(port: number) {
  const h = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
  return h as { projects: { repo_root: string; watch: { mode: string; reason: string | null } }[] };
}

Deno.test("a project indexed from the CLI is not watched for a status query; using it says why it is not watched", async () => {
  const home = tempHomeDir();
  const served = syntheticGoRepo(3);
  const other = syntheticGoRepo(3);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), "serve-mcp", "--transport", "http", "--port", "0"]
      .concat(["--workspace", served, "--no-prewarm"]),
    env: { CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    cwd: REPO_ROOT,
  }).spawn();
  const srv = await awaitHttpPort(child);
  // Indexed from the CLI while the server runs: registered in the same home, outside the server's sandbox.
  const config = resolveConfig({ CRUXE_HOME: home }, Deno.build.os);
  const registry = Registry.open(home);
  const runner = new JobRunner(registry, config);
  try {
    const project = registerProject(registry, other);
    assert.equal((await runner.start(project, { mode: "full", force: false }).active.done).status, "published");
    const otherRoot = project.repo_root;
    const watchOf = async () => (await health(srv.port)).projects.find((p) => p.repo_root === otherRoot)?.watch;
    // What a status page does for every project it lists.
    const status = await call(srv.port, "index_status", { workspace: otherRoot });
    assert.equal(status.index_status, "ready", JSON.stringify(status).slice(0, 300));
    assert.equal((await watchOf())?.mode, "off", "a status query does not start watching");
    assert.match((await watchOf())!.reason!, /not in use/);
    // A query does use it: the watch cannot start in the sandbox, and says so in Cruxe's words.
    const found = await call(srv.port, "locate_symbol", { name: "Compute1x1", workspace: otherRoot });
    assert.ok(Array.isArray(found.results), JSON.stringify(found).slice(0, 300));
    await waitFor(
      async () => !/not in use|starting/.test((await watchOf())?.reason ?? "not in use"),
      20_000,
      "watch state",
    );
    const watch = (await watchOf())!;
    assert.equal(watch.mode, "off");
    assert.match(watch.reason!, /permission sandbox/);
    assert.doesNotMatch(watch.reason!, RAW_PERMISSION);
    assert.match(srv.stderr(), /not watching/);
    assert.doesNotMatch(srv.stderr(), RAW_PERMISSION);
  } finally {
    runner.shutdown();
    registry.close();
    await srv.stop();
  }
  assert.doesNotMatch(srv.stderr(), RAW_PERMISSION);
});

Deno.test("with --workspace, only served workspaces are prewarmed and watched: not other registered projects", () => {
  const h = tempHome();
  try {
    const served = registerProject(h.registry, syntheticGoRepo(1));
    const cli = registerProject(h.registry, syntheticGoRepo(1));
    h.registry.touchWorkspace(cli.repo_root); // the CLI project is the most recently used
    const rt = new ServerRuntime(h.config, Registry.open(h.home), {
      prewarm: true,
      router: {
        startupWorkspaces: [served.repo_root],
        autoWorkspace: false,
        allowedRoots: [],
        maxAutoWorkspaces: 10,
        cwd: served.repo_root,
      },
      readerWorkers: 0,
    });
    try {
      assert.deepEqual(rt.warmset.status().members, [served.repo_root]);
    } finally {
      rt.close();
    }
    // A server configured with no workspace at all serves every registered one.
    const readers = new IndexReaders(h.registry);
    const all = new Warmset(h.registry, readers, 3, true);
    assert.deepEqual(all.status().members.sort(), [served.repo_root, cli.repo_root].sort());
    readers.closeAll();
  } finally {
    h.close();
  }
});
