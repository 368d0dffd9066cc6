/**
 * What the chat and embeddings clients share about a model endpoint: which
 * API its URL speaks and its full URL, and reading its reply with a ceiling.
 * In state, the lowest layer that does I/O, because the indexer (embedding
 * passes) and the query side (query embeddings, ask_code's chat) both call
 * model endpoints. Needs no permission itself; the caller's fetch needs
 * `--allow-net` on the endpoint's host.
 *
 * Which API a URL speaks: a path ending in the Ollama route is Ollama; one
 * ending in the OpenAI-compatible route is OpenAI-compatible; otherwise the
 * URL is a base: `…/v1` gets the OpenAI route, a bare Ollama port (11434)
 * gets the Ollama route, anything else gets `/v1` + the OpenAI route.
 */
import { CruxeError } from "../core/errors.ts";

/** A resolved endpoint. */
export interface ApiEndpoint {
  api: "openai" | "ollama";
  url: string;
}

/**
 * Resolves `raw` for the routes `ollama` (`/api/chat`) and `openai`
 * (`/chat/completions`, without `/v1`). Throws `invalid_input` naming `what`
 * on a URL that is not http(s).
 */
export function resolveApiUrl(raw: string, what: string, routes: { ollama: string; openai: string }): ApiEndpoint {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new CruxeError("invalid_input", `The ${what} URL is not a URL: ${raw}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new CruxeError("invalid_input", `The ${what} must be http(s): ${raw}`);
  }
  const path = u.pathname.replace(/\/+$/, "");
  if (path.endsWith(routes.ollama)) return { api: "ollama", url: u.toString() };
  if (path.endsWith(routes.openai)) return { api: "openai", url: u.toString() };
  if (path.endsWith("/v1")) u.pathname = path + routes.openai;
  else if (u.port === "11434" && path === "") {
    u.pathname = routes.ollama;
    return { api: "ollama", url: u.toString() };
  } else u.pathname = path + "/v1" + routes.openai;
  return { api: "openai", url: u.toString() };
}

/**
 * Reads at most `limit` bytes of a response body, cancelling the rest (a
 * remote endpoint's reply is never held past it, whatever it sends);
 * `complete` when the body ended first.
 */
export async function readCapped(res: Response, limit: number): Promise<{ bytes: Uint8Array; complete: boolean }> {
  if (!res.body) return { bytes: new Uint8Array(0), complete: true };
  const reader = res.body.getReader();
  const out = new Uint8Array(limit);
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { bytes: out.subarray(0, size), complete: true };
    const take = Math.min(value.length, limit - size);
    out.set(value.subarray(0, take), size);
    size += take;
    if (take < value.length) {
      await reader.cancel().catch(() => {});
      return { bytes: out.subarray(0, size), complete: false };
    }
  }
}
