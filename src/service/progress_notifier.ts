/**
 * MCP `notifications/progress` for index jobs. Each message carries MCP's
 * `progress`/`total`/`message` and Cruxe's `value {kind, title, message,
 * percentage}`, so clients of either kind understand it. `progress` strictly
 * increases from one notification to the next (MCP's rule), also when the
 * percentage repeats; `value.percentage` is the job's percentage. A report goes out at
 * every stage change the job emits and at least every 2 s (the last report is
 * repeated), then one `kind: "end"` with files, symbols and duration, or the
 * error.
 *
 * Two routes:
 * - a call that carried `_meta.progressToken` and stays open (`wait: true`)
 *   gets the job's progress under the client's token (ProgressSink);
 * - every job also goes out under `index-job-{job_id}` to sessions whose
 *   client opted in at `initialize` (JobProgressBroadcaster), because MCP has
 *   no standard "send me unsolicited progress" capability. See
 *   `clientWantsJobProgress`.
 */
import type { JobRunner } from "../index/job_runner.ts";
import type { ActiveJob, IndexSummary, JobEvent, ProgressEvent } from "../state/jobs.ts";
import type { JobRow, ProjectRow } from "../state/registry.ts";

/** How often a report is repeated when the job says nothing new. */
export const HEARTBEAT_MS = 2000;

/** The experimental capability a client sets in `initialize` to receive job-token progress. */
export const JOB_PROGRESS_CAPABILITY = "cruxe/index_progress";

/** A notification on the wire (without `jsonrpc`). */
export interface ProgressNotification {
  method: "notifications/progress";
  params: {
    progressToken: string | number;
    progress: number;
    total: number;
    message: string;
    value: { kind: "report" | "end"; title: string; message: string; percentage?: number };
  };
}

/** Sends one notification; failures are the sender's to swallow (notifications are best effort: a lost one never fails the job or the call). */
export type NotificationSend = (n: ProgressNotification) => Promise<void>;

/**
 * True when a client's `initialize` capabilities opt in to job-token progress:
 * `capabilities.experimental["cruxe/index_progress"]` set to any object.
 */
export function clientWantsJobProgress(capabilities: unknown): boolean {
  const exp = (capabilities as { experimental?: Record<string, unknown> } | undefined)?.experimental;
  const v = exp?.[JOB_PROGRESS_CAPABILITY];
  return typeof v === "object" && v !== null;
}

function endMessage(job: JobRow, summary: IndexSummary | null, error: string | null): string {
  if (job.status === "published" && summary) {
    const secs = (summary.durationMs / 1000).toFixed(1);
    return `Indexed ${summary.filesIndexed} files, ${summary.symbols} symbols in ${secs}s ` +
      `(index: ${summary.totalFiles} files, ${summary.totalSymbols} symbols)`;
  }
  return `Error: ${error ?? job.error_message ?? `job ${job.status}`}`;
}

/** Step of MCP's `progress` when the percentage has not moved (a heartbeat, or a report within the same percent). */
const PROGRESS_STEP = 0.0001;

/**
 * MCP's `progress` after `last` for a report at `percentage`: strictly greater
 * than `last` (MCP requires every notification to increase it), the
 * percentage itself when that moved forward, and below 100 (the end's value).
 */
export function nextMcpProgress(last: number | null, percentage: number): number {
  if (last === null || percentage > last) return percentage;
  // 10,000 steps per percent (5.5 hours of heartbeats); past 99.9999 steps of 1e-12 (years of them).
  const next = Math.round((last + PROGRESS_STEP) / PROGRESS_STEP) * PROGRESS_STEP;
  return next < 100 - PROGRESS_STEP / 2 ? Number(next.toFixed(4)) : last + 1e-12;
}

/**
 * Formats one job's events for one token and repeats reports as a heartbeat.
 * `value.percentage` never goes back; MCP's `progress` strictly increases.
 */
class JobStream {
  private progress = 0;
  private mcpProgress: number | null = null;
  private lastReport: ProgressEvent | null;
  private lastSent = 0;
  private timer: number;
  private ended = false;

  constructor(
    private token: string | number,
    private project: ProjectRow,
    private send: NotificationSend,
    initial: ProgressEvent | null,
  ) {
    this.lastReport = initial;
    this.timer = setInterval(() => this.heartbeat(), 250) as unknown as number;
    Deno.unrefTimer(this.timer); // a heartbeat never keeps a stopping server alive
    if (initial) this.report(initial);
  }

  private heartbeat(): void {
    if (this.ended || !this.lastReport) return;
    if (performance.now() - this.lastSent >= HEARTBEAT_MS - 125) this.report(this.lastReport);
  }

  report(e: ProgressEvent): void {
    if (this.ended) return;
    this.lastReport = e;
    this.lastSent = performance.now();
    this.progress = Math.max(this.progress, Math.min(99, e.percentage));
    this.push({
      kind: "report",
      title: `Indexing project: ${this.project.name}`,
      message: e.message || `${e.stage}...`,
      percentage: this.progress,
    });
  }

  end(job: JobRow, summary: IndexSummary | null, error: string | null): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.timer);
    const ok = job.status === "published";
    this.progress = 100;
    this.push({
      kind: "end",
      title: ok ? `Indexing complete: ${this.project.name}` : `Indexing failed: ${this.project.name}`,
      message: endMessage(job, summary, error),
    });
  }

  stop(): void {
    this.ended = true;
    clearInterval(this.timer);
  }

  private push(value: ProgressNotification["params"]["value"]): void {
    this.mcpProgress = value.kind === "end" ? 100 : nextMcpProgress(this.mcpProgress, this.progress);
    this.send({
      method: "notifications/progress",
      params: { progressToken: this.token, progress: this.mcpProgress, total: 100, message: value.message, value },
    }).catch(() => {/* best effort: a gone client just misses progress */});
  }
}

/** Routes one job's events to a JobStream until the job ends. */
function followJob(runner: JobRunner, active: ActiveJob, stream: JobStream): () => void {
  const jobId = active.job.job_id;
  const off = runner.subscribe((e: JobEvent) => {
    if (e.job.job_id !== jobId) return;
    if (e.type === "progress") stream.report(e.event);
    else {
      stream.end(e.job, e.summary, e.error);
      off();
    }
  });
  return () => {
    off();
    stream.stop();
  };
}

/** Progress for one call that carried `_meta.progressToken`. */
export class ProgressSink {
  constructor(private runner: JobRunner, readonly token: string | number, private send: NotificationSend) {}

  /** Streams `active`'s progress under the call's token until it ends; returns a stop function. */
  follow(active: ActiveJob): () => void {
    return followJob(this.runner, active, new JobStream(this.token, active.project, this.send, active.last));
  }
}

/** A session that opted in to job-token progress. */
export interface ProgressSession {
  send: NotificationSend;
}

/** Sends every job's progress under `index-job-{job_id}` to the sessions that opted in. */
export class JobProgressBroadcaster {
  private sessions = new Set<ProgressSession>();
  private streams = new Map<string, Map<ProgressSession, JobStream>>();

  constructor(runner: JobRunner) {
    runner.subscribe((e) => this.onEvent(e));
  }

  /** Adds a session; returns the function that removes it. */
  add(session: ProgressSession): () => void {
    this.sessions.add(session);
    return () => {
      this.sessions.delete(session);
      for (const m of this.streams.values()) {
        m.get(session)?.stop();
        m.delete(session);
      }
    };
  }

  private onEvent(e: JobEvent): void {
    if (!this.sessions.size && !this.streams.has(e.job.job_id)) return;
    let m = this.streams.get(e.job.job_id);
    if (!m) this.streams.set(e.job.job_id, m = new Map());
    for (const s of this.sessions) {
      let st = m.get(s);
      if (!st) m.set(s, st = new JobStream(e.job.progress_token, e.project, s.send, null));
      if (e.type === "progress") st.report(e.event);
      else st.end(e.job, e.summary, e.error);
    }
    if (e.type === "end") this.streams.delete(e.job.job_id);
  }
}
