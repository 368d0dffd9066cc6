/**
 * The optional semantic layer against a loopback embeddings double that
 * returns deterministic vectors (words hashed into 16 dimensions): chunk
 * vectors after publish, resumable by content hash, fused into search_code
 * with `meta.collection`; a client vector of the wrong dimension is
 * `invalid_input`; a dead, slow, misbehaving or oversized endpoint degrades
 * to lexical results with a note, never an error.
 */
import assert from "node:assert/strict";
import { copyFixture } from "./helpers/fixture_repo.ts";
import { registerProject } from "../src/index/project_setup.ts";
import { bodyOf, inProcess, waitFor } from "./mcp_helpers.ts";
import { embedTexts, MAX_EMBED_REPLY_BYTES, resolveEmbedEndpoint } from "../src/io/embeddings.ts";
import { collectionName } from "../src/core/semantic_layer.ts";
import { quantize } from "../src/state/chunk_vectors.ts";
import { nearest } from "../src/query/semantic_search.ts";
import { CruxeError } from "../src/core/errors.ts";

const DIMS = 16;

/** Words hashed into DIMS buckets: texts sharing words point the same way. */
function vectorOf(text: string, dims = DIMS): number[] {
  const v = new Array(dims).fill(0);
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let h = 2166136261;
    for (const ch of w) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    v[h % dims] += 1;
  }
  v[dims - 1] += 0.01;
  return v;
}

let mode: "ok" | "slow" | "huge" | "wrong_dims" = "ok";
let texts = 0;
let releaseSlow: () => void = () => {};
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
  const body = await req.json() as { input: string[]; model?: string };
  texts += body.input.length;
  if (mode === "slow") await new Promise<void>((r) => releaseSlow = r);
  if (mode === "huge") {
    let sent = 0;
    const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
    return new Response(
      new ReadableStream({
        pull(c) {
          if (sent > MAX_EMBED_REPLY_BYTES + 1024 * 1024) return c.close();
          sent += chunk.length;
          c.enqueue(chunk);
        },
      }),
    );
  }
  const vectors = body.input.map((t) => vectorOf(t, mode === "wrong_dims" ? 5 : DIMS));
  if (new URL(req.url).pathname === "/api/embed") return Response.json({ model: body.model, embeddings: vectors });
  return Response.json({ data: vectors.map((embedding, index) => ({ index, embedding })).reverse() });
});
const base = `http://127.0.0.1:${server.addr.port}`;

type Body = Record<string, unknown>;
const semanticOf = (b: Body) => b.semantic as { status: string; chunks_total: number; chunks_embedded: number } & Body;

async function indexedWithEmbeddings(env: Record<string, string>) {
  const dir = copyFixture("search_basic");
  const s = inProcess({ startupWorkspaces: [dir] }, { env });
  const p = registerProject(s.registry, dir);
  const job = await s.rt.runner.start(p, { mode: "full", force: false }).active.done;
  assert.equal(job.status, "published");
  let status: Body = {};
  await waitFor(
    async () => {
      status = bodyOf(await s.call("index_status"));
      return semanticOf(status) !== undefined && semanticOf(status).status !== "running";
    },
    30_000,
    "the embedding pass",
  );
  return { s, p, status: semanticOf(status) };
}

Deno.test("semantic: endpoint URLs, collection names, int8 vectors keep their nearest neighbours", () => {
  assert.deepEqual(resolveEmbedEndpoint("http://localhost:11434"), {
    api: "ollama",
    url: "http://localhost:11434/api/embed",
  });
  assert.equal(resolveEmbedEndpoint("http://h:8080/v1").url, "http://h:8080/v1/embeddings");
  assert.equal(resolveEmbedEndpoint("http://h:8080").url, "http://h:8080/v1/embeddings");
  assert.equal(resolveEmbedEndpoint("http://h/api/embed").api, "ollama");
  assert.throws(() => resolveEmbedEndpoint("ftp://h"), (e) => e instanceof CruxeError && e.code === "invalid_input");
  assert.equal(collectionName("nomic-embed-text:latest", 768), "cruxe__768__nomic_embed_text_latest");
  const q = quantize([0.5, -1, 0.25]);
  assert.equal(q.data[1], -127);
  assert.ok(Math.abs(q.data[0] * q.scale - 0.5) < 0.01);
  const rows = ["parse config file", "rate limiter token bucket", "session store"].map((t, i) => {
    const z = quantize(vectorOf(t));
    return { hash: `h${i}`, scale: z.scale, data: z.data };
  });
  const norms = new Float32Array(rows.map((r) => Math.hypot(...r.data)));
  assert.deepEqual(nearest(rows, norms, vectorOf("token bucket rate limiter"), 2).map((t) => t.hash)[0], "h1");
  assert.equal(nearest(rows, norms, vectorOf("x"), 10).length, 3);
});

Deno.test("semantic: the client speaks both APIs and refuses a reply past its size bound", async () => {
  mode = "ok";
  const cfg = { url: `${base}/api/embed`, model: "m", apiKey: null, timeoutMs: 5000 };
  assert.deepEqual(await embedTexts(cfg, ["a b", "c"]), [vectorOf("a b"), vectorOf("c")]);
  // OpenAI replies may list vectors out of order: `index` puts them back.
  assert.deepEqual(await embedTexts({ ...cfg, url: `${base}/v1` }, ["a b", "c"]), [vectorOf("a b"), vectorOf("c")]);
  mode = "huge";
  await assert.rejects(
    embedTexts(cfg, ["x"]),
    (e) => e instanceof CruxeError && e.code === "llm_unavailable" && e.data?.reason === "too_large",
  );
  mode = "ok";
});

Deno.test("semantic: vectors after publish, fused into search_code, resumable, degrading never failing", async () => {
  mode = "ok";
  texts = 0;
  const { s, p, status } = await indexedWithEmbeddings({
    CRUXE_EMBED_URL: `${base}/v1`,
    CRUXE_EMBED_MODEL: "test-embed",
    CRUXE_EMBED_TIMEOUT_MS: "2000",
  });
  try {
    assert.equal(status.status, "complete", JSON.stringify(status));
    assert.equal(status.pass, 1);
    assert.ok(status.chunks_total > 3 && status.chunks_embedded === status.chunks_total, JSON.stringify(status));
    assert.equal(status.collection, `cruxe__${DIMS}__test_embed`);
    const embedded = texts;

    const r = bodyOf(
      await s.call("search_code", { query: "token bucket rate limiter", ranking_explain_level: "full" }),
    );
    const meta = r.meta as Body;
    assert.equal(meta.collection, `cruxe__${DIMS}__test_embed`);
    assert.ok((meta.semantic_results as number) > 0);
    const results = r.results as { path: string; ranking_reasons: Body }[];
    assert.ok(results.some((x) => "source:semantic" in x.ranking_reasons), "the semantic list is fused");
    assert.equal((r.metadata as Body).result_completeness, "complete");

    // The client's own vector: right dimension works, wrong dimension is invalid_input.
    const own = bodyOf(await s.call("search_code", { query: "limiter", vector: vectorOf("rate limiter") }));
    assert.equal((own.meta as Body).collection, `cruxe__${DIMS}__test_embed`);
    const wrong = bodyOf(await s.call("search_code", { query: "limiter", vector: [1, 2, 3] }));
    assert.equal((wrong.error as Body).code, "invalid_input");
    assert.equal(((wrong.error as Body).data as Body).expected_dims, DIMS);

    // A second index of the same tree embeds nothing again (vectors are keyed by content hash).
    const again = await s.rt.runner.start(p, { mode: "full", force: true }).active.done;
    assert.equal(again.status, "published");
    await waitFor(
      async () => {
        const st = semanticOf(bodyOf(await s.call("index_status")));
        return st.status === "complete" && st.pass === 2;
      },
      30_000,
      "the second pass",
    );
    const second = semanticOf(bodyOf(await s.call("index_status")));
    assert.equal(second.embedded_this_pass, 0);
    assert.equal(texts, embedded + 1, "only one query was embedded since the first pass (client vectors are not)");

    // Scoped (`repo`/`scope`): the vector is used and checked per repository, and meta names the collection.
    const collection = `cruxe__${DIMS}__test_embed`;
    const scoped = bodyOf(await s.call("search_code", { query: "limiter", repo: p.name, vector: vectorOf("limiter") }));
    assert.equal((scoped.meta as Body).collection, collection, JSON.stringify(scoped).slice(0, 400));
    assert.ok((scoped.results as unknown[]).length > 0);
    for (const args of [{ repo: p.name }, { scope: { type: "repos", repos: [p.name] } }]) {
      const bad = bodyOf(await s.call("search_code", { query: "limiter", ...args, vector: [1] }));
      assert.equal((bad.error as Body)?.code, "invalid_input", JSON.stringify(bad).slice(0, 300));
    }
    const asked = bodyOf(
      await s.call("ask_code", { query: "token bucket rate limiter", repo: p.name, grounded: true }),
    );
    assert.equal((asked.meta as Body).collection, collection, JSON.stringify(asked.meta));

    // Misbehaving endpoints: lexical results and a note, never an error.
    for (
      const [m, says] of [["wrong_dims", /5 dimensions/], ["huge", /more than/], ["slow", /within 2000 ms/]] as const
    ) {
      mode = m;
      const t0 = Date.now();
      const b = bodyOf(await s.call("search_code", { query: "token bucket rate limiter" }));
      releaseSlow();
      assert.equal(b.error, undefined, `${m}: ${JSON.stringify(b).slice(0, 300)}`);
      assert.ok((b.results as unknown[]).length > 0, `${m}: lexical results`);
      assert.match(String((b.meta as Body).note), says);
      assert.equal((b.meta as Body).semantic_results, 0);
      assert.ok(Date.now() - t0 < 10_000, `${m} answered within its bound`);
    }
  } finally {
    mode = "ok";
    releaseSlow();
    s.close();
  }
});

Deno.test("semantic: a dead endpoint leaves the pass unavailable and search lexical with a note", async () => {
  const dead = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (dead.addr as Deno.NetAddr).port;
  dead.close();
  const { s, status } = await indexedWithEmbeddings({
    CRUXE_EMBED_URL: `http://127.0.0.1:${port}`,
    CRUXE_EMBED_TIMEOUT_MS: "2000",
  });
  try {
    assert.equal(status.status, "unavailable", JSON.stringify(status));
    assert.match(String(status.error), /cannot be reached/);
    const b = bodyOf(await s.call("search_code", { query: "rate limiter" }));
    assert.equal(b.error, undefined);
    assert.ok((b.results as unknown[]).length > 0);
    assert.equal((b.meta as Body).collection, null);
    assert.match(String((b.meta as Body).note), /lexical results only/);
    assert.equal((b.metadata as Body).result_completeness, "partial", "the semantic part is not there");
  } finally {
    s.close();
  }
});

addEventListener("unload", () => server.shutdown());
