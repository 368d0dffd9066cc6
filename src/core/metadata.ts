/** Protocol v1 metadata carried by every tool response. */
import { PROTOCOL_VERSION } from "./version.ts";

export type FreshnessStatus = "fresh" | "stale" | "syncing";
export type IndexingStatus = "not_indexed" | "indexing" | "ready" | "failed";
export type ResultCompleteness = "complete" | "partial" | "truncated";
export type SchemaStatus = "compatible" | "not_indexed" | "reindex_required" | "corrupt_manifest";

/** The `metadata` block of every response. */
export interface ProtocolMetadata {
  cruxe_protocol_version: string;
  freshness_status: FreshnessStatus;
  indexing_status: IndexingStatus;
  result_completeness: ResultCompleteness;
  ref: string;
  /** The commit answered from, present only when the answer comes from a git ref's store (not the working tree). */
  ref_commit?: string;
  schema_status: SchemaStatus;
  /** Conditions that limit every answer (e.g. a read-only store: syncing is off); present only when there are some. */
  warnings?: string[];
  /**
   * Present while `freshness_status` is `syncing` because changes to the
   * workspace are known and not yet indexed: how many, and (some of) their paths.
   */
  pending_changes?: { count: number; paths: string[] };
}

/**
 * Builds a metadata block; unspecified fields take the values of a ready,
 * fresh index, except that an index that is not `compatible` (none, or one
 * this build cannot read) is never `fresh`: it defaults to `stale`.
 */
export function buildMetadata(p: Partial<Omit<ProtocolMetadata, "cruxe_protocol_version">>): ProtocolMetadata {
  const usable = (p.schema_status ?? "compatible") === "compatible";
  return {
    cruxe_protocol_version: PROTOCOL_VERSION,
    freshness_status: p.freshness_status ?? (usable ? "fresh" : "stale"),
    indexing_status: p.indexing_status ?? "ready",
    result_completeness: p.result_completeness ?? "complete",
    ref: p.ref ?? "live",
    ...(p.ref_commit ? { ref_commit: p.ref_commit } : {}),
    schema_status: p.schema_status ?? "compatible",
    ...(p.warnings?.length ? { warnings: p.warnings } : {}),
  };
}
