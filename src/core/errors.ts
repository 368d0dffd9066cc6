/**
 * The error-code registry — the closed list of codes a client may see, each
 * with one meaning — and the one error type that carries a code. Codes are
 * only ever added; a code never changes meaning.
 */

/** Every error code a Cruxe client can ever see. */
export const ERROR_CODES = [
  "invalid_input",
  "invalid_strategy",
  "invalid_max_tokens",
  "project_not_found",
  "workspace_not_registered",
  "workspace_not_allowed",
  "workspace_limit_exceeded",
  "index_in_progress",
  "index_not_ready",
  "sync_in_progress",
  "index_stale",
  "index_incompatible",
  "ref_not_indexed",
  "symbol_not_found",
  "ambiguous_symbol",
  "file_not_found",
  "result_not_found",
  "no_edges_available",
  "internal_error",
  "forbidden",
  "unsupported_media",
  "llm_unavailable",
  "storage_unavailable",
  "merge_base_failed",
  "overlay_not_ready",
] as const;

/** A registry error code. */
export type ErrorCode = typeof ERROR_CODES[number];

/** True when `code` is in the registry. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" &&
    (ERROR_CODES as readonly string[]).includes(code);
}

/**
 * The single error type of Cruxe: thrown where the fact is known, turned into
 * a protocol or CLI error in exactly one place.
 */
export class CruxeError extends Error {
  readonly code: ErrorCode;
  readonly data: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    data: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "CruxeError";
    this.code = code;
    this.data = data;
  }

  /** The wire shape `{code, message, data}`. */
  toJSON(): { code: ErrorCode; message: string; data: Record<string, unknown> } {
    return { code: this.code, message: this.message, data: this.data };
  }
}

/** Wraps any thrown value as a CruxeError (unknown failures become `internal_error`). */
export function toCruxeError(err: unknown): CruxeError {
  if (err instanceof CruxeError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new CruxeError("internal_error", `Internal error: ${message}`);
}
