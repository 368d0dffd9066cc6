import assert from "node:assert/strict";
import { join } from "node:path";
import { CruxeError } from "../src/core/errors.ts";
import { askCode, type AskDeps, buildPrompt, type Evidence, extractCitations } from "../src/query/ask_code.ts";
import type { LlmConfig } from "../src/query/llm_client.ts";
import { resolveEndpoint } from "../src/query/llm_client.ts";
import { IndexReaders } from "../src/query/index_reader.ts";
import { resolveScope } from "../src/query/multi_repo.ts";
import type { ProjectRow } from "../src/state/registry.ts";
import { scopeHome, termSearch } from "./helpers/scope_fixtures.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { bodyOf, inProcess, waitFor } from "./mcp_helpers.ts";
import { searchOneRepo } from "../src/query/search_code.ts";

/** A loopback test double of an OpenAI-compatible (and Ollama) chat endpoint. */
interface Received {
  path: string;
  auth: string | null;
  body: { model?: string; messages: { role: string; content: string }[] };
}
let mode: "cite" | "fail" | "slow" | "garbage" = "cite";
const received: Received[] = [];
/** In "slow" mode the double holds its reply until the test releases it. */
let releaseSlow: () => void = () => {};
let slowReplied = false;
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
  const body = await req.json();
  received.push({ path: new URL(req.url).pathname, auth: req.headers.get("authorization"), body });
  if (mode === "fail") return new Response("model exploded", { status: 500 });
  if (mode === "slow") {
    await new Promise<void>((r) => releaseSlow = r);
    slowReplied = true;
  }
  if (mode === "garbage") return new Response("not json", { status: 200 });
  const text = "The rate limiter is a token bucket [E1]; the server answers 429 when it refuses [E2]. See also [E9].";
  if (new URL(req.url).pathname === "/api/chat") {
    return Response.json({ model: "llama-test", message: { role: "assistant", content: text } });
  }
  return Response.json({ model: "gpt-test", choices: [{ message: { role: "assistant", content: text } }] });
});
const base = `http://127.0.0.1:${server.addr.port}`;

const h = await scopeHome();
const readers = new IndexReaders(h.registry);
// Planted after indexing (so it is never evidence): nothing of it may reach the model.
Deno.writeTextFileSync(join(h.dirs.alpha, "src/secrets.ts"), 'export const API_TOKEN = "hunter2";\n');

function deps(llm: Partial<LlmConfig> | null): AskDeps {
  return {
    view: (p: ProjectRow) => readers.view(p),
    search: termSearch,
    llm: llm ? { url: null, model: null, apiKey: null, timeoutMs: 5000, ...llm } : null,
  };
}
const scopeOf = (input: { scope?: unknown; repo?: unknown }) =>
  resolveScope(input, { projects: h.registry.listProjects(), allowGlobalScope: true })!;

Deno.test("ask_code: asks the endpoint with the evidence only, citations map back to evidences", async () => {
  mode = "cite";
  received.length = 0;
  const r = await askCode(
    deps({ url: `${base}/v1/chat/completions`, model: "gpt-test", apiKey: "k-123" }),
    scopeOf({ repo: "alpha" }),
    { query: "rate limiter", topK: 3 },
  );
  assert.equal(received.length, 1);
  const got = received[0];
  assert.equal(got.path, "/v1/chat/completions");
  assert.equal(got.auth, "Bearer k-123");
  assert.equal(got.body.model, "gpt-test");
  // The prompt is exactly the question plus the evidence returned to the caller.
  assert.deepEqual(got.body.messages, buildPrompt("rate limiter", r.evidences));
  assert.ok(!JSON.stringify(got.body).includes("hunter2"));
  for (const e of r.evidences) assert.ok(got.body.messages[1].content.includes(e.snippet));
  assert.ok(r.evidences.length >= 2 && r.evidences.every((e) => e.repo === "alpha"));
  assert.match(r.answer, /token bucket \[E1\]/);
  assert.deepEqual(r.citations.map((c) => [c.id, c.path, c.startLine]), [
    ["E1", r.evidences[0].path, r.evidences[0].startLine],
    ["E2", r.evidences[1].path, r.evidences[1].startLine],
  ]);
  assert.deepEqual(r.meta.invalidCitations, ["E9"]);
  assert.equal(r.meta.llmModel, "gpt-test");
  assert.equal(r.meta.modelAsked, true);
  assert.equal(r.meta.contextsUsed, r.evidences.length);
  assert.ok(r.meta.totalMatches >= r.evidences.length);
  assert.deepEqual(r.meta.scope, { type: "repo", repos: ["alpha"] });
  assert.equal(typeof r.meta.elapsedMs, "number");
});

Deno.test("ask_code: evidence is re-read from disk, dropped when the file is gone", async () => {
  const file = join(h.dirs.gamma, "lib/limiter.py");
  const before = Deno.readTextFileSync(file);
  // The hits as the index listed them before the edit (the index keeps lines, its text is the file's).
  const listed = new Map<string, ReturnType<typeof termSearch>>();
  const asIndexed: AskDeps = {
    ...deps(null),
    search: (db, input) => {
      if (!listed.has(input.query)) listed.set(input.query, termSearch(db, input));
      return listed.get(input.query)!;
    },
  };
  const query = { query: "sliding window rate limiter" };
  const first = await askCode(asIndexed, scopeOf({ repo: "gamma" }), query);
  assert.ok(first.evidences.some((e) => e.path === "lib/limiter.py"));
  Deno.writeTextFileSync(file, before.replace("Sliding window rate limiter", "Sliding window rate limiter (edited)"));
  const r = await askCode(asIndexed, scopeOf({ repo: "gamma" }), query);
  assert.ok(r.evidences.some((e) => e.snippet.includes("(edited)")));
  Deno.renameSync(file, file + ".moved");
  try {
    const gone = await askCode(asIndexed, scopeOf({ repo: "gamma" }), query);
    assert.ok(gone.meta.evidencesDropped >= 1);
    assert.ok(gone.evidences.every((e) => e.path !== "lib/limiter.py"));
  } finally {
    Deno.renameSync(file + ".moved", file);
    Deno.writeTextFileSync(file, before);
  }
});

Deno.test("ask_code: no endpoint → evidence and an answer saying no model was asked", async () => {
  received.length = 0;
  const r = await askCode(deps(null), scopeOf({ scope: { type: "repos", repos: ["alpha", "gamma"] } }), {
    query: "rate limiter",
  });
  assert.equal(received.length, 0);
  assert.match(r.answer, /No language model was asked/);
  assert.equal(r.meta.llmModel, null);
  assert.equal(r.meta.modelAsked, false);
  assert.deepEqual(new Set(r.evidences.map((e) => e.repo)), new Set(["alpha", "gamma"]));
  for (const e of r.evidences) assert.ok(e.snippet.length > 0 && e.endLine >= e.startLine);
});

Deno.test("ask_code: grounded: true never calls the configured model", async () => {
  received.length = 0;
  const r = await askCode(deps({ url: base, model: "gpt-test" }), scopeOf({ repo: "alpha" }), {
    query: "rate limiter",
    grounded: true,
  });
  assert.equal(received.length, 0);
  assert.match(r.answer, /grounded: true/);
  assert.ok(r.evidences.length > 0);
});

Deno.test("ask_code: no evidence → says so without calling the model", async () => {
  received.length = 0;
  const r = await askCode(deps({ url: base, model: "gpt-test" }), scopeOf({ scope: { type: "all" } }), {
    query: "zzqqxx wwvvkk",
  });
  assert.equal(received.length, 0);
  assert.equal(r.evidences.length, 0);
  assert.match(r.answer, /No evidence was found/);
});

Deno.test("ask_code: minScore on search_code's own 0..1 scores keeps exactly the evidence at or above it", async () => {
  const real = { ...deps(null), search: searchOneRepo };
  const all = await askCode(real, scopeOf({ scope: { type: "repos", repos: ["alpha", "gamma"] } }), {
    query: "rate limiter",
  });
  const scores = all.evidences.map((e) => e.score);
  assert.ok(scores.length >= 3, JSON.stringify(scores));
  assert.ok(scores.every((x) => x > 0 && x <= 1), JSON.stringify(scores));
  assert.ok(new Set(repoNames(all.evidences)).size === 2, "both repositories contribute");
  const cut = [...scores].sort((a, b) => b - a)[1]; // keeps the two strongest (and ties)
  const strong = await askCode(real, scopeOf({ scope: { type: "repos", repos: ["alpha", "gamma"] } }), {
    query: "rate limiter",
    minScore: cut,
  });
  assert.ok(strong.evidences.length >= 2 && strong.evidences.length < all.evidences.length);
  assert.deepEqual(
    strong.evidences.map((e) => `${e.repo}:${e.path}:${e.startLine}`),
    all.evidences.filter((e) => e.score >= cut).map((e) => `${e.repo}:${e.path}:${e.startLine}`),
  );
});

function repoNames(es: Evidence[]): string[] {
  return es.map((e) => e.repo);
}

Deno.test("ask_code: minScore drops weaker evidence (and can leave none)", async () => {
  received.length = 0;
  const all = await askCode(deps(null), scopeOf({ repo: "alpha" }), { query: "rate limiter request" });
  const strong = await askCode(deps(null), scopeOf({ repo: "alpha" }), {
    query: "rate limiter request",
    minScore: 0.9,
  });
  assert.ok(strong.evidences.length < all.evidences.length);
  assert.ok(strong.evidences.length > 0 && strong.evidences.every((e) => e.score >= 0.9));
  assert.equal(strong.meta.minScore, 0.9);
  const none = await askCode(deps({ url: base }), scopeOf({ repo: "alpha" }), { query: "rate limiter", minScore: 2 });
  assert.equal(none.evidences.length, 0);
  assert.equal(received.length, 0);
});

Deno.test("ask_code: endpoint failure → llm_unavailable with the evidence in data", async () => {
  mode = "fail";
  try {
    await askCode(deps({ url: base, model: "gpt-test" }), scopeOf({ repo: "alpha" }), { query: "rate limiter" });
    assert.fail("expected llm_unavailable");
  } catch (e) {
    assert.ok(e instanceof CruxeError);
    assert.equal(e.code, "llm_unavailable");
    assert.equal(e.data.status, 500);
    assert.ok((e.data.evidences as Evidence[]).length > 0);
    assert.equal((e.data.meta as { modelAsked: boolean }).modelAsked, true);
  } finally {
    mode = "cite";
  }
});

Deno.test("ask_code: endpoint timeout → llm_unavailable while the endpoint still holds its reply", async () => {
  mode = "slow";
  slowReplied = false;
  try {
    await askCode(deps({ url: base, model: "gpt-test", timeoutMs: 200 }), scopeOf({ repo: "alpha" }), {
      query: "rate limiter",
    });
    assert.fail("expected llm_unavailable");
  } catch (e) {
    assert.equal((e as CruxeError).code, "llm_unavailable");
    assert.equal((e as CruxeError).data.reason, "timeout");
    assert.ok(((e as CruxeError).data.evidences as Evidence[]).length > 0);
    // The double has not replied: the call gave up on its own timeout, not on an answer.
    assert.equal(slowReplied, false, "gave up before the slow reply");
  } finally {
    mode = "cite";
    releaseSlow();
  }
  await waitFor(() => slowReplied, 30_000, "the double's held reply"); // no request left open
});

Deno.test("ask_code: unreadable reply and unreachable endpoint → llm_unavailable", async () => {
  mode = "garbage";
  await assert.rejects(
    () => askCode(deps({ url: base }), scopeOf({ repo: "alpha" }), { query: "rate limiter" }),
    (e: CruxeError) => e.code === "llm_unavailable" && e.data.reason === "bad_reply",
  );
  mode = "cite";
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  await assert.rejects(
    () => askCode(deps({ url: `http://127.0.0.1:${port}` }), scopeOf({ repo: "alpha" }), { query: "rate limiter" }),
    (e: CruxeError) => e.code === "llm_unavailable" && e.data.reason === "network",
  );
});

Deno.test("ask_code: Ollama /api/chat speaks its own reply shape", async () => {
  received.length = 0;
  const r = await askCode(deps({ url: `${base}/api/chat`, model: "llama-test" }), scopeOf({ repo: "alpha" }), {
    query: "rate limiter",
  });
  assert.equal(received[0].path, "/api/chat");
  assert.equal(r.meta.llmModel, "llama-test");
  assert.equal(r.citations[0].id, "E1");
});

Deno.test("ask_code: bad arguments are invalid_input", async () => {
  for (
    const bad of [{ query: "" }, { query: "x", topK: 0 }, { query: "x", topK: 99 }, {
      query: "x",
      pathPrefix: "../up",
    }]
  ) {
    await assert.rejects(
      () => askCode(deps(null), scopeOf({ repo: "alpha" }), bad),
      (e: CruxeError) => e.code === "invalid_input",
    );
  }
});

Deno.test("llm endpoint: URL forms resolve to the right API", () => {
  assert.deepEqual(resolveEndpoint("http://h:8080/v1"), { api: "openai", url: "http://h:8080/v1/chat/completions" });
  assert.deepEqual(resolveEndpoint("http://h:8080"), { api: "openai", url: "http://h:8080/v1/chat/completions" });
  assert.deepEqual(resolveEndpoint("http://h:11434"), { api: "ollama", url: "http://h:11434/api/chat" });
  assert.equal(resolveEndpoint("http://h/api/chat").api, "ollama");
  assert.equal(resolveEndpoint("https://h/openai/chat/completions").api, "openai");
  assert.throws(() => resolveEndpoint("file:///etc/passwd"));
});

Deno.test("citations: grouped labels and unknown labels", () => {
  const ev = [1, 2].map((i) => ({
    id: `E${i}`,
    repo: "r",
    path: `p${i}`,
    startLine: i,
    endLine: i,
    score: 1,
    snippet: "s",
  }));
  const { citations, invalid } = extractCitations("x [E2, E1] y [E3] z [E2]", ev);
  assert.deepEqual(citations.map((c) => c.evidence), [1, 0]);
  assert.deepEqual(invalid, ["E3"]);
});

Deno.test("MCP ask_code: through the dispatch pipeline, with the configured endpoint and its failure", async () => {
  const s = inProcess();
  try {
    for (const name of ["alpha", "gamma"] as const) {
      s.registry.upsertProject({ ...registerProject(s.registry, h.dirs[name]), name });
    }
    // The indexes of the scope home are reused by pointing this home's project dirs at them.
    for (const name of ["alpha", "gamma"] as const) {
      const id = h.projects[name].project_id;
      Deno.mkdirSync(s.registry.projectDir(id), { recursive: true });
      for (const f of ["index.db", "index.db-wal"]) {
        try {
          Deno.copyFileSync(join(h.registry.projectDir(id), f), join(s.registry.projectDir(id), f));
        } catch (e) {
          if (!(e instanceof Deno.errors.NotFound)) throw e;
        }
      }
    }
    const cfg = s.rt.config as { llm: LlmConfig };
    const grounded = bodyOf(
      await s.call("ask_code", { query: "rate limiter", scope: { type: "repos", repos: ["alpha", "gamma"] } }),
    );
    assert.match(grounded.answer as string, /No language model was asked/);
    assert.deepEqual((grounded.meta as { scope: unknown }).scope, { type: "repos", repos: ["alpha", "gamma"] });
    assert.ok(grounded.metadata);

    cfg.llm = { url: `${base}/v1/chat/completions`, model: "gpt-test", apiKey: null, timeoutMs: 5000 };
    mode = "cite";
    received.length = 0;
    const asked = bodyOf(await s.call("ask_code", { query: "rate limiter", repo: "alpha", topK: 2 }));
    assert.equal(received.length, 1);
    assert.equal((asked.citations as unknown[]).length, 2);
    assert.equal((asked.meta as { llmModel: string }).llmModel, "gpt-test");

    mode = "fail";
    const failed = await s.call("ask_code", { query: "rate limiter", repo: "alpha" });
    assert.equal(failed.isError, true);
    const err = bodyOf(failed).error as { code: string; data: { evidences: unknown[] } };
    assert.equal(err.code, "llm_unavailable");
    assert.ok(err.data.evidences.length > 0);
  } finally {
    mode = "cite";
    s.close();
  }
});

Deno.test({
  name: "ask_code: teardown",
  async fn() {
    readers.closeAll();
    h.close();
    await server.shutdown();
  },
});
