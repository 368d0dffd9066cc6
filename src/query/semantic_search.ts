/**
 * The semantic half of search_code: the query as a vector (the client's
 * `vector`, checked against the collection's dimension, or the query text
 * embedded through the configured endpoint), then the nearest chunks by
 * cosine over the project's stored vectors (brute force over int8 rows),
 * returned as a ranked chunk list for fusion with the lexical sources. It
 * never fails a search: no collection, a dead or slow endpoint, or a pass
 * still running each give fewer (or no) semantic hits and a note.
 * Requires read access to the vector store and `--allow-net` on the endpoint.
 */
import { existsSync } from "node:fs";
import type { Db } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import { type StoredVector, VectorStore } from "../state/chunk_vectors.ts";
import { collectionName, type EmbedConfig, embedConfigured, embedModel } from "../core/semantic_layer.ts";
import { embedTexts } from "../io/embeddings.ts";
import type { ChunkHit } from "./search/candidates.ts";
import { chunkAt } from "../state/read/chunks.ts";

/** Longest wait for the query's own embedding; past it the answer is lexical. */
export const QUERY_EMBED_TIMEOUT_MS = 5000;
/** Nearest chunks fused with the lexical lists. */
export const SEMANTIC_DEPTH = 60;

/** What the semantic half contributes to one answer. */
export interface SemanticOutcome {
  hits: ChunkHit[];
  /** `cruxe__<dims>__<model>` when a collection exists. */
  collection: string | null;
  /** `partial` while some chunks of the index have no vector yet. */
  completeness: "complete" | "partial";
  /** Why the semantic half gave less than it could (no collection, endpoint down ...). */
  note?: string;
}

interface Loaded {
  stamp: string;
  dims: number;
  rows: StoredVector[];
  norms: Float32Array;
}
const cache = new Map<string, Loaded>();

/** Nearest stored vectors to `q` by cosine, best first (at most `k`). */
export function nearest(rows: StoredVector[], norms: Float32Array, query: ArrayLike<number>, k: number) {
  const q = Float32Array.from(query);
  let qn = 0;
  for (let i = 0; i < q.length; i++) qn += q[i] * q[i];
  qn = Math.sqrt(qn) || 1;
  const top: { hash: string; score: number }[] = [];
  for (let r = 0; r < rows.length; r++) {
    const d = rows[r].data;
    let dot = 0;
    for (let i = 0; i < d.length; i++) dot += q[i] * d[i];
    const score = dot / (qn * (norms[r] || 1));
    if (top.length < k || score > top[top.length - 1].score) {
      top.push({ hash: rows[r].hash, score });
      top.sort((a, b) => b.score - a.score);
      if (top.length > k) top.pop();
    }
  }
  return top;
}

function load(store: VectorStore, model: string, dims: number): Loaded {
  const stored = store.vectorCount(model);
  const placed = store.placedHashes();
  const key = `${stored}:${placed}:${dims}:${store.meta("placements_at") ?? ""}`;
  const have = cache.get(store.path);
  if (have && have.stamp === key) return have;
  const rows = store.vectorsOf(model).filter((r) => r.data.length === dims);
  const norms = new Float32Array(rows.length);
  rows.forEach((r, i) => {
    let s = 0;
    for (let j = 0; j < r.data.length; j++) s += r.data[j] * r.data[j];
    norms[i] = Math.sqrt(s);
  });
  const out = { stamp: key, dims, rows, norms };
  cache.set(store.path, out);
  return out;
}

/** Checks a client's vector: finite numbers of the collection's dimension (`invalid_input` otherwise). */
export function checkVector(v: unknown, dims: number, collection: string): number[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "number" && Number.isFinite(x))) {
    throw new CruxeError("invalid_input", "vector must be an array of finite numbers", { field: "vector" });
  }
  if (v.length !== dims) {
    throw new CruxeError(
      "invalid_input",
      `vector has ${v.length} dimensions; the collection ${collection} has ${dims}`,
      { field: "vector", expected_dims: dims, got_dims: v.length, collection },
    );
  }
  return v as number[];
}

/**
 * The semantic hits for one query over the store at `storePath`. Throws
 * only `invalid_input` (a client vector of the wrong dimension or shape).
 */
export async function semanticHits(
  db: Db,
  storePath: string,
  cfg: EmbedConfig | null,
  input: { query: string; vector?: unknown },
  k = SEMANTIC_DEPTH,
): Promise<SemanticOutcome> {
  const model = embedModel(cfg ?? { url: null, model: null, apiKey: null, timeoutMs: 0 });
  if (!existsSync(storePath)) {
    return { hits: [], collection: null, completeness: "partial", note: noCollection(cfg) };
  }
  const store = VectorStore.open(storePath);
  try {
    const dims = Number(store.meta(`dims:${model}`)) || 0;
    if (!dims) return { hits: [], collection: null, completeness: "partial", note: noCollection(cfg) };
    const collection = collectionName(model, dims);
    const placed = store.placedHashes();
    const embedded = store.placedCount(model);
    const completeness = embedded < placed ? "partial" as const : "complete" as const;
    const progress = completeness === "partial" ? `${embedded} of ${placed} chunks have vectors so far` : undefined;
    let q: number[];
    if (input.vector !== undefined) q = checkVector(input.vector, dims, collection);
    else if (!embedConfigured(cfg)) {
      return { hits: [], collection, completeness, note: "no embeddings endpoint is configured: lexical results only" };
    } else {
      try {
        [q] = await embedTexts({ ...cfg, timeoutMs: Math.min(cfg.timeoutMs, QUERY_EMBED_TIMEOUT_MS) }, [input.query]);
      } catch (e) {
        return { hits: [], collection, completeness, note: `${(e as Error).message}: lexical results only` };
      }
      if (q.length !== dims) {
        return {
          hits: [],
          collection,
          completeness,
          note: `the endpoint now answers ${q.length} dimensions, the collection has ${dims}: lexical results only`,
        };
      }
    }
    const { rows, norms } = load(store, model, dims);
    const top = nearest(rows, norms, q, k);
    const at = new Map<string, { path: string; line_start: number }[]>();
    for (const p of store.placementsOf(top.map((t) => t.hash))) {
      const list = at.get(p.hash) ?? [];
      list.push(p);
      at.set(p.hash, list);
    }
    const hits: ChunkHit[] = [];
    for (const t of top) {
      for (const p of at.get(t.hash) ?? []) {
        const c = chunkAt(db, p.path, p.line_start, null);
        if (c && c.line_start === p.line_start) hits.push(c);
      }
    }
    return { hits: hits.slice(0, k), collection, completeness, ...(progress ? { note: progress } : {}) };
  } finally {
    store.close();
  }
}

function noCollection(cfg: EmbedConfig | null): string {
  return embedConfigured(cfg)
    ? "chunk vectors are still being computed: lexical results only"
    : "no embeddings collection (set CRUXE_EMBED_URL to build one): lexical results only";
}
