/**
 * Paths through symlinks on the command line (`/tmp` and `/var` are symlinks
 * on macOS): `serve-mcp --workspace LINK`, `serve --workspace LINK` and
 * `--allowed-root LINK` start under the permission sandbox and serve the
 * canonical directory; auto-workspace requests through a symlink that
 * resolves inside an allowed root are served like the canonical path.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { bodyOf, CRUXE_FLAGS, REPO_ROOT, stdioClient, tempHomeDir, waitFor } from "./mcp_helpers.ts";
import { checkServeOptions, type ServeOptions, withCanonicalPaths } from "../src/mcp/serve_options.ts";

const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "cruxe-symlink-paths-" }));
/** The canonical allowed root and a repository inside it. */
const root = join(base, "real", "root");
const repo = join(root, "repo");
Deno.mkdirSync(repo, { recursive: true });
Deno.writeTextFileSync(join(repo, "main.py"), "def linked_fn():\n    return 1\n");
/** A symlink to the repository and one to the root, both outside the root. */
const repoLink = join(base, "repo-link");
const rootLink = join(base, "root-link");
Deno.symlinkSync(repo, repoLink);
Deno.symlinkSync(root, rootLink);
/** A symlink inside the root to the repository beside it. */
const innerLink = join(root, "inner-link");
Deno.symlinkSync(repo, innerLink);

const options = (o: Partial<ServeOptions>): ServeOptions => ({
  transport: "stdio",
  port: 9100,
  bind: "127.0.0.1",
  workspaces: [],
  autoWorkspace: false,
  allowedRoots: [],
  prewarm: false,
  verbose: 0,
  ...o,
});

Deno.test("withCanonicalPaths hands on canonical --workspace/--allowed-root in every flag form", () => {
  const o = checkServeOptions(options({ workspaces: [repoLink], allowedRoots: [rootLink], autoWorkspace: true }));
  assert.deepEqual(o.workspaces, [repo]);
  assert.deepEqual(o.allowedRoots, [root]);
  const args = ["--workspace", repoLink, "-v", `--allowed-root=${rootLink}`, "--auto-workspace", "--no-prewarm"];
  assert.deepEqual(withCanonicalPaths(args, o), [
    "-v",
    "--auto-workspace",
    "--no-prewarm",
    "--workspace",
    repo,
    "--allowed-root",
    root,
  ]);
});

Deno.test({
  name: "serve-mcp --workspace through a symlink starts under the sandbox and serves the canonical directory",
  async fn() {
    const s = await stdioClient(tempHomeDir(), ["--workspace", repoLink, "--no-prewarm"]);
    try {
      const st = bodyOf(await s.client.callTool({ name: "index_status", arguments: {} }));
      assert.equal(st.repo_root, repo, JSON.stringify(st));
      // The path as the user typed it names the same workspace.
      const same = bodyOf(await s.client.callTool({ name: "index_status", arguments: { workspace: repoLink } }));
      assert.equal(same.project_id, st.project_id);
    } finally {
      await s.client.close();
    }
  },
});

Deno.test({
  name: "serve-mcp --workspace through a symlink whose name Deno's flags cannot carry still serves the target",
  async fn() {
    // Only the canonical path reaches the sandboxed server, so the comma in the link's name never matters.
    const comma = join(base, "repo,link");
    Deno.symlinkSync(repo, comma);
    const s = await stdioClient(tempHomeDir(), ["--workspace", comma, "--no-prewarm"]);
    try {
      const st = bodyOf(await s.client.callTool({ name: "index_status", arguments: {} }));
      assert.equal(st.repo_root, repo, JSON.stringify(st));
    } finally {
      await s.client.close();
    }
  },
});

Deno.test({
  name: "serve --workspace through a symlink indexes and serves the canonical directory",
  async fn() {
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), "serve", "--workspace", repoLink],
      env: { ...Deno.env.toObject(), CRUXE_HOME: tempHomeDir(), CRUXE_WORKERS: "1", NO_COLOR: "1" },
      stderr: "pipe",
      cwd: REPO_ROOT,
    });
    let err = "";
    transport.stderr?.on("data", (d: Uint8Array) => err += new TextDecoder().decode(d));
    const client = new Client({ name: "cruxe-test", version: "1.0.0" });
    try {
      await client.connect(transport);
      let st: Record<string, unknown> = {};
      await waitFor(
        async () => {
          st = bodyOf(await client.callTool({ name: "index_status", arguments: {} }));
          return st.index_status === "ready";
        },
        30_000,
        "serve's background index",
      );
      assert.equal(st.repo_root, repo);
      const hit = bodyOf(await client.callTool({ name: "search_code", arguments: { query: "linked_fn" } }));
      assert.match(JSON.stringify(hit), /main\.py/);
    } catch (e) {
      throw new Error(`${(e as Error).message}\nstderr: ${err}`);
    } finally {
      await client.close();
    }
  },
});

Deno.test({
  name: "--allowed-root through a symlink: auto-workspace requests by either path, or a symlink inside, are served",
  async fn() {
    const s = await stdioClient(tempHomeDir(), ["--auto-workspace", "--allowed-root", rootLink, "--no-prewarm"]);
    try {
      const ids = new Set<unknown>();
      for (const ws of [repo, join(rootLink, "repo"), innerLink]) {
        const r = await s.client.callTool({ name: "index_status", arguments: { workspace: ws } });
        assert.notEqual(r.isError, true, `${ws}: ${JSON.stringify(r)}`);
        const st = bodyOf(r);
        assert.equal(st.repo_root, repo, ws);
        ids.add(st.project_id);
      }
      assert.equal(ids.size, 1, "one workspace, whichever path named it");
      // A symlink leading outside the allowed root is still refused.
      const away = join(root, "away");
      Deno.symlinkSync(base, away);
      const r = await s.client.callTool({ name: "index_status", arguments: { workspace: away } });
      assert.equal(r.isError, true);
      const refused = bodyOf(r).error as { code: string; message: string; data: { allowed_roots?: string[] } };
      assert.equal(refused.code, "workspace_not_allowed");
      // The root is named once, though the sandbox also grants the symlink's spelling of it.
      assert.deepEqual(refused.data.allowed_roots, [root]);
      assert.equal(refused.message.match(/--allowed-root \(([^)]*)\)/)?.[1], root, refused.message);
      // A symlink elsewhere that the sandbox cannot even read, with a launcher that may not listen on its resolver
      // socket (no --allow-net for it): refused with the same code and a way forward.
      const elsewhere = join(base, "elsewhere-link");
      Deno.symlinkSync(repo, elsewhere);
      const far = await s.client.callTool({ name: "index_status", arguments: { workspace: elsewhere } });
      const err = bodyOf(far).error as { code: string; message: string };
      assert.equal(err.code, "workspace_not_allowed");
      assert.match(err.message, /--allowed-root/);
    } finally {
      await s.client.close();
    }
  },
});

for (const mode of ["reexec", "worker"] as const) {
  Deno.test({
    name: `a symlink elsewhere leading into the allowed root is served (${mode}): the launcher resolves it`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      // The launcher as the `cruxe` task starts it (network granted, so it may listen on its resolver socket).
      const flags = [...CRUXE_FLAGS.filter((f) => !f.startsWith("--allow-net")), "--allow-net"];
      const transport = new StdioClientTransport({
        command: Deno.execPath(),
        args: [
          "run",
          ...flags,
          "--unstable-worker-options",
          join(REPO_ROOT, "main.ts"),
          "serve-mcp",
          "--auto-workspace",
          "--allowed-root",
          root,
          "--no-prewarm",
        ],
        env: {
          ...Deno.env.toObject(),
          CRUXE_HOME: tempHomeDir(),
          CRUXE_WORKERS: "1",
          NO_COLOR: "1",
          CRUXE_SANDBOX: mode === "worker" ? "worker" : "",
        },
        stderr: "pipe",
        cwd: REPO_ROOT,
      });
      const client = new Client({ name: "cruxe-test", version: "1.0.0" });
      await client.connect(transport);
      try {
        const elsewhere = join(base, `elsewhere-${mode}`);
        Deno.symlinkSync(repo, elsewhere);
        const r = await client.callTool({ name: "index_status", arguments: { workspace: elsewhere } });
        assert.notEqual(r.isError, true, JSON.stringify(r));
        assert.equal(bodyOf(r).repo_root, repo, "served as its canonical path");
        // A link elsewhere leading outside the root, or nowhere, is refused as before, saying nothing of its target.
        const out = join(base, `out-${mode}`);
        Deno.symlinkSync(join(base, "real"), out);
        const dangling = join(base, `dangling-${mode}`);
        Deno.symlinkSync(join(root, "missing"), dangling);
        for (const ws of [out, dangling]) {
          const refused = await client.callTool({ name: "index_status", arguments: { workspace: ws } });
          const err = bodyOf(refused).error as { code: string; message: string };
          assert.equal(err?.code, "workspace_not_allowed", `${ws}: ${JSON.stringify(refused)}`);
          assert.ok(!err.message.includes(join(base, "real")), err.message);
        }
      } finally {
        await client.close();
      }
    },
  });
}

Deno.test({
  name: "symlink paths: teardown",
  fn() {
    Deno.removeSync(base, { recursive: true });
  },
});
