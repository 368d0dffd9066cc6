/**
 * End to end over stdio with the SDK's own Client spawning the real server
 * (`deno run <cruxe task flags> main.ts serve-mcp`) on a temporary home:
 * progress notifications, every tool, job-token progress for opted-in
 * clients, kill -9 mid-job and the interrupted report, and bad input on the
 * raw pipe (malformed line, unknown method/tool, bad arguments, 10 MB line,
 * stdin closed mid-job).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { bodyOf, CRUXE_FLAGS, REPO_ROOT, stdioClient, syntheticGoRepo, tempHomeDir, waitFor } from "./mcp_helpers.ts";

type Note = { method: string; params: { progressToken: string | number; value?: { kind: string; message: string } } };

function recordNotifications(transport: { onmessage?: (m: JSONRPCMessage, extra?: unknown) => void }): Note[] {
  const seen: Note[] = [];
  const orig = transport.onmessage;
  transport.onmessage = (m, extra) => {
    if ((m as { method?: string }).method === "notifications/progress") seen.push(m as unknown as Note);
    orig?.(m, extra);
  };
  return seen;
}

Deno.test({
  name: "stdio e2e: progress, every tool, job-token progress, kill -9 and the interrupted report",
  fn: async () => {
    const home = tempHomeDir();
    const repo = syntheticGoRepo(150);
    const cap = { experimental: { "cruxe/index_progress": {} } };
    let s = await stdioClient(home, ["--workspace", repo, "--no-prewarm"], cap);
    try {
      const notes = recordNotifications(s.transport);
      let onprogress = 0;
      const r = await s.client.callTool({ name: "index_repo", arguments: { wait: true } }, undefined, {
        onprogress: () => onprogress++,
        resetTimeoutOnProgress: true,
        timeout: 120_000,
      });
      const body = bodyOf(r);
      assert.equal(body.status, "published", JSON.stringify(body));
      assert.equal(body.file_count, 150);
      const mine = notes.filter((n) => typeof n.params.progressToken === "number");
      const reports = mine.filter((n) => n.params.value?.kind === "report");
      const ends = mine.filter((n) => n.params.value?.kind === "end");
      assert.ok(reports.length >= 3, `expected >= 3 progress reports, got ${reports.length}`);
      assert.equal(ends.length, 1);
      assert.match(ends[0].params.value!.message, /Indexed \d+ files, \d+ symbols in [\d.]+s/);
      assert.ok(onprogress >= 4, "the SDK's onprogress saw the notifications");
      const stages = reports.map((n) => n.params.value!.message);
      // The server starts indexing a never-indexed workspace itself; a call that joins that job may come after its scan.
      if (!body.joined_existing_job) {
        assert.ok(stages.some((m) => m.startsWith("Scanning files")), stages.join(" | "));
      }
      assert.ok(stages.some((m) => m.startsWith("Parsing files") || m.startsWith("Indexing:")), stages.join(" | "));

      // Every tool answers, with metadata, through the real protocol.
      const calls: [string, Record<string, unknown>][] = [
        ["search_code", { query: "Compute3x1" }],
        ["locate_symbol", { name: "Compute3x1" }],
        ["index_status", {}],
        ["get_file_outline", { path: "pkg3/file3.go" }],
        ["health_check", {}],
        ["get_symbol_hierarchy", { symbol_name: "Compute3x1" }],
        ["find_related_symbols", { symbol_name: "Widget3" }],
        ["get_code_context", { query: "Compute3x1", max_tokens: 800 }],
      ];
      for (const [name, args] of calls) {
        const res = await s.client.callTool({ name, arguments: args });
        const b = bodyOf(res);
        assert.ok(!res.isError, `${name}: ${JSON.stringify(b.error)}`);
        assert.equal((b.metadata as Record<string, unknown>).cruxe_protocol_version, "1.0", name);
        assert.deepEqual(res.structuredContent, b, name);
      }
      const loc = bodyOf(await s.client.callTool({ name: "locate_symbol", arguments: { name: "Compute3x1" } }));
      assert.equal((loc.results as { path: string }[])[0].path, "pkg3/file3.go");

      // A job started without a client token reports under index-job-{id} to this opted-in client.
      const started = bodyOf(await s.client.callTool({ name: "sync_repo", arguments: { force: true } }));
      assert.equal(started.status, "running");
      assert.equal(started.changed_files, null);
      const token = started.progress_token as string;
      assert.equal(token, `index-job-${started.job_id}`);
      await waitFor(
        () => notes.some((n) => n.params.progressToken === token && n.params.value?.kind === "end"),
        60_000,
        "job-token end notification",
      );

      // kill -9 in the middle of a job; the next start reports it as interrupted and resumes it.
      const again = bodyOf(await s.client.callTool({ name: "index_repo", arguments: { force: true } }));
      await waitFor(() => notes.some((n) => n.params.progressToken === again.progress_token), 30_000, "job start");
      Deno.kill(s.transport.pid!, "SIGKILL");
      await s.client.close().catch(() => {});
      s = await stdioClient(home, ["--workspace", repo, "--no-prewarm"]);
      // The next start resumes the interrupted job at once: the report lasts until the resumed job publishes.
      const st = bodyOf(await s.client.callTool({ name: "index_status", arguments: {} }));
      const jobs = st.recent_jobs as { status: string }[];
      assert.ok(jobs.some((j) => j.status === "interrupted"), `no interrupted job in ${JSON.stringify(st)}`);
      const report = st.interrupted_recovery_report as Record<string, unknown> | undefined;
      if (report) {
        assert.equal(report.detected, true);
        assert.equal(report.interrupted_jobs, 1);
      } else assert.equal(jobs[0].status, "published", "no report only once the resumed job published");
      const synced = bodyOf(await s.client.callTool({ name: "sync_repo", arguments: { wait: true } }));
      assert.equal(synced.status, "published");
      const after = bodyOf(await s.client.callTool({ name: "index_status", arguments: {} }));
      assert.equal(after.interrupted_recovery_report, undefined, "cleared after a successful follow-up");
    } finally {
      await s.client.close().catch(() => {});
    }
  },
});

Deno.test({
  name: "stdio e2e: a client that declared nothing gets no job-token progress but can poll index_status",
  fn: async () => {
    const home = tempHomeDir();
    const repo = syntheticGoRepo(150);
    const s = await stdioClient(home, ["--workspace", repo, "--no-prewarm"]);
    try {
      const notes = recordNotifications(s.transport);
      const started = bodyOf(await s.client.callTool({ name: "index_repo", arguments: {} }));
      assert.equal(started.status, "running");
      assert.equal(started.file_count, null);
      // The job is registered before index_repo answers and cannot finish 150 files before the next call
      // is read, so the first poll must show it.
      const first = bodyOf(await s.client.callTool({ name: "index_status", arguments: {} }));
      const active = first.active_job as Record<string, unknown> | null;
      assert.ok(active, `no active_job right after index_repo answered: ${JSON.stringify(first).slice(0, 400)}`);
      for (const k of ["files_scanned", "files_indexed", "symbols_extracted", "estimated_completion_pct"]) {
        assert.equal(typeof active[k], "number", k);
      }
      assert.equal(active.progress_token, started.progress_token);
      assert.equal(active.job_id, started.job_id);
      await waitFor(
        async () => bodyOf(await s.client.callTool({ name: "index_status", arguments: {} })).index_status === "ready",
        120_000,
        "index ready",
      );
      const done = bodyOf(await s.client.callTool({ name: "index_status", arguments: {} }));
      assert.equal(done.active_job ?? null, null, "no active job once ready");
      assert.equal(notes.length, 0, "no unsolicited progress for a client that did not opt in");
    } finally {
      await s.client.close();
    }
  },
});

async function readLines(reader: ReadableStreamDefaultReader<Uint8Array>, n: number, ms = 60_000) {
  const out: Record<string, unknown>[] = [];
  let buf = "";
  const dec = new TextDecoder();
  const end = Date.now() + ms;
  while (out.length < n && Date.now() < end) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      out.push(JSON.parse(line)); // anything on stdout that is not JSON fails the test
    }
  }
  return out;
}

Deno.test({
  name: "stdio bad input: malformed line, unknown method/tool, bad args, 10 MB line; stdin closed mid-job",
  fn: async () => {
    const home = tempHomeDir();
    const repo = syntheticGoRepo(150);
    const spawn = () =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), "serve-mcp", "--workspace", repo, "--no-prewarm"],
        env: { CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1" },
        stdin: "piped",
        stdout: "piped",
        stderr: "null",
        cwd: REPO_ROOT,
      }).spawn();
    const child = spawn();
    const w = child.stdin.getWriter();
    const reader = child.stdout.getReader();
    try {
      const enc = new TextEncoder();
      const send = (s: string) => w.write(enc.encode(s + "\n"));
      const call = (id: number, name: string, args: unknown) =>
        send(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }));
      await send(JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }));
      await send("{this is not json");
      await send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "no/such_method" }));
      await call(4, "no_such_tool", {});
      await call(5, "locate_symbol", { name: 42 });
      await call(6, "locate_symbol", {});
      await call(7, "locate_symbol", { name: "x", unexpected: true });
      await send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 8,
          method: "tools/call",
          params: { name: "search_code", arguments: { query: "x".repeat(10 * 1024 * 1024) } },
        }),
      );
      await send(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }));
      const msgs = await readLines(reader, 9);
      const byId = new Map(msgs.map((m) => [m.id as number | null, m]));
      const errData = (id: number | null) => (byId.get(id)?.error as { code: number; data: { code: string } });
      const unattributed = msgs.filter((m) => m.id === null).map((m) =>
        m.error as { code: number; data: { code: string } }
      );
      const parse = unattributed.find((e) => e.code === -32700);
      assert.ok(parse, "parse error for the malformed line");
      assert.equal(parse.data.code, "invalid_input");
      assert.equal(errData(3).code, -32601);
      assert.equal(errData(3).data.code, "invalid_input");
      assert.equal(errData(4).code, -32602);
      assert.equal(errData(4).data.code, "invalid_input");
      for (const id of [5, 6, 7]) {
        const res = byId.get(id)!.result as { isError: boolean; content: unknown };
        assert.equal(res.isError, true, `id ${id}`);
        assert.equal((bodyOf(res).error as { code: string }).code, "invalid_input", `id ${id}`);
      }
      const big = unattributed.find((e) => e.code === -32600);
      assert.ok(big, "the 10 MB line is refused");
      assert.equal(big.data.code, "invalid_input");
      assert.deepEqual(byId.get(9)!.result, {}, "still serving after all of that");

      // stdin closed in the middle of a job: the server exits cleanly, the job is interrupted next start.
      await call(10, "index_repo", { force: true });
      const [started] = await readLines(reader, 1);
      // The job is registered as running when index_repo answers: closing stdin now is closing it mid-job.
      assert.equal(bodyOf(started.result as { content: unknown }).status, "running");
      await w.close();
      const status = await child.status;
      assert.equal(status.code, 0, "clean exit when stdin closes");
    } finally {
      // Whatever failed above, the child does not outlive the test.
      try {
        child.kill("SIGKILL");
      } catch { /* already exited */ }
      await child.status;
      await w.close().catch(() => {});
      await reader.cancel().catch(() => {});
    }
    const s = await stdioClient(home, ["--workspace", repo, "--no-prewarm"]);
    try {
      // The next start resumes the job at once, so the report may already be resolved: the job list keeps it.
      const st = bodyOf(await s.client.callTool({ name: "index_status", arguments: {} }));
      const jobs = st.recent_jobs as { status: string }[];
      assert.ok(jobs.some((j) => j.status === "interrupted"), JSON.stringify(st));
    } finally {
      await s.client.close();
    }
  },
});
