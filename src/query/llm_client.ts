/**
 * A minimal chat client for ask_code: an OpenAI-compatible `/chat/completions`
 * endpoint or Ollama's `/api/chat`, one non-streaming request, temperature 0,
 * bounded by a timeout. Requires `--allow-net` on the endpoint's host.
 *
 * Which API a URL speaks: a URL ending in `/api/chat` is Ollama; one ending in
 * `/chat/completions` is OpenAI-compatible; otherwise the URL is taken as a
 * base: `…/v1` gets `/chat/completions`, a bare Ollama port (11434) gets
 * `/api/chat`, anything else gets `/v1/chat/completions`.
 */
import { CruxeError } from "../core/errors.ts";

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

/** A resolved endpoint. */
export interface LlmEndpoint {
  api: "openai" | "ollama";
  url: string;
}

/** The model's reply. */
export interface ChatReply {
  content: string;
  model: string | null;
}

/** True when an endpoint is configured (a URL is set). */
export function llmConfigured(cfg: LlmConfig | null | undefined): cfg is LlmConfig & { url: string } {
  return !!cfg && typeof cfg.url === "string" && cfg.url.trim() !== "";
}

/** Works out the API and full URL of an endpoint (see the module comment). Throws `invalid_input` on a bad URL. */
export function resolveEndpoint(raw: string): LlmEndpoint {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new CruxeError("invalid_input", `The LLM endpoint URL is not a URL: ${raw}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new CruxeError("invalid_input", `The LLM endpoint must be http(s): ${raw}`);
  }
  const path = u.pathname.replace(/\/+$/, "");
  if (path.endsWith("/api/chat")) return { api: "ollama", url: u.toString() };
  if (path.endsWith("/chat/completions")) return { api: "openai", url: u.toString() };
  if (path.endsWith("/v1")) u.pathname = path + "/chat/completions";
  else if (u.port === "11434" && path === "") {
    u.pathname = "/api/chat";
    return { api: "ollama", url: u.toString() };
  } else u.pathname = path + "/v1/chat/completions";
  return { api: "openai", url: u.toString() };
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
  try {
    if (!res.ok) {
      const text = (await res.text()).slice(0, 300);
      throw new CruxeError("llm_unavailable", `The language model at ${host} answered HTTP ${res.status}: ${text}`, {
        endpoint_host: host,
        reason: "http_status",
        status: res.status,
      });
    }
    json = await res.json();
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
  };
  const content = ep.api === "ollama" ? j.message?.content : j.choices?.[0]?.message?.content;
  if (typeof content !== "string" || !content.trim()) {
    throw new CruxeError("llm_unavailable", `The language model at ${host} sent a reply without text`, {
      endpoint_host: host,
      reason: "bad_reply",
    });
  }
  return { content: content.trim(), model: typeof j.model === "string" ? j.model : cfg.model };
}
