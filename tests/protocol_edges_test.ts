/**
 * Protocol edges, each a clear error with a registry code after which the
 * server keeps serving: `tools/call` arguments that are not an object, JSON-RPC
 * batches (the same refusal on stdio and HTTP), path and path-prefix inputs
 * that point outside the repository (one rule for every tool, MCP and CLI), an
 * HTTP client that sends part of its request head and stops (slowloris), and
 * a language model that answers with 30 MB.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { LineTransport, serveStdio } from "../src/mcp/stdio.ts";
import { createProtocolServer } from "../src/mcp/protocol_server.ts";
import { type HttpHandle, serveHttp } from "../src/mcp/http.ts";
import { registerProject } from "../src/index/project_setup.ts";
import type { LlmConfig } from "../src/query/llm_client.ts";
import { MAX_ANSWER_BYTES, MAX_REPLY_BODY_BYTES } from "../src/query/llm_client.ts";
import { copyFixture } from "./helpers/fixture_repo.ts";
import { bodyOf, CRUXE_FLAGS, inProcess, REPO_ROOT, waitFor, within } from "./mcp_helpers.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

const dir = copyFixture("go_basic");
const s = inProcess({ cwd: dir });
const project = registerProject(s.registry, dir);
const indexed = await s.rt.runner.start(project, { mode: "full", force: false }).active.done;
assert.equal(indexed.status, "published");

type Reply = { status: number | null; body: Record<string, unknown> };

/** One transport as a test sees it: send one JSON-RPC text, get the one reply. */
interface Channel {
  name: string;
  exchange(text: string): Promise<Reply>;
  close(): Promise<void>;
}

/** stdio: the real LineTransport over in-memory streams, served by the same protocol server as the CLI. */
function stdioChannel(): Channel {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const writer = input.writable.getWriter();
  const lines: Record<string, unknown>[] = [];
  let buf = "";
  const output = {
    write(p: Uint8Array) {
      buf += dec.decode(p, { stream: true });
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        lines.push(JSON.parse(buf.slice(0, i)));
        buf = buf.slice(i + 1);
      }
      return Promise.resolve(p.length);
    },
  };
  const served = serveStdio(
    () => createProtocolServer(s.dispatcher, {}),
    new LineTransport(input.readable, output),
  );
  return {
    name: "stdio",
    async exchange(text) {
      const before = lines.length;
      await writer.write(enc.encode(text + "\n"));
      await waitFor(() => lines.length > before, 20_000, "a stdio reply");
      return { status: null, body: lines[before] };
    },
    async close() {
      await writer.close();
      await served;
    },
  };
}

/** HTTP: the real listener on a free loopback port. */
function httpChannel(): Channel & { http: HttpHandle } {
  const http = serveHttp(s.rt, s.dispatcher, { port: 0, bind: "127.0.0.1" });
  return {
    name: "http",
    http,
    async exchange(text) {
      const res = await fetch(`http://127.0.0.1:${http.port}/`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: text,
      });
      return { status: res.status, body: await res.json() };
    },
    async close() {
      await http.shutdown(2000);
    },
  };
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "edges", version: "1" } },
});
const toolCall = (id: number, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });

/** A normal call still answers (the server survived whatever came before). */
async function assertServes(ch: Channel, id: number): Promise<void> {
  const r = await ch.exchange(toolCall(id, { name: "search_code", arguments: { query: "ValidateToken" } }));
  assert.equal(r.body.id, id);
  const result = r.body.result as { isError?: boolean; content: unknown };
  assert.ok(result && !result.isError, `${ch.name}: a normal call failed: ${JSON.stringify(r.body)}`);
  assert.ok((bodyOf(result).results as unknown[]).length > 0);
}

function rpcError(r: Reply): { code: number; message: string; data: Record<string, unknown> } {
  const e = r.body.error as { code: number; message: string; data: Record<string, unknown> } | undefined;
  assert.ok(e, `expected a JSON-RPC error, got ${JSON.stringify(r.body).slice(0, 300)}`);
  return e;
}

for (const [label, make] of [["stdio", stdioChannel], ["http", httpChannel]] as const) {
  Deno.test({
    name: `${label}: tools/call arguments not an object and batches are refused with registry codes`,
    fn: async (t) => {
      const ch = make();
      try {
        assert.ok((await ch.exchange(initialize)).body.result, "initialize");
        let id = 1;
        await t.step("arguments an array, a string, null or a number: -32602 invalid_input, one line", async () => {
          for (const args of [[], ["query", "x"], "query=x", null, 5]) {
            const r = await ch.exchange(toolCall(++id, { name: "search_code", arguments: args }));
            const e = rpcError(r);
            assert.equal(r.body.id, id, "the error answers the request's id");
            assert.equal(e.code, -32602, JSON.stringify(args));
            assert.equal(e.data.code, "invalid_input");
            assert.equal(e.data.field, "params.arguments");
            assert.ok(!e.message.includes("\n") && e.message.length < 200, `one short line: ${e.message}`);
            assert.match(e.message, /arguments must be an object/);
            if (r.status !== null) assert.equal(r.status, 200, "a JSON-RPC error on a well-formed request");
            await assertServes(ch, ++id);
          }
        });
        await t.step("params not an object: -32602 naming params", async () => {
          const r = await ch.exchange(toolCall(++id, ["search_code"]));
          const e = rpcError(r);
          assert.equal(e.code, -32602);
          assert.equal(e.data.code, "invalid_input");
          assert.equal(e.data.field, "params");
          await assertServes(ch, ++id);
        });
        await t.step("a batch: -32600 invalid_input saying batches are not supported", async () => {
          const batch = JSON.stringify([
            { jsonrpc: "2.0", id: ++id, method: "ping" },
            { jsonrpc: "2.0", id: ++id, method: "tools/list" },
          ]);
          const r = await ch.exchange(batch);
          const e = rpcError(r);
          assert.equal(r.body.id, null);
          assert.equal(e.code, -32600);
          assert.equal(e.data.code, "invalid_input");
          assert.match(e.message, /Batch requests are not supported/);
          if (r.status !== null) assert.equal(r.status, 400);
          const empty = rpcError(await ch.exchange("[]"));
          assert.equal(empty.code, -32600);
          assert.match(empty.message, /Batch requests are not supported/);
          await assertServes(ch, ++id);
        });
      } finally {
        await ch.close();
      }
    },
  });
}

// ---- one path rule: every path / prefix field, scoped and unscoped

const HOSTILE_PATHS = [
  "../",
  "../../etc",
  "/etc",
  "/etc/passwd",
  "%2e%2e/",
  "%252e%252e/x",
  "..\\",
  "a\\..\\..\\b",
  "a\0b",
];

Deno.test("path rule: hostile path and prefix values are invalid_input naming the field, for every tool", async () => {
  const repo = project.project_id;
  const cases: [string, (v: string) => Record<string, unknown>, string][] = [
    ["search_code", (v) => ({ query: "token", path_prefix: v }), "path_prefix"],
    ["search_code", (v) => ({ query: "token", pathPrefix: v }), "pathPrefix"],
    ["search_code", (v) => ({ query: "token", path_prefix: v, repo }), "path_prefix"],
    ["search_code", (v) => ({ query: "token", pathPrefix: v, scope: { type: "repo", repo } }), "pathPrefix"],
    ["ask_code", (v) => ({ query: "token", pathPrefix: v }), "pathPrefix"],
    ["ask_code", (v) => ({ query: "token", pathPrefix: v, repo }), "pathPrefix"],
    ["get_file_outline", (v) => ({ path: v }), "path"],
    ["get_symbol_hierarchy", (v) => ({ symbol_name: "ValidateToken", path: v }), "path"],
    ["find_related_symbols", (v) => ({ symbol_name: "ValidateToken", path: v }), "path"],
  ];
  for (const [tool, args, field] of cases) {
    for (const v of HOSTILE_PATHS) {
      const r = await s.call(tool, args(v));
      const what = `${tool} ${JSON.stringify(args(v))}`;
      assert.equal(r.isError, true, `${what} was served`);
      const err = bodyOf(r).error as { code: string; message: string; data: { field?: string } };
      assert.equal(err.code, "invalid_input", `${what}: ${err.message}`);
      assert.equal(err.data.field, field, what);
    }
  }
  // Good values still work: relative prefixes, `./`, and an absolute path inside the routed workspace.
  const ok = bodyOf(await s.call("search_code", { query: "ValidateToken", path_prefix: "./auth/" }));
  assert.ok((ok.results as { path: string }[]).every((x) => x.path.startsWith("auth/")));
  assert.ok((ok.results as unknown[]).length > 0);
  const abs = bodyOf(await s.call("search_code", { query: "ValidateToken", pathPrefix: join(dir, "auth") }));
  assert.deepEqual(abs.results, ok.results);
  const outline = await s.call("get_file_outline", { path: join(dir, "auth/jwt.go") });
  assert.ok(!outline.isError);
});

Deno.test("path rule on the CLI: search --path-prefix and outline refuse with invalid_input (exit 2)", async () => {
  for (const args of [["search", "token", "--path-prefix", "../"], ["outline", "%2e%2e/etc/passwd"]]) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), ...args, "--workspace", dir, "--json"],
      env: { CRUXE_HOME: s.home, NO_COLOR: "1" },
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = dec.decode(out.stdout);
    assert.equal(out.code, 2, `${args.join(" ")}: ${text}${dec.decode(out.stderr)}`);
    const err = JSON.parse(text).error as { code: string; data: { field: string } };
    assert.equal(err.code, "invalid_input");
    // The tool's own argument names: the CLI makes the same call as MCP.
    assert.ok(err.data.field === "path_prefix" || err.data.field === "path", JSON.stringify(err));
  }
});

// ---- HTTP: a request head that never completes

/** One raw HTTP/1.1 request on its own connection (Connection: close); returns the status and elapsed ms. */
async function rawGet(port: number, path: string): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(enc.encode(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
    let text = "";
    const buf = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += dec.decode(buf.subarray(0, n));
    }
    return { status: Number(text.split(" ")[1]), ms: performance.now() - t0 };
  } finally {
    conn.close();
  }
}

/**
 * The ms until the server closed `conn` (end of stream or reset; any bytes sent first are dropped), or
 * Infinity when it is still open after `boundMs` (then the test closes it).
 */
async function closedAfter(conn: Deno.Conn, t0: number, boundMs: number): Promise<number> {
  const buf = new Uint8Array(1024);
  let timedOut = false;
  const bound = setTimeout(() => {
    timedOut = true;
    conn.close();
  }, boundMs);
  try {
    while ((await conn.read(buf)) !== null) { /* a 4xx before closing is fine */ }
  } catch { /* a reset by the server, or the test's own close after the bound */ }
  clearTimeout(bound);
  return timedOut ? Infinity : performance.now() - t0;
}

Deno.test({
  name: "http: partial request heads are closed after the header timeout; 300 of them leave /health answering",
  fn: async () => {
    const TIMEOUT = 1000;
    const http = serveHttp(s.rt, s.dispatcher, {
      port: 0,
      bind: "127.0.0.1",
      headerTimeoutMs: TIMEOUT,
      bodyTimeoutMs: TIMEOUT,
    });
    const port = http.port;
    const conns: Deno.Conn[] = [];
    try {
      // One that stops mid-head, one that drips a byte every 100 ms (the limit is on the whole head, not idle time).
      const t0 = performance.now();
      const partial = await Deno.connect({ hostname: "127.0.0.1", port });
      conns.push(partial);
      await partial.write(enc.encode(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: a`));
      const drip = await Deno.connect({ hostname: "127.0.0.1", port });
      conns.push(drip);
      let dripping = true;
      const dripper = (async () => {
        for (const ch of `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${"a".repeat(200)}`) {
          if (!dripping) break;
          await drip.write(enc.encode(ch)).catch(() => (dripping = false));
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const [partialMs, dripMs] = await Promise.all([
        closedAfter(partial, t0, TIMEOUT + 5000),
        closedAfter(drip, t0, TIMEOUT + 5000),
      ]);
      dripping = false;
      await dripper;
      assert.ok(partialMs >= TIMEOUT * 0.9, `closed too early (${partialMs} ms)`);
      assert.ok(partialMs < Infinity, "a partial head was still open 5 s after the header timeout");
      assert.ok(dripMs < Infinity, "a dripping head was still open 5 s after the header timeout");

      // A complete head whose body never finishes is closed after the body timeout.
      const t2 = performance.now();
      const slowBody = await Deno.connect({ hostname: "127.0.0.1", port });
      conns.push(slowBody);
      await slowBody.write(enc.encode(`POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 100\r\n\r\n{"js`));
      assert.ok((await closedAfter(slowBody, t2, TIMEOUT + 5000)) < Infinity, "an unfinished body kept its connection");

      // 300 partial heads at once: /health keeps answering, and every one of them is closed.
      const t1 = performance.now();
      const many = await Promise.all(
        Array.from({ length: 300 }, async () => {
          const c = await Deno.connect({ hostname: "127.0.0.1", port });
          conns.push(c);
          await c.write(enc.encode(`POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Ty`));
          return c;
        }),
      );
      const closing = many.map((c) => closedAfter(c, t1, TIMEOUT + 8000));
      for (let i = 0; i < 20; i++) {
        const h = await rawGet(port, "/health");
        assert.equal(h.status, 200);
      }
      const closedMs = await Promise.all(closing);
      const open = closedMs.filter((ms) => ms === Infinity).length;
      assert.equal(open, 0, `${open} of 300 partial connections were still open 8 s after the header timeout`);
      assert.equal((await rawGet(port, "/health")).status, 200, "still serving afterwards");
    } finally {
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed by the server */ }
      }
      await http.shutdown(2000);
    }
  },
});

/** Writes `text` on a fresh connection and returns everything the server sends until it closes (bounded). */
async function rawExchange(port: number, text: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const bound = setTimeout(() => conn.close(), 10_000);
  let out = "";
  try {
    await conn.write(enc.encode(text));
    const buf = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      out += dec.decode(buf.subarray(0, n));
    }
  } catch { /* closed */ }
  clearTimeout(bound);
  try {
    conn.close();
  } catch { /* closed */ }
  return out;
}

Deno.test({
  name: "http framing: keep-alive, chunked bodies, HEAD; ambiguous or oversized heads are refused and closed",
  fn: async () => {
    const http = serveHttp(s.rt, s.dispatcher, { port: 0, bind: "127.0.0.1" });
    const host = `Host: 127.0.0.1:${http.port}\r\n`;
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const statuses = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    try {
      // Two requests on one connection, the second a chunked POST; then the client closes.
      const chunked = `${ping.length.toString(16)}\r\n${ping}\r\n0\r\n\r\n`;
      const two = await rawExchange(
        http.port,
        `GET /health HTTP/1.1\r\n${host}\r\n` +
          `POST / HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunked}`,
      );
      assert.deepEqual(statuses(two), [200, 200], two);
      assert.match(two, /"result":\{\}/, "the chunked ping was answered");
      const head = await rawExchange(http.port, `HEAD /health HTTP/1.1\r\n${host}Connection: close\r\n\r\n`);
      assert.deepEqual(statuses(head), [200]);
      assert.match(head, /content-length: [1-9]\d*/);
      assert.ok(head.endsWith("\r\n\r\n"), "HEAD has no body");
      const smuggle = await rawExchange(
        http.port,
        `POST / HTTP/1.1\r\n${host}Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /health HTTP/1.1\r\n${host}\r\n`,
      );
      assert.deepEqual(statuses(smuggle), [400], "one 400, and the rest is not read as a request");
      const badLength = await rawExchange(http.port, `POST / HTTP/1.1\r\n${host}Content-Length: 1, 2\r\n\r\nx`);
      assert.deepEqual(statuses(badLength), [400]);
      const huge = await rawExchange(http.port, `GET /health HTTP/1.1\r\n${host}X-Big: ${"a".repeat(100_000)}\r\n\r\n`);
      assert.deepEqual(statuses(huge), [431]);
      const garbage = await rawExchange(http.port, "NOT HTTP AT ALL\r\n\r\n");
      assert.deepEqual(statuses(garbage), [400]);
      assert.match(garbage, /"code":-32600/);
      assert.match(garbage, /"data":\{"code":"invalid_input"\}/, "a registry code, like every other refusal");
      assert.deepEqual(statuses(await rawExchange(http.port, `GET * HTTP/1.1\r\n${host}\r\n`)), [400]);
      const old = await rawExchange(http.port, `GET /health HTTP/1.0\r\n${host}\r\n`);
      assert.deepEqual(statuses(old), [200], "HTTP/1.0 is answered, and the connection closed");
      assert.match(old, /connection: close/);
      assert.equal((await rawGet(http.port, "/health")).status, 200, "still serving");
    } finally {
      await http.shutdown(2000);
    }
  },
});

Deno.test({
  name: "http: an empty POST body (no framing, or Content-Length: 0) is answered 400 with -32700 at once",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const http = serveHttp(s.rt, s.dispatcher, { port: 0, bind: "127.0.0.1" });
    const host = `Host: 127.0.0.1:${http.port}\r\n`;
    try {
      for (const path of ["/mcp", "/"]) {
        for (const framing of ["", "Content-Length: 0\r\n", "Content-Type: application/json\r\n"]) {
          const what = `POST ${path} with ${JSON.stringify(framing)}`;
          const reply = await within(
            rawExchange(http.port, `POST ${path} HTTP/1.1\r\n${host}Connection: close\r\n${framing}\r\n`),
            8000,
            what,
          );
          assert.match(reply, /^HTTP\/1\.1 400 /, `${what}: ${reply.slice(0, 120) || "no answer"}`);
          assert.match(reply, /"code":-32700/, what);
        }
      }
      const chunkedEmpty = await rawExchange(
        http.port,
        `POST /mcp HTTP/1.1\r\n${host}Connection: close\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      );
      assert.match(chunkedEmpty, /^HTTP\/1\.1 400 [\s\S]*"code":-32700/, "an empty chunked body");
      // Kept alive: the empty POST is answered and the next request on the connection is served.
      const two = await rawExchange(
        http.port,
        `POST /mcp HTTP/1.1\r\n${host}Content-Length: 0\r\n\r\nGET /health HTTP/1.1\r\n${host}Connection: close\r\n\r\n`,
      );
      assert.deepEqual([...two.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]), ["400", "200"], two.slice(0, 300));
    } finally {
      await http.shutdown(2000);
    }
  },
});

// ---- HTTP: heads with thousands of header fields

/** A GET /health head with `n` header fields (Host first, then `line(i)` for the rest). */
function headWithFields(port: number, n: number, line: (i: number) => string = (i) => `x${i}: v`): string {
  let text = `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n`;
  for (let i = 2; i < n; i++) text += line(i) + "\r\n";
  return text + "\r\n";
}

Deno.test({
  name: "http: more than 100 header fields is 431 at once, and hostile heads leave /health answering promptly",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const http = serveHttp(s.rt, s.dispatcher, { port: 0, bind: "127.0.0.1" });
    const port = http.port;
    const status = (text: string) => Number(text.match(/^HTTP\/1\.1 (\d{3}) /)?.[1]);
    try {
      assert.equal(status(await rawExchange(port, headWithFields(port, 100))), 200, "100 fields are served");
      const over = await rawExchange(port, headWithFields(port, 101));
      assert.equal(status(over), 431, over.slice(0, 200));
      assert.match(over, /more than 100 header fields/);
      assert.equal(status(await rawExchange(port, headWithFields(port, 101, () => "x: same"))), 431, "repeats count");
      // Chunked trailers are header fields too: 5,000 of them end the request instead of being read on.
      const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
      const trailers = Array.from({ length: 5000 }, (_, i) => `t${i}: v\r\n`).join("");
      const chunked = await rawExchange(
        port,
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nTransfer-Encoding: chunked\r\n\r\n` +
          `${ping.length.toString(16)}\r\n${ping}\r\n0\r\n${trailers}\r\n`,
      );
      assert.equal(status(chunked), 400, chunked.slice(0, 200));
      assert.doesNotMatch(chunked, /"result"/, "the request with 5,000 trailers was not served");

      // Hostile heads on other connections: 4,000 small fields (~35 KiB) three times, ~16,000 four-byte
      // lines (64 KiB, just under the size cap), and 4,000 fields dripped ten at a time.
      const t0 = performance.now();
      const fast = [1, 2, 3].map(() => rawExchange(port, headWithFields(port, 4000)));
      const tiny = rawExchange(port, headWithFields(port, 15_990, () => "a:"));
      const drip = (async () => {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port });
        const lines = headWithFields(port, 4000).split(/(?<=\r\n)/);
        try {
          for (let i = 0; i < lines.length; i += 10) {
            await conn.write(enc.encode(lines.slice(i, i + 10).join("")));
            await new Promise((r) => setTimeout(r, 0));
          }
          let text = "";
          const buf = new Uint8Array(4096);
          for (let n; (n = await conn.read(buf)) !== null;) text += dec.decode(buf.subarray(0, n));
          return text;
        } finally {
          conn.close();
        }
      })();
      const healthMs: number[] = [];
      for (let i = 0; i < 10; i++) {
        const h = await rawGet(port, "/health");
        assert.equal(h.status, 200);
        healthMs.push(h.ms);
      }
      const hostile = await Promise.all([...fast, tiny, drip]);
      const hostileMs = performance.now() - t0;
      assert.deepEqual(hostile.map(status), [431, 431, 431, 431, 431], hostile.map((t) => t.slice(0, 80)).join(" | "));
      const slowest = Math.max(...healthMs);
      assert.ok(slowest < 2000, `/health took ${Math.round(slowest)} ms while hostile heads were read`);
      assert.ok(hostileMs < 10_000, `five hostile heads took ${Math.round(hostileMs)} ms to refuse`);
    } finally {
      await http.shutdown(2000);
    }
  },
});

// ---- ask_code: a model that answers with 30 MB

const HUGE = 30 * 1024 * 1024;
let llmMode: "huge" | "big_json" | "split_escape" | "small" = "huge";
let llmBytesSent = 0;
const llm = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
  await req.body?.cancel();
  if (llmMode === "small") {
    return Response.json({ model: "m", choices: [{ message: { role: "assistant", content: "It is [E1]." } }] });
  }
  if (llmMode === "big_json") {
    // A complete 2 MB answer in a body small enough to be read whole.
    return Response.json({ model: "m", choices: [{ message: { content: "é".repeat(1024 * 1024) + "[E1]" } }] });
  }
  if (llmMode === "split_escape") {
    // The body cap falls inside a `\u00e9` escape: the part before it must still decode.
    const head = '{"choices":[{"message":{"content":"';
    const fill = "a".repeat(MAX_REPLY_BODY_BYTES - head.length - 3);
    return new Response(head + fill + "\\u00e9".repeat(1000) + '"}}]}');
  }
  // 30 MB of answer, produced only as fast as the client reads it.
  llmBytesSent = 0;
  const prefix = enc.encode('{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"[E1] ');
  const block = enc.encode('word \\"quoted\\" \\u00e9 '.repeat(4096));
  let first = true;
  const body = new ReadableStream<Uint8Array>({
    pull(ctl) {
      const chunk = first ? prefix : block;
      first = false;
      llmBytesSent += chunk.length;
      if (llmBytesSent >= HUGE) {
        ctl.enqueue(enc.encode('"}}]}'));
        ctl.close();
      } else ctl.enqueue(chunk);
    },
  }, { highWaterMark: 0 });
  return new Response(body, { headers: { "content-type": "application/json" } });
});

Deno.test({
  name: "ask_code: a 30 MB model reply is cut at 1 MiB without reading it all, and says it was truncated",
  fn: async () => {
    const cfg = s.rt.config as { llm: LlmConfig };
    cfg.llm = { url: `http://127.0.0.1:${llm.addr.port}/v1`, model: "m", apiKey: null, timeoutMs: 20_000 };
    const ask = async () => {
      const r = await s.call("ask_code", { query: "validate token" });
      assert.ok(!r.isError, JSON.stringify(bodyOf(r)).slice(0, 500));
      return bodyOf(r) as {
        answer: string;
        meta: { answerTruncated: boolean; result_completeness: string; modelAsked: boolean };
        metadata: { result_completeness: string };
      };
    };

    llmMode = "huge";
    const huge = await ask();
    assert.equal(huge.meta.modelAsked, true);
    assert.equal(huge.meta.answerTruncated, true);
    assert.equal(huge.meta.result_completeness, "truncated");
    assert.equal(huge.metadata.result_completeness, "truncated");
    const bytes = enc.encode(huge.answer).length;
    assert.ok(bytes <= MAX_ANSWER_BYTES + 200, `answer is ${bytes} bytes`);
    assert.ok(bytes > MAX_ANSWER_BYTES / 2, `the part that arrived is passed on (${bytes} bytes)`);
    assert.ok(huge.answer.startsWith('[E1] word "quoted" é'), "escapes decoded");
    assert.match(huge.answer, /\[Answer truncated: .*\]$/);
    assert.ok(llmBytesSent < HUGE / 2, `the reply was read past the cap: ${llmBytesSent} bytes sent`);

    llmMode = "big_json";
    const big = await ask();
    assert.equal(big.meta.answerTruncated, true);
    assert.equal(big.metadata.result_completeness, "truncated");
    const bigBytes = enc.encode(big.answer).length;
    assert.ok(bigBytes <= MAX_ANSWER_BYTES + 200 && bigBytes > MAX_ANSWER_BYTES - 200, `${bigBytes} bytes`);
    assert.ok(!big.answer.includes("\uFFFD"), "cut on a character boundary");

    llmMode = "split_escape";
    const split = await ask();
    assert.equal(split.meta.answerTruncated, true);
    assert.ok(split.answer.startsWith("aaaa"));

    llmMode = "small";
    const small = await ask();
    assert.equal(small.answer, "It is [E1].");
    assert.equal(small.meta.answerTruncated, false);
    assert.equal(small.metadata.result_completeness, "complete");
  },
});

Deno.test("cleanup", async () => {
  s.close();
  await llm.shutdown();
});
