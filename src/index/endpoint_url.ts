/**
 * Which API a model endpoint URL speaks and its full URL, for the chat and
 * embeddings clients alike: a path ending in the Ollama route is Ollama; one
 * ending in the OpenAI-compatible route is OpenAI-compatible; otherwise the
 * URL is a base: `…/v1` gets the OpenAI route, a bare Ollama port (11434)
 * gets the Ollama route, anything else gets `/v1` + the OpenAI route.
 * Pure; no permission.
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
