import assert from "node:assert/strict";
import { escapeHtml, formatDuration, relativeTime, renderStatus } from "./status_html.ts";
import type { StatusSnapshot } from "./status_snapshot.ts";

const NOW = Date.parse("2026-01-02T12:00:00Z");
const ago = (ms: number) => new Date(NOW - ms).toISOString();

Deno.test("relativeTime: seconds, minutes, hours, days ago", () => {
  assert.equal(relativeTime(ago(2_000), NOW), "just now");
  assert.equal(relativeTime(ago(42_000), NOW), "42 s ago");
  assert.equal(relativeTime(ago(3 * 60_000 + 59_000), NOW), "3 min ago");
  assert.equal(relativeTime(ago(5 * 3_600_000), NOW), "5 h ago");
  assert.equal(relativeTime(ago(2 * 86_400_000 + 1), NOW), "2 d ago");
  assert.equal(relativeTime("not a time", NOW), "not a time");
});

Deno.test("formatDuration: ms, s, min, h", () => {
  assert.equal(formatDuration(850), "850 ms");
  assert.equal(formatDuration(12_340), "12.3 s");
  assert.equal(formatDuration(245_000), "4 min 05 s");
  assert.equal(formatDuration(2 * 3_600_000 + 7 * 60_000), "2 h 07 min");
});

Deno.test("escapeHtml: every HTML-significant character", () => {
  assert.equal(
    escapeHtml(`<a href="x" title='y'>&</a>`),
    "&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;",
  );
});

Deno.test("renderStatus: hostile text in every section stays text", () => {
  const evil = `<script>x()</script><img src=x onerror="y()">`;
  const snapshot: StatusSnapshot = {
    now: NOW,
    version: "1.2.3",
    status: "ready",
    uptime_seconds: 61,
    active_jobs: 1,
    projects: [{
      name: evil,
      repo_root: `/r/${evil}`,
      index_status: "indexing",
      file_count: 3,
      symbol_count: 9,
      last_indexed_at: ago(180_000),
      freshness: "syncing",
      watch: {
        mode: "polling",
        reason: evil,
        fix: null,
        pending_changes: 2,
        syncs: 1,
        last_sync: null,
        events_ignored: 0,
      },
      active_job: {
        job_id: "j1",
        progress_token: "t",
        mode: "full",
        status: "running",
        files_scanned: 10,
        files_indexed: 4,
        symbols_extracted: 0,
        estimated_completion_pct: 40,
        stage: "parsing",
        started_at: ago(65_000),
        owner_pid: 1,
      },
      recent_jobs: [{
        job_id: "j0",
        ref: "main",
        mode: "full",
        status: "failed",
        changed_files: null,
        files_indexed: 1,
        parse_errors: 0,
        symbols_extracted: 0,
        duration_ms: 1_500,
        error_message: evil,
        created_at: ago(600_000),
      }],
    }],
    tools: [{ tool: "search_code", calls: 3, errors: 1, p50_ms: 2.5, p95_ms: 9, max_ms: 9 }],
    failed_calls: [{ tool: "open_file", code: "forbidden", message: evil, at: ago(1_000) }],
    warnings: [{ at: ago(30_000), message: evil }],
  };
  const html = renderStatus(snapshot);
  assert.doesNotMatch(html, /<script|<img/, "no markup from the data");
  assert.equal(html.split("&#60;script&#62;").length - 1, 7, "the hostile text shown seven times, escaped");
  assert.match(html, /data-active-jobs="1">version 1\.2\.3 · ready · up 1 min 01 s · 1 project\(s\)</);
  assert.match(html, /<td class="job-progress" data-pct="40">.*40% parsing · 4\/10 files · 1 min 05 s/);
  assert.match(html, /<time datetime="[^"]+" title="[^"]+">3 min ago<\/time>/);
  assert.match(html, /<td class="freshness">syncing<\/td>/);
  assert.match(html, /<td class="watch">polling · 2 pending · 1 sync\(s\) — &#60;script/);
  assert.match(html, /<td class="num duration">1\.5 s<\/td>/);
  assert.match(html, /<td class="mono">search_code<\/td><td class="num">3<\/td><td class="num">1<\/td>/);
  assert.match(html, /<td class="num">2\.5 ms<\/td><td class="num">9 ms<\/td>/, "p50 and p95");
  assert.ok(html.indexOf("open_file: forbidden") < html.indexOf(">warning<"), "newest problem first");
});
