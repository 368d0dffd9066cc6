/**
 * The status page of the HTTP transport: `GET /ui` (or `GET /` from a
 * browser, `Accept: text/html`) serves one self-contained page, no external
 * assets, held in this module so the compiled binary carries it. The page
 * reads `/health` and calls `index_status` and `search_code` through the MCP
 * endpoint, so it sees exactly what an agent sees, under the same Host/Origin
 * checks and bearer token. With a token, open `/ui?token=…`: the page moves the
 * token from the address bar into its requests' `Authorization` header.
 * Requires nothing beyond the HTTP transport's permissions.
 */

/** True when `req` asks for the status page: `GET`/`HEAD /ui`, or `/` from a browser (HTML before JSON). */
export function wantsStatusPage(req: Request, path: string): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  if (path === "/ui" || path === "/ui/") return true;
  return path === "/" && /\btext\/html\b/.test(req.headers.get("accept") ?? "");
}

/** The page as a response: HTML, no caching, and a policy allowing only itself. */
export function statusPageResponse(req: Request): Response {
  return new Response(req.method === "HEAD" ? null : STATUS_PAGE_HTML, {
    status: 200,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy":
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; " +
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    },
  });
}

/** The page. Data is only ever inserted with `textContent`, never as HTML. */
export const STATUS_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cruxe</title>
<style>
  :root { color-scheme: light dark; --fg: #1d1f21; --muted: #6b7280; --bar: #2f855a; --line: #d1d5db; --err: #b91c1c; }
  @media (prefers-color-scheme: dark) { :root { --fg: #e5e7eb; --muted: #9ca3af; --line: #374151; --err: #f87171; } }
  body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 1100px; padding: 0 1rem; color: var(--fg); }
  h1 { font-size: 1.3rem; margin: 0 0 .2rem; } h2 { font-size: 1.05rem; margin: 1.6rem 0 .5rem; }
  .muted { color: var(--muted); } .err { color: var(--err); }
  table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
  th { font-weight: 600; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
  .bar { width: 160px; height: 10px; border: 1px solid var(--line); border-radius: 5px; overflow: hidden; display: inline-block; vertical-align: middle; }
  .bar > span { display: block; height: 100%; background: var(--bar); }
  code, .hit { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
  form { display: flex; gap: .5rem; } input[type=search] { flex: 1; padding: .4rem; font-size: 14px; }
  .hit { margin: .6rem 0; } .hit pre { margin: .2rem 0 0 1rem; white-space: pre-wrap; color: var(--muted); }
</style>
</head>
<body>
<h1>Cruxe</h1>
<div id="server" class="muted">connecting…</div>
<div id="problem" class="err"></div>
<h2>Projects</h2>
<table>
  <thead><tr><th>project</th><th>state</th><th class="num">files</th><th class="num">symbols</th><th>last indexed</th><th>job</th><th>watch</th></tr></thead>
  <tbody id="projects"></tbody>
</table>
<h2>Recent jobs</h2>
<table>
  <thead><tr><th>project</th><th>job</th><th>mode</th><th>status</th><th class="num">files</th><th class="num">syntax errors</th><th>when</th><th>error</th></tr></thead>
  <tbody id="jobs"></tbody>
</table>
<h2>Search</h2>
<form id="search"><select id="workspace"></select><input type="search" id="q" placeholder="search_code, e.g. where is rate limiting done" autocomplete="off"><button>Search</button></form>
<div id="results"></div>
<script>
"use strict";
const params = new URLSearchParams(location.search);
const token = params.get("token") || sessionStorage.getItem("cruxe-token") || "";
if (params.has("token")) {
  sessionStorage.setItem("cruxe-token", token);
  params.delete("token");
  history.replaceState(null, "", location.pathname + (params.toString() ? "?" + params : ""));
}
const auth = token ? { authorization: "Bearer " + token } : {};
const $ = (id) => document.getElementById(id);
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}
function row(cells) {
  const tr = document.createElement("tr");
  for (const c of cells) tr.append(c instanceof Node ? c : el("td", c));
  return tr;
}
function num(n) { const td = el("td", n ?? "", "num"); return td; }
function bar(pct, label) {
  const td = el("td"); const b = el("span", null, "bar"); const fill = el("span");
  fill.style.width = Math.max(0, Math.min(100, pct)) + "%"; b.append(fill);
  td.append(b, " ", el("span", label, "pct")); td.dataset.pct = String(pct); return td;
}
let rpcId = 0;
async function call(name, args) {
  const res = await fetch("/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...auth },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method: "tools/call", params: { name, arguments: args } }),
  });
  if (!res.ok) throw new Error(name + ": HTTP " + res.status);
  const msg = await res.json();
  if (msg.error) throw new Error(name + ": " + msg.error.message);
  const body = msg.result.structuredContent ?? JSON.parse(msg.result.content[0].text);
  if (msg.result.isError) throw new Error(name + ": " + body.error.message);
  return body;
}
let busy = false;
async function refresh() {
  if (busy) return;
  busy = true;
  try {
    const res = await fetch("/health", { headers: auth });
    if (!res.ok) throw new Error("/health: HTTP " + res.status + (res.status === 401 ? " (open /ui?token=…)" : ""));
    const h = await res.json();
    $("server").textContent = "version " + h.version + " · " + h.status + " · up " + h.uptime_seconds + " s · " +
      h.projects.length + " project(s)";
    const statuses = await Promise.all(h.projects.map((p) => call("index_status", { workspace: p.repo_root }).catch((e) => ({ error: e.message, ...p }))));
    const projects = $("projects"); const jobs = $("jobs");
    const select = $("workspace"); const chosen = select.value;
    const byDefault = el("option", "default workspace"); byDefault.value = "";
    projects.replaceChildren(); jobs.replaceChildren(); select.replaceChildren(byDefault);
    for (const s of statuses) {
      const name = s.name ?? s.repo_root;
      const who = el("td"); who.append(el("strong", name), el("br"), el("code", s.repo_root, "muted"));
      const a = s.active_job;
      const job = a ? bar(a.estimated_completion_pct, a.estimated_completion_pct + "% " + a.stage + " · " + a.files_indexed + "/" + a.files_scanned + " files") : el("td", "idle", "muted");
      if (a) job.className = "job-progress";
      const w = s.watch;
      const watch = !w ? "—" : typeof w !== "object" ? String(w)
        : [w.mode, w.pending_changes ? w.pending_changes + " pending" : "", w.syncs ? w.syncs + " sync(s)" : ""].filter(Boolean).join(" · ") +
          (w.reason ? " — " + w.reason : "");
      projects.append(row([who, el("td", s.error ? s.error : s.index_status, s.error ? "err" : ""), num(s.file_count), num(s.symbol_count), el("td", s.last_indexed_at ?? "never"), job, el("td", watch)]));
      for (const j of s.recent_jobs ?? []) {
        jobs.append(row([el("td", name), el("td", j.job_id, "hit"), el("td", j.mode), el("td", j.status, j.status === "failed" ? "err" : ""), num(j.files_indexed), num(j.parse_errors), el("td", j.created_at), el("td", j.error_message ?? "", "err")]));
      }
      const opt = el("option", name); opt.value = s.repo_root; select.append(opt);
    }
    if (chosen) select.value = chosen;
    $("problem").textContent = "";
    setTimeout(refresh, h.active_jobs.length ? 700 : 4000);
  } catch (e) {
    $("problem").textContent = String(e.message ?? e);
    setTimeout(refresh, 4000);
  } finally {
    busy = false;
  }
}
async function search(q) {
  const out = $("results");
  out.replaceChildren(el("div", "searching…", "muted"));
  try {
    const args = { query: q, limit: 20 };
    if ($("workspace").value) args.workspace = $("workspace").value;
    const r = await call("search_code", args);
    out.replaceChildren(el("div", r.results.length ? r.results.length + " of " + r.total_candidates + " candidates (" + r.query_intent + ")" : "No results.", "muted"));
    for (const x of r.results) {
      const d = el("div", null, "hit");
      d.append(el("span", x.path + ":" + (x.match_lines?.[0]?.line ?? x.line_start), "loc"), " ", el("span", x.qualified_name ?? x.name ?? "", "muted"), el("pre", x.snippet));
      out.append(d);
    }
  } catch (e) {
    out.replaceChildren(el("div", String(e.message ?? e), "err"));
  }
}
$("search").addEventListener("submit", (ev) => { ev.preventDefault(); const q = $("q").value.trim(); if (q) search(q); });
refresh().then(() => { const q = params.get("q"); if (q) { $("q").value = q; search(q); } });
</script>
</body>
</html>
`;
