/**
 * The status page of the HTTP transport: `GET /ui` (or `GET /` from a
 * browser, `Accept: text/html`) serves one self-contained page, no external
 * assets, held in this module so the compiled binary carries it. The page
 * arrives with its data already rendered (`renderStatus`), so the first paint
 * shows it with or without scripts; its script then replaces that section
 * with `GET /ui/live` (the same rendering) every few seconds, often while a
 * job runs. Search calls `search_code` and a hit opens the file at its line
 * with `open_file`, both through the MCP endpoint, so the page sees exactly
 * what an agent sees, under the same Host/Origin checks, bearer token, path
 * checks and allowed roots. With a token, open `/ui?token=…`: the page moves
 * the token from the address bar into its requests' `Authorization` header.
 * Requires nothing beyond the HTTP transport's permissions.
 */
import { TOOL } from "../core/tool_names.ts";

/** The path of the page's live section alone (bearer token required, like `/health`). */
export const STATUS_LIVE_PATH = "/ui/live";

/** True when `req` asks for the status page: `GET`/`HEAD /ui`, or `/` from a browser (HTML before JSON). */
export function wantsStatusPage(req: Request, path: string): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  if (path === "/ui" || path === "/ui/") return true;
  return path === "/" && /\btext\/html\b/.test(req.headers.get("accept") ?? "");
}

/** The page as a response around `live` (escaped HTML from `renderStatus`): no caching, a policy allowing only itself. */
export function statusPageResponse(req: Request, live: string): Response {
  return htmlResponse(req, STATUS_PAGE_HEAD + `<div id="live">${live}</div>` + STATUS_PAGE_TAIL);
}

/** The live section alone (`live` from `renderStatus`), for the page's refreshes. */
export function statusLiveResponse(req: Request, live: string): Response {
  return htmlResponse(req, live);
}

function htmlResponse(req: Request, html: string): Response {
  return new Response(req.method === "HEAD" ? null : html, {
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

const STATUS_PAGE_HEAD = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cruxe</title>
<style>
  :root { color-scheme: light dark; --fg: #1d1f21; --muted: #6b7280; --bar: #2f855a; --line: #d1d5db; --err: #b91c1c; --hl: #fef08a; --hit: #fefce8; }
  @media (prefers-color-scheme: dark) { :root { --fg: #e5e7eb; --muted: #9ca3af; --line: #374151; --err: #f87171; --hl: #713f12; --hit: #292524; } }
  body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 1100px; padding: 0 1rem; color: var(--fg); }
  h1 { font-size: 1.3rem; margin: 0 0 .2rem; } h2 { font-size: 1.05rem; margin: 1.6rem 0 .5rem; }
  .muted { color: var(--muted); } .err { color: var(--err); }
  table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
  th { font-weight: 600; } .num { text-align: right; font-variant-numeric: tabular-nums; }
  td.msg { white-space: pre-wrap; word-break: break-word; }
  .bar { width: 160px; height: 10px; border: 1px solid var(--line); border-radius: 5px; overflow: hidden; display: inline-block; vertical-align: middle; }
  .bar > span { display: block; height: 100%; background: var(--bar); }
  code, .mono, .hit, .code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
  form { display: flex; gap: .5rem; } input[type=search] { flex: 1; padding: .4rem; font-size: 14px; }
  .hit { margin: .6rem 0; } .hit pre { margin: .2rem 0 0 1rem; white-space: pre-wrap; color: var(--muted); }
  .code { border: 1px solid var(--line); max-height: 70vh; overflow: auto; margin-top: .4rem; }
  .ln { display: flex; white-space: pre; } .ln .no { min-width: 4em; padding-right: 1em; text-align: right; color: var(--muted); user-select: none; }
  .ln.in-hit { background: var(--hit); } .ln.hl { background: var(--hl); font-weight: 600; }
</style>
</head>
<body>
<h1>Cruxe</h1>
<div id="problem" class="err"></div>
`;

const STATUS_PAGE_TAIL = `
<h2>Search</h2>
<form id="search"><select id="workspace"><option value="">default workspace</option></select><input type="search" id="q" placeholder="${TOOL.search_code}, e.g. where is rate limiting done" autocomplete="off"><button>Search</button></form>
<div id="results"></div>
<div id="file"></div>
<script>
"use strict";
const params = new URLSearchParams(location.search);
const token = params.get("token") || sessionStorage.getItem("cruxe-token") || "";
if (params.has("token")) {
  sessionStorage.setItem("cruxe-token", token);
  params.delete("token");
  history.replaceState(null, "", location.pathname + (params.toString() ? "?" + params : "") + location.hash);
}
const auth = token ? { authorization: "Bearer " + token } : {};
const $ = (id) => document.getElementById(id);
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
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
function workspaces() {
  const select = $("workspace"); const chosen = select.value;
  const byDefault = el("option", "default workspace"); byDefault.value = "";
  select.replaceChildren(byDefault);
  for (const code of document.querySelectorAll("#projects code")) {
    const opt = el("option", code.textContent); opt.value = code.textContent; select.append(opt);
  }
  select.value = chosen;
}
// The live section is rendered (and escaped) by the server: the same HTML as the first paint.
async function refresh() {
  let next = 4000;
  try {
    const res = await fetch("${STATUS_LIVE_PATH}", { headers: auth });
    if (!res.ok) throw new Error("${STATUS_LIVE_PATH}: HTTP " + res.status + (res.status === 401 ? " (open /ui?token=…)" : ""));
    $("live").innerHTML = await res.text();
    workspaces();
    $("problem").textContent = "";
    if (Number($("server").dataset.activeJobs)) next = 700;
  } catch (e) {
    $("problem").textContent = String(e.message ?? e);
  }
  setTimeout(refresh, next);
}
// A hit links to its best matched line (its first line when none is listed), within its line range.
function hitLink(x, workspace) {
  const line = x.match_lines?.[0]?.line ?? x.line_start;
  const spec = new URLSearchParams({ file: x.path, line: String(line) });
  if (x.line_start && x.line_end) { spec.set("from", String(x.line_start)); spec.set("to", String(x.line_end)); }
  if (workspace) spec.set("workspace", workspace);
  const a = el("a", x.path + ":" + line, "loc");
  a.href = "#" + spec;
  return a;
}
async function search(q) {
  const out = $("results");
  out.replaceChildren(el("div", "searching…", "muted"));
  try {
    const args = { query: q, limit: 20 };
    const workspace = $("workspace").value;
    if (workspace) args.workspace = workspace;
    const r = await call("${TOOL.search_code}", args);
    out.replaceChildren(el("div", r.results.length ? r.results.length + " of " + r.total_candidates + " candidates (" + r.query_intent + ")" : "No results.", "muted"));
    for (const x of r.results) {
      const d = el("div", null, "hit");
      d.append(hitLink(x, workspace), " ", el("span", x.qualified_name ?? x.name ?? "", "muted"), el("pre", x.snippet));
      out.append(d);
    }
  } catch (e) {
    out.replaceChildren(el("div", String(e.message ?? e), "err"));
  }
}
// A hit opens through open_file (its path checks and allowed roots), the file shown around the line, highlighted.
async function openHit() {
  const spec = new URLSearchParams(location.hash.slice(1));
  const view = $("file");
  const path = spec.get("file");
  if (!path) return view.replaceChildren();
  const line = Math.max(1, Number(spec.get("line")) || 1);
  const from = Number(spec.get("from")) || line, to = Number(spec.get("to")) || line;
  const args = { path, startLine: Math.max(1, line - 20), endLine: line + 20 };
  if (spec.get("workspace")) args.workspace = spec.get("workspace");
  view.replaceChildren(el("div", "opening " + path + "…", "muted"));
  try {
    const r = await call("${TOOL.open_file}", args);
    const head = el("h2"); head.append(el("code", r.path + ":" + line), " ", el("span", "lines " + r.startLine + "–" + r.endLine + " of " + r.totalLines, "muted"));
    const code = el("div", null, "code");
    r.content.split("\\n").slice(0, r.endLine - r.startLine + 1).forEach((text, i) => {
      const n = r.startLine + i;
      const d = el("div", null, n === line ? "ln hl" : n >= from && n <= to ? "ln in-hit" : "ln");
      d.id = "L" + n;
      d.append(el("span", n, "no"), el("span", text, "tx"));
      code.append(d);
    });
    view.replaceChildren(head, code);
    $("L" + line)?.scrollIntoView({ block: "center" });
  } catch (e) {
    view.replaceChildren(el("div", String(e.message ?? e), "err"));
  }
}
$("search").addEventListener("submit", (ev) => { ev.preventDefault(); const q = $("q").value.trim(); if (q) search(q); });
window.addEventListener("hashchange", openHit);
workspaces();
setTimeout(refresh, Number($("server")?.dataset.activeJobs) ? 700 : 4000);
openHit();
const q = params.get("q");
if (q) { $("q").value = q; search(q); }
</script>
</body>
</html>
`;
