/**
 * `echo '{…}' | cruxe serve-mcp`: every complete request read before the end
 * of input is answered (a last line without its newline too), then the
 * process exits by itself.
 */
import { mcpHandshake, toolCall } from "../scripts/mcp_messages.ts";
import assert from "node:assert/strict";
import { copyFixture } from "./helpers/fixture_repo.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** A copy of the go_basic fixture indexed by the CLI into a new home. */
async function indexedFixture(): Promise<{ home: string; repo: string }> {
  const home = Deno.makeTempDirSync({ prefix: "cruxe-eof-home-" });
  const repo = copyFixture("go_basic");
  const index = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "index", "--path", repo],
    env: { CRUXE_HOME: home },
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.ok(index.success, new TextDecoder().decode(index.stderr));
  return { home, repo };
}

Deno.test("serve-mcp on stdio answers every request read before EOF, then exits", async () => {
  const { home, repo } = await indexedFixture();
  try {
    const lines = [
      ...mcpHandshake("pipe"),
      toolCall(2, "locate_symbol", { name: "ValidateToken" }),
      { jsonrpc: "2.0", id: "three", method: "tools/list" },
      { jsonrpc: "2.0", id: 4, method: "ping" },
    ].map((m) => JSON.stringify(m));
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "serve-mcp", "--workspace", repo, "--no-prewarm"],
      env: { CRUXE_HOME: home },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const w = child.stdin.getWriter();
    // The last request has no newline: end of input completes it.
    await w.write(new TextEncoder().encode(lines.slice(0, -1).join("\n") + "\n" + lines.at(-1)));
    await w.close();
    const killer = setTimeout(() => child.kill("SIGKILL"), 60_000); // a bound for a hang, not a race
    const out = await child.output();
    clearTimeout(killer);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const answers = new TextDecoder().decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2, 4, "three"].sort());
    const byId = new Map(answers.map((a) => [a.id, a]));
    assert.equal(byId.get(1).result.serverInfo.name, "cruxe");
    assert.match(byId.get(2).result.content[0].text, /auth\/jwt\.go/);
    assert.ok(byId.get("three").result.tools.length >= 10);
    assert.deepEqual(byId.get(4).result, {});
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(repo, { recursive: true });
  }
});

/** The JSON-RPC messages a child writes to stdout, one per line, as they arrive. */
async function* messages(stdout: ReadableStream<Uint8Array>): AsyncGenerator<Record<string, unknown>> {
  let buffered = "";
  for await (const chunk of stdout.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line) yield JSON.parse(line);
    }
  }
  if (buffered.trim()) yield JSON.parse(buffered);
}

Deno.test("serve-mcp on stdio exits soon after EOF even while a query worker is stuck, saying what it left", async () => {
  const { home, repo } = await indexedFixture();
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "serve-mcp", "--workspace", repo, "--no-prewarm"],
      // Every query worker call blocks for a minute: the search cannot be answered in time.
      env: { CRUXE_HOME: home, CRUXE_TEST_READER_STALL_MS: "60000", CRUXE_READER_WORKERS: "1" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const killer = setTimeout(() => child.kill("SIGKILL"), 60_000); // a bound for a hang, not a race
    const stderrText = new Response(child.stderr).text();
    const w = child.stdin.getWriter();
    const send = (m: unknown) => w.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
    for (const m of mcpHandshake("pipe")) await send(m);
    // Until the query worker is warm a call runs on the main thread: wait for it, so the search goes to it.
    const answers = messages(child.stdout);
    const seen: unknown[] = [];
    for (let n = 0;; n++) {
      await send(toolCall(`health${n}`, "health_check", {}));
      let health: Record<string, unknown> | undefined;
      while (!health) {
        const next = (await answers.next()).value;
        assert.ok(next, "the server stopped before it was ready");
        seen.push(next.id);
        if (next.id === `health${n}`) health = next;
      }
      const text = (health.result as { content: { text: string }[] }).content[0].text;
      if (JSON.parse(text).status === "ready") break;
      await new Promise((r) => setTimeout(r, 20)); // polling, as `waitFor` does
    }
    await send(toolCall(2, "search_code", { query: "validate token" }));
    await w.close();
    const closedAt = performance.now();
    for await (const m of answers) seen.push(m.id);
    const status = await child.status;
    const took = performance.now() - closedAt;
    clearTimeout(killer);
    const stderr = await stderrText;
    assert.equal(status.code, 0, stderr);
    // The grace is 2 s; the rest is the process's own shutdown on a shared machine.
    assert.ok(took < 10_000, `exited ${Math.round(took)} ms after EOF (a minute-long stall would hold it): ${stderr}`);
    assert.match(stderr, /input ended; stopping without answering 1 request/);
    assert.ok(seen.includes(1) && !seen.includes(2), `the handshake is answered; the stuck search is not: ${seen}`);
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(repo, { recursive: true });
  }
});
