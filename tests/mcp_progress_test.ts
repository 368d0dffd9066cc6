/**
 * Progress notifications : MCP
 * `progress`/`total`/`message` plus Cruxe's `value`, monotonic progress,
 * a repeated report at least every 2 s when the job is quiet, one
 * `end` with files, symbols and duration or the error, and job-token
 * progress only for sessions that opted in at initialize.
 */
import assert from "node:assert/strict";
import type { JobRunner } from "../src/index/job_runner.ts";
import type { ActiveJob, JobEvent, ProgressEvent } from "../src/state/jobs.ts";
import type { JobRow, ProjectRow } from "../src/state/registry.ts";
import {
  clientWantsJobProgress,
  JobProgressBroadcaster,
  nextMcpProgress,
  type ProgressNotification,
  ProgressSink,
} from "../src/service/progress_notifier.ts";
import { waitFor } from "./mcp_helpers.ts";

class FakeRunner {
  private fns = new Set<(e: JobEvent) => void>();
  subscribe(fn: (e: JobEvent) => void) {
    this.fns.add(fn);
    return () => this.fns.delete(fn);
  }
  emit(e: JobEvent) {
    for (const f of [...this.fns]) f(e);
  }
}

const project = { project_id: "p1", repo_root: "/r", name: "backend" } as ProjectRow;
const job = (status: JobRow["status"], extra: Partial<JobRow> = {}) =>
  ({ job_id: "abc123", progress_token: "index-job-abc123", status, ...extra }) as JobRow;
const ev = (stage: ProgressEvent["stage"], percentage: number, message: string): ProgressEvent => ({
  stage,
  filesScanned: 10,
  filesIndexed: 4,
  filesTotal: 10,
  symbols: 40,
  percentage,
  message,
});

Deno.test("a call's progress: spec value + MCP fields, monotonic, heartbeat within 2 s, then end", async () => {
  const runner = new FakeRunner();
  const sent: ProgressNotification[] = [];
  const sink = new ProgressSink(runner as unknown as JobRunner, 7, (n) => {
    sent.push(n);
    return Promise.resolve();
  });
  const active = { job: job("running"), project, last: ev("discovery", 0, "Scanning files: 0 discovered") };
  const stop = sink.follow(active as unknown as ActiveJob);
  runner.emit({
    type: "progress",
    job: job("running"),
    project,
    event: ev("parsing", 40, "Parsing files: 5/10 (50%)"),
  });
  runner.emit({ type: "progress", job: job("running"), project, event: ev("parsing", 30, "Parsing files: 3/10") });
  // A quiet job: the heartbeat repeats the last report (every 2 s; waited for with a generous bound).
  const reports = sent.length;
  assert.equal(reports, 3, "the follow-up report and two progress events");
  await waitFor(() => sent.length > reports, 30_000, "a heartbeat report");
  const beat = sent[reports];
  assert.equal(beat.params.value.kind, "report");
  assert.equal(beat.params.value.message, sent[reports - 1].params.value.message, "the heartbeat repeats the last");
  runner.emit({
    type: "end",
    job: job("published"),
    project,
    summary: {
      filesIndexed: 10,
      symbols: 40,
      durationMs: 1234,
      totalFiles: 10,
      totalSymbols: 40,
    } as never,
    error: null,
  });
  stop();
  for (const n of sent) {
    assert.equal(n.method, "notifications/progress");
    assert.equal(n.params.progressToken, 7);
    assert.equal(n.params.total, 100);
    assert.equal(n.params.message, n.params.value.message);
  }
  const progress = sent.map((n) => n.params.progress);
  for (let i = 1; i < progress.length; i++) {
    assert.ok(progress[i] > progress[i - 1], `MCP progress strictly increases: ${progress.join(", ")}`);
  }
  const pct = sent.filter((n) => n.params.value.kind === "report").map((n) => n.params.value.percentage!);
  assert.deepEqual(pct, [0, 40, 40, 40], "value.percentage is the job's, never going back");
  assert.equal(sent[0].params.value.title, "Indexing project: backend");
  assert.equal(sent[0].params.value.message, "Scanning files: 0 discovered");
  assert.equal(sent[1].params.value.percentage, 40);
  const end = sent.at(-1)!;
  assert.equal(end.params.value.kind, "end");
  assert.equal(end.params.value.title, "Indexing complete: backend");
  assert.match(end.params.value.message, /^Indexed 10 files, 40 symbols in 1\.2s/);
  assert.equal(end.params.progress, 100);
  assert.equal(sent.filter((n) => n.params.value.kind === "end").length, 1);
});

Deno.test("nextMcpProgress: strictly increasing, the percentage when it moves, below 100 until the end", () => {
  assert.equal(nextMcpProgress(null, 0), 0);
  assert.equal(nextMcpProgress(0, 10), 10);
  assert.equal(nextMcpProgress(10, 10), 10.0001);
  assert.equal(nextMcpProgress(10.0001, 10), 10.0002);
  assert.equal(nextMcpProgress(10.0002, 11), 11);
  let p = 99;
  for (let i = 0; i < 30_000; i++) {
    const next = nextMcpProgress(p, 99);
    assert.ok(next > p && next < 100, `${p} -> ${next}`);
    p = next;
  }
});

Deno.test("job-token progress goes only to sessions that opted in; a failure ends with the error", () => {
  assert.equal(clientWantsJobProgress({ experimental: { "cruxe/index_progress": {} } }), true);
  assert.equal(clientWantsJobProgress({}), false);
  assert.equal(clientWantsJobProgress(undefined), false);
  assert.equal(clientWantsJobProgress({ experimental: { "cruxe/index_progress": true } }), false);
  const runner = new FakeRunner();
  const b = new JobProgressBroadcaster(runner as unknown as JobRunner);
  const got: ProgressNotification[] = [];
  const remove = b.add({
    send: (n) => {
      got.push(n);
      return Promise.resolve();
    },
  });
  runner.emit({
    type: "progress",
    job: job("running"),
    project,
    event: ev("parsing", 20, "Parsing files: 2/10 (20%)"),
  });
  runner.emit({
    type: "end",
    job: job("failed", { error_message: "Permission denied reading /r/x.go" }),
    project,
    summary: null,
    error: "Permission denied reading /r/x.go",
  });
  remove();
  runner.emit({ type: "progress", job: job("running"), project, event: ev("parsing", 30, "later") });
  assert.equal(got.length, 2, "nothing after the session left");
  assert.equal(got[0].params.progressToken, "index-job-abc123");
  assert.equal(got[1].params.value.kind, "end");
  assert.equal(got[1].params.value.title, "Indexing failed: backend");
  assert.equal(got[1].params.value.message, "Error: Permission denied reading /r/x.go");
});
