/**
 * MCP over HTTP against the real server process: the SDK's
 * StreamableHTTPClientTransport end to end (progress over SSE), the status
 * code table, Host/Origin refusal (DNS rebinding), the bearer token, port in
 * use, and tool results byte-identical to stdio for the same inputs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  awaitHttpPort,
  bodyOf,
  CRUXE_FLAGS,
  REPO_ROOT,
  stdioClient,
  syntheticGoRepo,
  tempHomeDir,
  waitFor,
} from "./mcp_helpers.ts";
import { checkServeOptions, type ServeOptions } from "../src/mcp/serve_options.ts";
import { CruxeError } from "../src/core/errors.ts";

interface HttpServer {
  port: number;
  child: Deno.ChildProcess;
  stderr: () => string;
  stop(): Promise<void>;
}

async function startHttp(home: string, args: string[]): Promise<HttpServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), "serve-mcp", "--transport", "http", "-v", ...args],
    env: { CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    cwd: REPO_ROOT,
  }).spawn();
  await child.stdout.cancel();
  return { ...await awaitHttpPort(child), child };
}

/** Sends one raw HTTP/1.1 request (fetch cannot set Host); returns the status code. */
async function rawStatus(port: number, head: string, body = ""): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const enc = new TextEncoder();
    await conn.write(
      enc.encode(`${head}\r\nContent-Length: ${enc.encode(body).length}\r\nConnection: close\r\n\r\n${body}`),
    );
    const buf = new Uint8Array(4096);
    const n = await conn.read(buf);
    const line = new TextDecoder().decode(buf.subarray(0, n ?? 0)).split("\r\n")[0];
    return Number(line.split(" ")[1]);
  } finally {
    conn.close();
  }
}

const rpc = (method: string, params?: unknown, id: number | string = 1) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });

Deno.test({
  name: "http: SDK client end to end, status codes, rebinding refusal, identical results to stdio",
  fn: async () => {
    const home = tempHomeDir();
    const repo = syntheticGoRepo(80);
    const srv = await startHttp(home, ["--port", "0", "--workspace", repo, "--no-prewarm"]);
    const base = `http://127.0.0.1:${srv.port}/`;
    const client = new Client({ name: "cruxe-http-test", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(base)));
      const tools = await client.listTools();
      assert.ok(tools.tools.length >= 10);
      assert.ok(tools.tools.some((t) => t.name === "get_code_context"));
      let progress = 0;
      const idx = await client.callTool({ name: "index_repo", arguments: { wait: true } }, undefined, {
        onprogress: () => progress++,
        resetTimeoutOnProgress: true,
        timeout: 120_000,
      });
      assert.equal(bodyOf(idx).status, "published");
      assert.ok(progress >= 3, `expected >= 3 progress notifications over SSE, got ${progress}`);
      const loc = bodyOf(await client.callTool({ name: "locate_symbol", arguments: { name: "Compute7x2" } }));
      assert.equal((loc.results as { path: string }[])[0].path, "pkg7/file7.go");

      // The same endpoint on /mcp (where the MCP Inspector and most clients look), announced with /health.
      const atMcp = new Client({ name: "cruxe-http-test-mcp-path", version: "1.0.0" });
      await atMcp.connect(new StreamableHTTPClientTransport(new URL(`${base}mcp`)));
      const viaMcp = bodyOf(await atMcp.callTool({ name: "locate_symbol", arguments: { name: "Compute7x2" } }));
      assert.deepEqual(viaMcp.results, loc.results);
      await atMcp.close();
      assert.match(
        srv.stderr(),
        new RegExp(`MCP over HTTP on ${base}mcp \\(also ${base}\\) for .*; health: ${base}health`),
      );

      // Status codes.
      const health = await fetch(`${base}health`);
      assert.equal(health.status, 200);
      const hb = await health.json();
      for (const k of ["status", "projects", "version", "uptime_seconds", "workspace_warmset"]) assert.ok(k in hb, k);
      assert.equal(hb.status, "ready");
      for (
        const k of [
          "project_id",
          "repo_root",
          "index_status",
          "schema_status",
          "current_schema_version",
          "required_schema_version",
          "last_indexed_at",
          "ref",
          "file_count",
          "symbol_count",
        ]
      ) assert.ok(k in hb.projects[0], `projects[].${k}`);
      const post = (body: string, headers: Record<string, string> = {}) =>
        fetch(base, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
      const malformed = await post("{nope");
      assert.equal(malformed.status, 400);
      assert.equal((await malformed.json()).error.data.code, "invalid_input");
      const invalid = await post(JSON.stringify({ hello: "world" }));
      assert.equal(invalid.status, 400);
      assert.equal((await invalid.json()).error.data.code, "invalid_input");
      const unknownMethod = await post(rpc("no/such"));
      assert.equal(unknownMethod.status, 200, "JSON-RPC errors are 200");
      assert.equal((await unknownMethod.json()).error.data.code, "invalid_input");
      const noCt = await fetch(base, { method: "POST", body: rpc("tools/list") });
      assert.equal(noCt.status, 200, "no Content-Type is read as JSON");
      assert.ok((await noCt.json()).result.tools.length >= 10);
      const get = await fetch(base);
      assert.equal(get.status, 405);
      await get.body?.cancel();
      const putHealth = await fetch(`${base}health`, { method: "PUT" });
      assert.equal(putHealth.status, 405);
      await putHealth.body?.cancel();
      const missing = await fetch(`${base}nope`);
      assert.equal(missing.status, 404);
      await missing.body?.cancel();
      const huge = await post(rpc("tools/call", { name: "search_code", arguments: { query: "x".repeat(10 << 20) } }));
      assert.equal(huge.status, 413);
      await huge.body?.cancel();

      // DNS rebinding: foreign Host or Origin is refused; loopback names pass.
      assert.equal(await rawStatus(srv.port, `GET /health HTTP/1.1\r\nHost: evil.example:${srv.port}`), 403);
      assert.equal(await rawStatus(srv.port, `GET /health HTTP/1.1\r\nHost: localhost:${srv.port}`), 200);
      assert.equal(await rawStatus(srv.port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${srv.port + 1}`), 403);
      const evilOrigin = await post(rpc("tools/list"), { origin: "http://evil.example" });
      assert.equal(evilOrigin.status, 403);
      await evilOrigin.body?.cancel();
      const okOrigin = await post(rpc("tools/list"), { origin: `http://localhost:${srv.port}` });
      assert.equal(okOrigin.status, 200);
      await okOrigin.body?.cancel();

      // Same inputs, byte-identical tool results over stdio and HTTP.
      const stdio = await stdioClient(home, ["--workspace", repo, "--no-prewarm"]);
      try {
        const inputs: [string, Record<string, unknown>][] = [
          ["search_code", { query: "Compute5x3 value" }],
          ["locate_symbol", { name: "Widget4" }],
          ["get_file_outline", { path: "pkg2/file2.go" }],
          ["get_symbol_hierarchy", { symbol_name: "Compute2x1" }],
          ["find_related_symbols", { symbol_name: "Widget2" }],
          ["get_code_context", { query: "Compute1x1", max_tokens: 600 }],
          ["locate_symbol", { name: 5 }],
          ["search_code", { query: "x", workspace: "/not/registered/anywhere" }],
        ];
        for (const [name, args] of inputs) {
          const a = await stdio.client.callTool({ name, arguments: args });
          const b = await client.callTool({ name, arguments: args });
          const ta = (a.content as { text: string }[])[0].text;
          const tb = (b.content as { text: string }[])[0].text;
          assert.equal(tb, ta, `${name} differs between stdio and HTTP`);
          assert.equal(a.isError, b.isError);
        }
      } finally {
        await stdio.client.close();
      }
    } finally {
      await client.close().catch(() => {});
      await srv.stop();
    }
  },
});

Deno.test({
  name: "http: bearer token, port in use, non-loopback bind needs a token, SIGTERM mid-job ends it interrupted",
  fn: async () => {
    const home = tempHomeDir();
    const repo = syntheticGoRepo(150);
    const srv = await startHttp(home, ["--port", "0", "--no-prewarm", "--auth-token", "s3cret", "--workspace", repo]);
    try {
      const base = `http://127.0.0.1:${srv.port}/`;
      const no = await fetch(`${base}health`);
      assert.equal(no.status, 401);
      await no.body?.cancel();
      const wrong = await fetch(`${base}health`, { headers: { authorization: "Bearer nope" } });
      assert.equal(wrong.status, 401);
      await wrong.body?.cancel();
      const ok = await fetch(`${base}health`, { headers: { authorization: "Bearer s3cret" } });
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
      // The protocol endpoint itself: no token or a wrong one is 401 and carries no result.
      const list = rpc("tools/list");
      const call = rpc("tools/call", { name: "locate_symbol", arguments: { name: "Compute1x1" } }, 2);
      for (
        const [what, headers] of [
          ["no token", {}],
          ["wrong token", { authorization: "Bearer nope" }],
          ["token without Bearer", { authorization: "s3cret" }],
          ["longer token", { authorization: "Bearer s3cret2" }],
        ] as [string, Record<string, string>][]
      ) {
        for (const body of [list, call]) {
          const res = await fetch(base, {
            method: "POST",
            body,
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
          });
          const text = await res.text();
          assert.equal(res.status, 401, `${what}: ${text}`);
          assert.ok(!text.includes('"result"') && !text.includes("Compute1x1") && !text.includes("tools"), text);
        }
      }
      const authed = await fetch(base, {
        method: "POST",
        body: list,
        headers: { "content-type": "application/json", authorization: "Bearer s3cret" },
      });
      assert.equal(authed.status, 200);
      assert.ok((await authed.json()).result.tools.length >= 10, "the right token is served");

      const second = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          ...CRUXE_FLAGS,
          join(REPO_ROOT, "main.ts"),
          "serve-mcp",
          "--transport",
          "http",
          "--port",
          String(srv.port),
        ],
        env: { CRUXE_HOME: home, NO_COLOR: "1" },
        stdin: "null",
        cwd: REPO_ROOT,
      }).output();
      assert.notEqual(second.code, 0);
      assert.match(
        new TextDecoder().decode(second.stderr),
        new RegExp(`Port ${srv.port} is already in use\\. Choose a different port with --port\\.`),
      );
      const open = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          ...CRUXE_FLAGS,
          join(REPO_ROOT, "main.ts"),
          "serve-mcp",
          "--transport",
          "http",
          "--bind",
          "0.0.0.0",
        ],
        env: { CRUXE_HOME: home, NO_COLOR: "1", CRUXE_AUTH_TOKEN: "" },
        stdin: "null",
        cwd: REPO_ROOT,
      }).output();
      assert.notEqual(open.code, 0);
      assert.match(new TextDecoder().decode(open.stderr), /--auth-token/);

      // Graceful shutdown on SIGTERM while a job runs: exit 0, the job is reported interrupted next start.
      // First the job the server started itself for the never-indexed workspace ends, so a forced one can start.
      await waitFor(
        async () => {
          const h = await fetch(`${base}health`, { headers: { authorization: "Bearer s3cret" } });
          return ((await h.json()).active_jobs as unknown[]).length === 0;
        },
        120_000,
        "the start-up index job to end",
      );
      const started = await fetch(base, {
        method: "POST",
        headers: { authorization: "Bearer s3cret", "content-type": "application/json" },
        body: rpc("tools/call", { name: "index_repo", arguments: { force: true } }),
      });
      // The job is registered as running when index_repo answers: stopping now is stopping mid-job.
      const startedBody = bodyOf((await started.json()).result);
      assert.equal(startedBody.status, "running", JSON.stringify(startedBody));
      srv.child.kill("SIGTERM");
      assert.equal((await srv.child.status).code, 0, "clean exit on SIGTERM");
      const stdio = await stdioClient(home, ["--workspace", repo, "--no-prewarm"]);
      try {
        // The next start resumes the job at once, so the report may already be resolved: the job list keeps it.
        const st = bodyOf(await stdio.client.callTool({ name: "index_status", arguments: {} }));
        const jobs = st.recent_jobs as { status: string }[];
        assert.ok(jobs.some((j) => j.status === "interrupted"), JSON.stringify(st).slice(0, 400));
      } finally {
        await stdio.client.close();
      }
    } finally {
      await srv.stop();
    }
  },
});

Deno.test("a blank auth token is no token: refused on a public bind, dropped on loopback; a padded one is trimmed", () => {
  const base: ServeOptions = {
    transport: "http",
    port: 0,
    bind: "0.0.0.0",
    workspaces: [],
    autoWorkspace: false,
    allowedRoots: [],
    prewarm: false,
    verbose: 0,
  };
  for (const authToken of ["", " ", "\t \n", "\u00a0\u2003"]) {
    for (const bind of ["0.0.0.0", "::", "192.0.2.1"]) {
      assert.throws(
        () => checkServeOptions({ ...base, bind, authToken }),
        (e) => e instanceof CruxeError && e.code === "invalid_input" && /--auth-token/.test(e.message),
        `${JSON.stringify(authToken)} on ${bind}`,
      );
    }
    assert.equal(checkServeOptions({ ...base, bind: "127.0.0.1", authToken }).authToken, undefined);
  }
  assert.equal(checkServeOptions({ ...base, authToken: "  s3cret\n" }).authToken, "s3cret");
});
