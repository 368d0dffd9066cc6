/**
 * The semantic layer's background pass: after an index is published, every
 * chunk of it that has no vector yet (by model and content hash) is embedded
 * in batches, with a bounded number of requests in flight, and each finished
 * batch is stored at once, so a stopped pass resumes where it stopped and
 * unchanged chunks are never embedded twice. One pass per project at a time;
 * its progress is what index_status reports under `semantic`. An endpoint
 * that fails ends the pass `unavailable` (lexical search is unaffected).
 * Requires `--allow-net` on the endpoint and read/write on the project store.
 */
import { digest } from "../core/ids.ts";
import { CruxeError } from "../core/errors.ts";
import { nowIso } from "../state/db.ts";
import { type ChunkText, type Placement, VectorStore } from "../state/chunk_vectors.ts";
import { collectionName, type EmbedConfig, embedModel } from "../core/semantic_layer.ts";
import { embedTexts } from "../io/embeddings.ts";

/** Where a project's semantic layer stands. */
export interface SemanticStatus {
  status: "running" | "complete" | "unavailable" | "failed";
  /** The pass's number for this project in this process (1 for the first). */
  pass: number;
  model: string;
  dims: number | null;
  collection: string | null;
  /** Distinct chunk texts in the current index. */
  chunks_total: number;
  /** How many of them have a vector. */
  chunks_embedded: number;
  /** Vectors requested by this pass (0 when every chunk already had one). */
  embedded_this_pass: number;
  started_at: string;
  finished_at: string | null;
  error?: string;
}

/** How a pass batches and bounds its requests. */
export interface EmbedOptions {
  batchSize: number;
  concurrency: number;
}

/** Defaults: 32 texts per request, 2 requests in flight. */
export const DEFAULT_EMBED_OPTIONS: EmbedOptions = { batchSize: 32, concurrency: 2 };

/** The text embedded for a chunk: its path as a header line (file names say much), then its code. */
export function embedText(c: ChunkText): string {
  return `${c.path}\n${c.content}`;
}

/** The hash a chunk's vector is keyed by: of the text embedded, so an unchanged chunk keeps its vector. */
export function chunkHash(c: ChunkText): string {
  return digest("chunk", embedText(c));
}

/** Runs embedding passes, one per project at a time. */
export class EmbedRunner {
  private passes = new Map<string, { status: SemanticStatus; done: Promise<SemanticStatus> }>();
  private stop = new AbortController();

  constructor(
    private cfg: EmbedConfig & { url: string },
    private opts: EmbedOptions = DEFAULT_EMBED_OPTIONS,
  ) {}

  /** The current or last pass of a project, if any ran in this process. */
  status(projectId: string): SemanticStatus | undefined {
    return this.passes.get(projectId)?.status;
  }

  /**
   * Starts a pass over `chunks()` into the store at `storePath`, or returns
   * the running one. The promise settles when the pass ends (never rejects).
   */
  start(projectId: string, storePath: string, chunks: () => ChunkText[]): Promise<SemanticStatus> {
    const running = this.passes.get(projectId);
    if (running?.status.status === "running") return running.done;
    const status: SemanticStatus = {
      status: "running",
      pass: (running?.status.pass ?? 0) + 1,
      model: embedModel(this.cfg),
      dims: null,
      collection: null,
      chunks_total: 0,
      chunks_embedded: 0,
      embedded_this_pass: 0,
      started_at: nowIso(),
      finished_at: null,
    };
    const done = this.run(status, storePath, chunks).then(() => status, (e) => {
      status.status = "failed";
      status.error = (e as Error).message;
      return status;
    }).finally(() => status.finished_at = nowIso());
    this.passes.set(projectId, { status, done });
    return done;
  }

  /** Stops every running pass (finished batches stay stored). */
  shutdown(): void {
    this.stop.abort();
  }

  private async run(status: SemanticStatus, storePath: string, chunks: () => ChunkText[]): Promise<void> {
    const store = VectorStore.open(storePath);
    try {
      const textOf = new Map<string, string>();
      const placements: Placement[] = chunks().map((c) => {
        const hash = chunkHash(c);
        if (!textOf.has(hash)) textOf.set(hash, embedText(c));
        return { hash, path: c.path, line_start: c.line_start, line_end: c.line_end };
      });
      store.replacePlacements(placements);
      const model = status.model;
      const storedDims = Number(store.meta(`dims:${model}`)) || null;
      status.dims = storedDims;
      status.collection = storedDims ? collectionName(model, storedDims) : null;
      const all = [...textOf.keys()];
      let missing = store.missing(model, all);
      status.chunks_total = all.length;
      status.chunks_embedded = all.length - missing.length;
      const batches: string[][] = [];
      for (let i = 0; i < missing.length; i += this.opts.batchSize) {
        batches.push(missing.slice(i, i + this.opts.batchSize));
      }
      missing = [];
      let failure: unknown = null;
      const worker = async () => {
        while (batches.length && !failure && !this.stop.signal.aborted) {
          const batch = batches.shift()!;
          try {
            const vectors = await embedTexts(this.cfg, batch.map((h) => textOf.get(h)!), this.stop.signal);
            this.keepDims(store, status, vectors[0].length);
            store.put(model, batch.map((hash, i) => ({ hash, vector: vectors[i] })));
            status.chunks_embedded += batch.length;
            status.embedded_this_pass += batch.length;
          } catch (e) {
            failure ??= e;
          }
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, this.opts.concurrency) }, worker));
      if (failure) {
        status.status = failure instanceof CruxeError && failure.code === "llm_unavailable" ? "unavailable" : "failed";
        status.error = (failure as Error).message;
      } else if (this.stop.signal.aborted) {
        status.status = "unavailable";
        status.error = "stopped before every chunk was embedded";
      } else status.status = "complete";
    } finally {
      store.close();
    }
  }

  /**
   * Records the collection's dimension on the first vector. A model whose
   * dimension changed since its vectors were stored starts over: vectors of
   * two sizes cannot be compared.
   */
  private keepDims(store: VectorStore, status: SemanticStatus, dims: number): void {
    if (status.dims === dims) return;
    if (status.dims !== null && status.embedded_this_pass > 0) {
      throw new CruxeError("llm_unavailable", `The embeddings endpoint changed dimension (${status.dims} → ${dims})`, {
        reason: "bad_reply",
      });
    }
    if (status.dims !== null) {
      store.dropModel(status.model);
      status.chunks_embedded = 0;
    }
    store.setMeta(`dims:${status.model}`, String(dims));
    status.dims = dims;
    status.collection = collectionName(status.model, dims);
  }
}
