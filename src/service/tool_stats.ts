/**
 * Per-tool call statistics since the server started, for the status page:
 * calls, errors and latency percentiles (p50/p95) of each tool, and the last
 * failed calls. Held in memory only; the latency samples of a tool are the
 * most recent MAX_SAMPLES (the counts cover every call). Requires nothing.
 */

/** Latency samples kept per tool (the percentiles are over these). */
export const MAX_SAMPLES = 2048;
/** Failed calls kept for the status page. */
export const MAX_FAILURES = 20;

/** One tool's line of the statistics. */
export interface ToolStatLine {
  tool: string;
  calls: number;
  errors: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
}

/** A failed call as the status page lists it. */
export interface FailedCall {
  tool: string;
  code: string;
  message: string;
  at: string;
}

interface Entry {
  calls: number;
  errors: number;
  max: number;
  samples: number[];
  next: number;
}

/** The nearest-rank `p` percentile (0–100) of `values`; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Counts and latencies of tool calls; one instance per dispatcher. */
export class ToolStats {
  private byTool = new Map<string, Entry>();
  private failed: FailedCall[] = [];

  /** Records one finished call: its tool, how long it took, and its error (code and message) if it failed. */
  record(tool: string, ms: number, error?: { code: string; message: string }): void {
    let e = this.byTool.get(tool);
    if (!e) this.byTool.set(tool, e = { calls: 0, errors: 0, max: 0, samples: [], next: 0 });
    e.calls++;
    e.max = Math.max(e.max, ms);
    if (e.samples.length < MAX_SAMPLES) e.samples.push(ms);
    else e.samples[e.next] = ms;
    e.next = (e.next + 1) % MAX_SAMPLES;
    if (!error) return;
    e.errors++;
    this.failed.push({ tool, ...error, at: new Date().toISOString() });
    if (this.failed.length > MAX_FAILURES) this.failed.shift();
  }

  /** One line per tool called so far, most called first (ties by name); latencies rounded to 0.1 ms. */
  lines(): ToolStatLine[] {
    const round = (n: number) => Math.round(n * 10) / 10;
    return [...this.byTool].map(([tool, e]) => ({
      tool,
      calls: e.calls,
      errors: e.errors,
      p50_ms: round(percentile(e.samples, 50)),
      p95_ms: round(percentile(e.samples, 95)),
      max_ms: round(e.max),
    })).sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool));
  }

  /** The last failed calls, newest first. */
  failures(): FailedCall[] {
    return [...this.failed].reverse();
  }
}

/** The error code and message of a failed tool result (`isError`), or undefined for a success. */
export function callFailure(
  result: { isError?: boolean; structuredContent: Record<string, unknown> },
): { code: string; message: string } | undefined {
  if (!result.isError) return undefined;
  const error = (result.structuredContent.error ?? {}) as { code?: unknown; message?: unknown };
  return { code: String(error.code ?? "internal_error"), message: String(error.message ?? "") };
}
