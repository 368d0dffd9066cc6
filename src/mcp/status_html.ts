/**
 * The status page's live section as HTML, rendered on the server from a
 * `StatusSnapshot` (so a browser's first paint, scripts or not, shows the
 * data): server line, projects (state, counts, last indexed as a relative
 * time, freshness, watch state, the running job's progress), recent jobs with
 * durations, per-tool call statistics, the last failed calls and warnings.
 * Every value from the repository, the registry or a client is escaped here
 * and nowhere else. Pure: no I/O.
 */
import type { ProjectSnapshot, StatusSnapshot } from "./status_snapshot.ts";

/** `s` with the five HTML-significant characters escaped (safe in text and in quoted attributes). */
export function escapeHtml(s: unknown): string {
  return String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** How long ago `iso` was, seen at `now` (ms): "just now", "42 s ago", "3 min ago", "5 h ago", "2 d ago". */
export function relativeTime(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.round((now - t) / 1000);
  if (s < 0) return "in the future";
  if (s < 5) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** A duration in words: "850 ms", "12.3 s", "4 min 05 s", "2 h 07 min". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor(s / 60) % 60).padStart(2, "0")} min`;
}

function td(text: unknown, cls = ""): string {
  return `<td${cls ? ` class="${cls}"` : ""}>${escapeHtml(text)}</td>`;
}

function when(iso: string | null | undefined, now: number): string {
  if (!iso) return td("never", "muted");
  return `<td><time datetime="${escapeHtml(iso)}" title="${escapeHtml(iso)}">${
    escapeHtml(relativeTime(iso, now))
  }</time></td>`;
}

function watchText(w: ProjectSnapshot["watch"]): string {
  if (!w) return "—";
  const parts = [w.mode, w.pending_changes ? `${w.pending_changes} pending` : "", w.syncs ? `${w.syncs} sync(s)` : ""];
  return parts.filter(Boolean).join(" · ") + (w.reason ? ` — ${w.reason}` : "");
}

function jobCell(p: ProjectSnapshot, now: number): string {
  const a = p.active_job;
  if (!a) return td("idle", "muted");
  const pct = Math.max(0, Math.min(100, a.estimated_completion_pct));
  const elapsed = a.started_at ? ` · ${formatDuration(Math.max(0, now - Date.parse(a.started_at)))}` : "";
  const label = `${pct}% ${a.stage} · ${a.files_indexed}/${a.files_scanned} files${elapsed}`;
  return `<td class="job-progress" data-pct="${pct}"><span class="bar"><span style="width:${pct}%"></span></span> ` +
    `<span class="pct">${escapeHtml(label)}</span></td>`;
}

function projectRow(p: ProjectSnapshot, now: number): string {
  const who = `<td><strong>${escapeHtml(p.name)}</strong><br><code class="muted">${
    escapeHtml(p.repo_root)
  }</code></td>`;
  const state = p.error ? td(p.error, "err") : td(p.index_status);
  const fresh = td(p.freshness, `freshness ${p.freshness === "stale" ? "err" : ""}`.trim());
  return `<tr>${who}${state}${td(p.file_count ?? "", "num")}${td(p.symbol_count ?? "", "num")}${
    when(p.last_indexed_at, now)
  }${fresh}${jobCell(p, now)}${td(watchText(p.watch), "watch")}</tr>`;
}

function jobRows(p: ProjectSnapshot, now: number): string {
  return p.recent_jobs.map((j) => {
    const running = j.status === "running" || j.status === "queued";
    const took = j.duration_ms !== null
      ? formatDuration(j.duration_ms)
      : running
      ? `running ${formatDuration(Math.max(0, now - Date.parse(j.created_at)))}`
      : "—";
    return `<tr>${td(p.name)}${td(j.job_id, "mono")}${td(j.mode)}${td(j.status, j.status === "failed" ? "err" : "")}${
      td(j.files_indexed, "num")
    }${td(j.parse_errors, "num")}${when(j.created_at, now)}${td(took, "num duration")}${
      td(j.error_message ?? "", "err")
    }</tr>`;
  }).join("");
}

function table(id: string, heads: string[], rows: string, empty: string): string {
  const head = heads.map((h) => h.startsWith("#") ? `<th class="num">${h.slice(1)}</th>` : `<th>${h}</th>`).join("");
  const body = rows || `<tr><td colspan="${heads.length}" class="muted">${empty}</td></tr>`;
  return `<table id="${id}"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

/** The live section: everything on the page that changes, escaped. */
export function renderStatus(s: StatusSnapshot): string {
  const projects = s.projects.map((p) => projectRow(p, s.now)).join("");
  const jobs = s.projects.map((p) => jobRows(p, s.now)).join("");
  const tools = s.tools.map((t) =>
    `<tr>${td(t.tool, "mono")}${td(t.calls, "num")}${td(t.errors, "num")}${td(`${t.p50_ms} ms`, "num")}${
      td(`${t.p95_ms} ms`, "num")
    }${td(`${t.max_ms} ms`, "num")}</tr>`
  ).join("");
  const problems = [
    ...s.failed_calls.map((f) => ({ at: f.at, kind: `${f.tool}: ${f.code}`, message: f.message })),
    ...s.warnings.map((w) => ({ at: w.at, kind: "warning", message: w.message })),
  ].sort((a, b) => b.at.localeCompare(a.at)).slice(0, 30)
    .map((x) => `<tr>${when(x.at, s.now)}${td(x.kind, "mono")}${td(x.message, "msg")}</tr>`).join("");
  const up = s.uptime_seconds < 60 ? `${s.uptime_seconds} s` : formatDuration(s.uptime_seconds * 1000);
  const server = `version ${s.version} · ${s.status} · up ${up} · ` +
    `${s.projects.length} project(s)`;
  return `<div id="server" class="muted" data-active-jobs="${s.active_jobs}">${escapeHtml(server)}</div>` +
    `<h2>Projects</h2>${
      table(
        "projects",
        ["project", "state", "#files", "#symbols", "last indexed", "freshness", "job", "watch"],
        projects,
        "no project yet",
      )
    }` +
    `<h2>Recent jobs</h2>${
      table(
        "jobs",
        ["project", "job", "mode", "status", "#files", "#syntax errors", "started", "#duration", "error"],
        jobs,
        "no job yet",
      )
    }` +
    `<h2>Tool calls since start</h2>${
      table("tools", ["tool", "#calls", "#errors", "#p50", "#p95", "#max"], tools, "no call yet")
    }` +
    `<h2>Last warnings and errors</h2>${table("problems", ["when", "what", "message"], problems, "none")}`;
}
