/**
 * A minimal chat client for ask_code: an OpenAI-compatible `/chat/completions`
 * endpoint or Ollama's `/api/chat`, one non-streaming request, temperature 0,
 * bounded by a timeout and in size: the reply body is read as a stream and
 * never held past MAX_REPLY_BODY_BYTES, and the answer text is cut to
 * MAX_ANSWER_BYTES (the reply then says `truncated`). Requires `--allow-net`
 * on the endpoint's host.
 *
 * Which API a URL speaks: a URL ending in `/api/chat` is Ollama; one ending in
 * `/chat/completions` is OpenAI-compatible; otherwise the URL is taken as a
 * base: `…/v1` gets `/chat/completions`, a bare Ollama port (11434) gets
 * `/api/chat`, anything else gets `/v1/chat/completions`.
 */
import { CruxeError } from "../core/errors.ts";
import { type ApiEndpoint, readCapped, resolveApiUrl } from "../io/model_endpoint.ts";
import { cutUtf8 } from "./_cut_utf8.ts";

/** The `llm` block of the config. */
export interface LlmConfig {
  url: string | null;
  model: string | null;
  apiKey: string | null;
  timeoutMs: number;
}

/** One chat message. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** A resolved chat endpoint. */
export type LlmEndpoint = ApiEndpoint;

/** The model's reply. */
export interface ChatReply {
  content: string;
  model: string | null;
  /** True when the model sent more than MAX_ANSWER_BYTES of answer (or a body over MAX_REPLY_BODY_BYTES). */
  truncated: boolean;
}

/** Longest answer text passed on (UTF-8 bytes); the rest of a longer answer is dropped. */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/**
 * Most bytes of a reply body read: room for a full-size answer in JSON escapes. A longer body is cut here
 * (the stream is cancelled) and the answer read from the part received.
 */
export const MAX_REPLY_BODY_BYTES = 4 * MAX_ANSWER_BYTES;

/** True when an endpoint is configured (a URL is set). */
export function llmConfigured(cfg: LlmConfig | null | undefined): cfg is LlmConfig & { url: string } {
  return !!cfg && typeof cfg.url === "string" && cfg.url.trim() !== "";
}

/** Works out the API and full URL of an endpoint (see the module comment). Throws `invalid_input` on a bad URL. */
export function resolveEndpoint(raw: string): LlmEndpoint {
  return resolveApiUrl(raw, "LLM endpoint", { ollama: "/api/chat", openai: "/chat/completions" });
}

/**
 * Sends one chat request and returns the reply text. Any failure (network,
 * timeout, non-2xx status, a reply without text) is `llm_unavailable`.
 * Requires `--allow-net` on the endpoint's host.
 */
export async function chat(cfg: LlmConfig & { url: string }, messages: ChatMessage[]): Promise<ChatReply> {
  const ep = resolveEndpoint(cfg.url);
  const body: Record<string, unknown> = ep.api === "ollama"
    ? { messages, stream: false, options: { temperature: 0 } }
    : { messages, stream: false, temperature: 0 };
  if (cfg.model) body.model = cfg.model;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (cfg.apiKey) headers.authorization = `Bearer ${cfg.apiKey}`;
  const host = new URL(ep.url).host;
  let res: Response;
  try {
    res = await fetch(ep.url, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(cfg.timeoutMs),
    });
  } catch (e) {
    const timedOut = (e as Error).name === "TimeoutError";
    throw new CruxeError(
      "llm_unavailable",
      timedOut
        ? `The language model at ${host} did not answer within ${cfg.timeoutMs} ms`
        : `The language model at ${host} cannot be reached: ${(e as Error).message}`,
      { endpoint_host: host, reason: timedOut ? "timeout" : "network" },
    );
  }
  let json: unknown;
  let received: { bytes: Uint8Array; complete: boolean };
  try {
    if (!res.ok) {
      const text = new TextDecoder().decode((await readCapped(res, 300)).bytes);
      throw new CruxeError("llm_unavailable", `The language model at ${host} answered HTTP ${res.status}: ${text}`, {
        endpoint_host: host,
        reason: "http_status",
        status: res.status,
      });
    }
    received = await readCapped(res, MAX_REPLY_BODY_BYTES);
    json = received.complete ? JSON.parse(new TextDecoder().decode(received.bytes)) : null;
  } catch (e) {
    if (e instanceof CruxeError) throw e;
    const timedOut = (e as Error).name === "TimeoutError";
    throw new CruxeError(
      "llm_unavailable",
      timedOut
        ? `The language model at ${host} did not finish within ${cfg.timeoutMs} ms`
        : `The language model at ${host} sent an unreadable reply`,
      { endpoint_host: host, reason: timedOut ? "timeout" : "bad_reply" },
    );
  }
  const j = json as {
    model?: string;
    choices?: { message?: { content?: unknown } }[];
    message?: { content?: unknown };
  } | null;
  const content = !received.complete
    ? answerFromPartialBody(received.bytes)
    : ep.api === "ollama"
    ? j?.message?.content
    : j?.choices?.[0]?.message?.content;
  if (typeof content !== "string" || !content.trim()) {
    throw new CruxeError("llm_unavailable", `The language model at ${host} sent a reply without text`, {
      endpoint_host: host,
      reason: "bad_reply",
    });
  }
  const cut = cutUtf8(content.trim(), MAX_ANSWER_BYTES);
  return {
    content: cut.text,
    model: typeof j?.model === "string" ? j.model : cfg.model,
    truncated: cut.cut || !received.complete,
  };
}

/**
 * The answer text of a reply body that was cut off: the string value of the first `"content"` key (the
 * message text in both APIs; the key cannot occur unescaped inside a string), decoded up to where the bytes
 * stop. Null when the cut came before it.
 */
function answerFromPartialBody(bytes: Uint8Array): string | null {
  // Streaming mode holds back a character the cut split instead of decoding it as U+FFFD.
  const text = new TextDecoder().decode(bytes, { stream: true });
  const m = /"content"\s*:\s*"/.exec(text);
  if (!m) return null;
  let i = m.index + m[0].length;
  const start = i;
  while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  // Drop an escape the cut split (`\`, `\u12`) before decoding.
  const raw = text.slice(start, Math.min(i, text.length)).replace(/\\(u[0-9a-fA-F]{0,3})?$/, "");
  try {
    return JSON.parse(`"${raw}"`);
  } catch {
    return null;
  }
}
