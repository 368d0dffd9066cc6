/**
 * A minimal embeddings client for the optional semantic layer: an
 * OpenAI-compatible `/v1/embeddings` endpoint or Ollama's `/api/embed`, one
 * request per batch of texts, bounded by a timeout and in size (the reply is
 * never held past MAX_EMBED_REPLY_BYTES). Every failure is `llm_unavailable`
 * with a `reason`; callers degrade to lexical search on it. In state, beside
 * the vector store, because the indexer's passes and the query side's query
 * embeddings both call it. Requires `--allow-net` on the endpoint's host.
 *
 * Which API a URL speaks: a path ending in `/api/embed` is Ollama; one ending
 * in `/embeddings` is OpenAI-compatible; otherwise the URL is a base: `…/v1`
 * gets `/embeddings`, a bare Ollama port (11434) gets `/api/embed`, anything
 * else gets `/v1/embeddings`.
 */
import { CruxeError } from "../core/errors.ts";
import { type EmbedConfig, MAX_EMBED_DIMS } from "../core/semantic_layer.ts";
import { type ApiEndpoint, readCapped, resolveApiUrl } from "./model_endpoint.ts";

/** A resolved embeddings endpoint. */
type EmbedEndpoint = ApiEndpoint;

/** Most bytes of one reply read (a batch of 64 vectors of 4,096 numbers in JSON fits with room to spare). */
export const MAX_EMBED_REPLY_BYTES = 8 * 1024 * 1024;
/** Longest text sent for one chunk (characters); embedding models read a few thousand tokens at most. */
const MAX_EMBED_TEXT_CHARS = 4000;
/** Works out the API and full URL of an endpoint (see the module comment). Throws `invalid_input` on a bad URL. */
export function resolveEmbedEndpoint(raw: string): EmbedEndpoint {
  return resolveApiUrl(raw, "embeddings endpoint", { ollama: "/api/embed", openai: "/embeddings" });
}

function unavailable(host: string, reason: string, message: string, extra: Record<string, unknown> = {}): CruxeError {
  return new CruxeError("llm_unavailable", message, { endpoint_host: host, reason, ...extra });
}

/**
 * Embeds `texts` (each cut to MAX_EMBED_TEXT_CHARS) in one request and
 * returns one vector per text, all of the same dimension. Throws
 * `llm_unavailable` (reason `network`, `timeout`, `http_status`, `too_large`
 * or `bad_reply`) on any failure. Requires `--allow-net` on the host.
 */
export async function embedTexts(
  cfg: EmbedConfig & { url: string },
  texts: string[],
  signal?: AbortSignal,
): Promise<number[][]> {
  const ep = resolveEmbedEndpoint(cfg.url);
  const host = new URL(ep.url).host;
  const input = texts.map((t) => t.length > MAX_EMBED_TEXT_CHARS ? t.slice(0, MAX_EMBED_TEXT_CHARS) : t);
  const body: Record<string, unknown> = { input };
  if (cfg.model) body.model = cfg.model;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (cfg.apiKey) headers.authorization = `Bearer ${cfg.apiKey}`;
  const timeout = AbortSignal.timeout(cfg.timeoutMs);
  const sig = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const failed = (e: unknown, what: string) => {
    const timedOut = timeout.aborted;
    return unavailable(
      host,
      timedOut ? "timeout" : "network",
      timedOut
        ? `The embeddings endpoint at ${host} did not answer within ${cfg.timeoutMs} ms`
        : `The embeddings endpoint at ${host} ${what}: ${(e as Error).message}`,
    );
  };
  let res: Response;
  try {
    res = await fetch(ep.url, { method: "POST", headers, body: JSON.stringify(body), signal: sig });
  } catch (e) {
    throw failed(e, "cannot be reached");
  }
  let got: { bytes: Uint8Array; complete: boolean };
  try {
    if (!res.ok) {
      const text = new TextDecoder().decode((await readCapped(res, 300)).bytes);
      throw unavailable(
        host,
        "http_status",
        `The embeddings endpoint at ${host} answered HTTP ${res.status}: ${text}`,
        {
          status: res.status,
        },
      );
    }
    got = await readCapped(res, MAX_EMBED_REPLY_BYTES);
  } catch (e) {
    if (e instanceof CruxeError) throw e;
    throw failed(e, "broke off its reply");
  }
  if (!got.complete) {
    throw unavailable(
      host,
      "too_large",
      `The embeddings endpoint at ${host} sent more than ${MAX_EMBED_REPLY_BYTES} bytes`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(got.bytes));
  } catch {
    throw unavailable(host, "bad_reply", `The embeddings endpoint at ${host} sent a reply that is not JSON`);
  }
  const vectors = ep.api === "ollama"
    ? (json as { embeddings?: unknown })?.embeddings
    : ((json as { data?: { embedding?: unknown; index?: number }[] })?.data ?? null)?.slice().sort((a, b) =>
      (a?.index ?? 0) - (b?.index ?? 0)
    ).map((d) => d?.embedding);
  return checkVectors(vectors, texts.length, host);
}

/** The reply's vectors, when they are `n` arrays of finite numbers of one dimension (else `bad_reply`). */
function checkVectors(v: unknown, n: number, host: string): number[][] {
  const bad = (why: string) => unavailable(host, "bad_reply", `The embeddings endpoint at ${host} ${why}`);
  if (!Array.isArray(v) || v.length !== n) {
    throw bad(`sent ${Array.isArray(v) ? v.length : "no"} vectors for ${n} texts`);
  }
  const dims = Array.isArray(v[0]) ? v[0].length : 0;
  if (dims < 1 || dims > MAX_EMBED_DIMS) throw bad(`sent vectors of ${dims} dimensions`);
  for (const x of v) {
    if (!Array.isArray(x) || x.length !== dims || !x.every((y) => typeof y === "number" && Number.isFinite(y))) {
      throw bad("sent vectors of mixed dimensions or non-numbers");
    }
  }
  return v as number[][];
}
