/**
 * Facts of the optional semantic layer that every layer reads: when it is
 * on, the model name its vectors are stored under, the collection name
 * answers carry, and the largest vector accepted. Pure; no permission.
 */

/** The `embed` block of the config. */
export interface EmbedConfig {
  url: string | null;
  model: string | null;
  apiKey: string | null;
  timeoutMs: number;
}

/** Most dimensions accepted from an endpoint. */
export const MAX_EMBED_DIMS = 8192;

/** True when an embeddings endpoint is configured (a URL is set). */
export function embedConfigured(cfg: EmbedConfig | null | undefined): cfg is EmbedConfig & { url: string } {
  return !!cfg && typeof cfg.url === "string" && cfg.url.trim() !== "";
}

/** The model name vectors are stored under (the configured one, or `default` when the endpoint picks). */
export function embedModel(cfg: EmbedConfig): string {
  return cfg.model?.trim() || "default";
}

/** The collection name answers carry in `meta.collection`: `cruxe__<dims>__<model>` (model in safe characters). */
export function collectionName(model: string, dims: number): string {
  return `cruxe__${dims}__${model.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "model"}`;
}
