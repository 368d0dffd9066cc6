/**
 * The HTTP transport's status page, in a real headless browser (Debian's
 * `chromium`, driven over the DevTools protocol): the first paint, scripts
 * off, already shows the tables; a running job's progress moves in the open
 * page; a search hit clicked opens the file at its line, highlighted, through
 * `open_file` (whose path checks still refuse an escape); names and code from
 * the repository are shown as text, never run; per-tool call statistics and
 * failed calls are listed. Screenshots go to the test's output folder. Also
 * without a browser: the same Host/Origin checks and token as the MCP
 * endpoint, a self-only content policy, and `/` still serving MCP to clients.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { awaitHttpPort, CRUXE_FLAGS, REPO_ROOT, syntheticGoRepo, tempHomeDir, waitFor } from "./mcp_helpers.ts";
import { Browser, CHROMIUM, type Page } from "./helpers/cdp.ts";

const TOKEN = "page-s3cret";
const auth = { authorization: `Bearer ${TOKEN}` };

/** Starts `serve-mcp --transport http` on a free port; resolves to the port and a stop function. */
async function startServer(home: string, repo: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), "serve-mcp", "--transport", "http", "--port", "0"]
      .concat(["--workspace", repo, "--auth-token", TOKEN, "--no-prewarm"]),
    env: { CRUXE_HOME: home, CRUXE_WORKERS: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const { port, stop } = await awaitHttpPort(child);
  return { port, stop };
}

/** Sends a raw HTTP request (any Host header) and returns the status code. */
async function rawStatus(port: number, head: string): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(`${head}\r\nConnection: close\r\n\r\n`));
    const buf = new Uint8Array(256);
    const n = await conn.read(buf);
    return Number(new TextDecoder().decode(buf.subarray(0, n ?? 0)).match(/^HTTP\/1\.1 (\d+)/)?.[1] ?? 0);
  } finally {
    conn.close();
  }
}

/** Polls `expression` in `page` until it is truthy (at most `ms`); returns its value. */
async function until<T>(page: Page, expression: string, ms: number, what: string): Promise<T> {
  let value: T | undefined;
  await waitFor(async () => !!(value = await page.eval<T>(expression)), ms, what);
  return value!;
}

/** Where screenshots go: CRUXE_TEST_ARTIFACTS, or a fresh temporary folder. */
function artifactsDir(): string {
  return Deno.env.get("CRUXE_TEST_ARTIFACTS") ?? Deno.makeTempDirSync({ prefix: "cruxe-status-page-" });
}

/** Calls one tool over HTTP with the token and returns the response body (a tool error throws). */
async function callTool(base: string, name: string, args: Record<string, unknown> = {}) {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...auth },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  assert.equal(res.status, 200);
  const msg = await res.json();
  assert.ok(!msg.result.isError, JSON.stringify(msg.result.structuredContent));
  return msg.result.structuredContent;
}

/**
 * Starts a server on `repo` and a headless browser, starts indexing, runs `fn`
 * with the server's base URL, the browser and the screenshot folder, then
 * stops both and removes the home and `remove`.
 */
async function withServerAndBrowser(
  repo: string,
  remove: string,
  fn: (base: string, browser: Browser, artifacts: string) => Promise<void>,
): Promise<void> {
  const home = tempHomeDir();
  try {
    assert.ok(CHROMIUM, "chromium is not installed (.ci/run installs it)");
    const srv = await startServer(home, repo);
    try {
      const browser = await Browser.launch();
      try {
        const base = `http://127.0.0.1:${srv.port}`;
        await callTool(base, "index_repo");
        await fn(base, browser, artifactsDir());
      } finally {
        await browser.close();
      }
    } finally {
      await srv.stop();
    }
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(remove, { recursive: true });
  }
}

/** True while the server runs an index job. */
async function running(base: string): Promise<boolean> {
  return (await (await fetch(`${base}/health`, { headers: auth })).json()).active_jobs.length > 0;
}

Deno.test({
  name: "status page: token, Host/Origin checks, self-only assets; MCP still on / for clients",
  fn: async () => {
    const home = tempHomeDir();
    const repo = syntheticGoRepo(20);
    const srv = await startServer(home, repo);
    const base = `http://127.0.0.1:${srv.port}`;
    try {
      const noToken = await fetch(`${base}/ui`);
      assert.equal(noToken.status, 401);
      await noToken.body?.cancel();
      const page = await fetch(`${base}/ui?token=${TOKEN}`);
      assert.equal(page.status, 200);
      assert.match(page.headers.get("content-type")!, /^text\/html/);
      assert.match(page.headers.get("content-security-policy")!, /default-src 'none'.*connect-src 'self'/);
      const html = await page.text();
      assert.doesNotMatch(html, /<(script|link|img)[^>]+(src|href)=/, "no external assets");
      assert.ok(!html.includes(TOKEN), "the page does not carry the token");
      assert.match(
        html,
        /<table id="projects">.*<code class="muted">[^<]+<\/code>/s,
        "the projects are in the page as served",
      );
      const liveNoToken = await fetch(`${base}/ui/live`);
      assert.equal(liveNoToken.status, 401, "the live section needs the token");
      await liveNoToken.body?.cancel();
      const live = await fetch(`${base}/ui/live`, { headers: auth });
      assert.equal(live.status, 200);
      assert.match(await live.text(), /^<div id="server"[^>]*>version \d+\.\d+\.\d+/);
      const wrong = await fetch(`${base}/ui?token=nope`);
      assert.equal(wrong.status, 401);
      await wrong.body?.cancel();
      const browser = await fetch(`${base}/`, { headers: { accept: "text/html,application/xhtml+xml", ...auth } });
      assert.equal(browser.status, 200);
      assert.match(await browser.text(), /<title>Cruxe<\/title>/);
      const mcpGet = await fetch(`${base}/`, { headers: auth });
      assert.equal(mcpGet.status, 405, "GET / without Accept: text/html is still the MCP endpoint's");
      await mcpGet.body?.cancel();
      assert.equal(await rawStatus(srv.port, `GET /ui?token=${TOKEN} HTTP/1.1\r\nHost: evil.example:${srv.port}`), 403);
      assert.equal(
        await rawStatus(
          srv.port,
          `GET /ui?token=${TOKEN} HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nOrigin: http://evil.example`,
        ),
        403,
      );
    } finally {
      await srv.stop();
      Deno.removeSync(home, { recursive: true });
      Deno.removeSync(repo, { recursive: true });
    }
  },
});

Deno.test({
  name: "status page in headless chromium: a running job's progress moves in the open page, then its duration",
  // CI installs chromium (.ci/run); elsewhere the browser part needs it installed.
  ignore: !CHROMIUM && !Deno.env.get("CI"),
  fn: async () => {
    const repo = syntheticGoRepo(1500, 6);
    await withServerAndBrowser(repo, repo, async (base, browser, artifacts) => {
      const page = await browser.open(`${base}/ui?token=${TOKEN}`);
      await until(page, `document.readyState === "complete"`, 30_000, "the page to load");
      await page.eval(`window.sameLoad = true`);
      assert.ok(await page.eval(`document.body.textContent.includes(${JSON.stringify(repo)})`), "project listed");
      // The open page follows the job by itself (bounded wait on the job, no fixed sleeps).
      const seen: number[] = [];
      let shot = "";
      await waitFor(
        async () => {
          const pct = await page.eval<string | null>(
            `document.querySelector("#projects [data-pct]")?.dataset.pct ?? null`,
          );
          if (pct !== null && seen.at(-1) !== Number(pct)) seen.push(Number(pct));
          if (pct !== null && !shot) shot = await page.screenshot(artifacts, "status_page_indexing.png");
          return new Set(seen).size >= 2 || !(await running(base));
        },
        180_000,
        "the page's progress to move, or the job to end",
      );
      assert.ok(new Set(seen).size >= 2, `progress moved while the job ran: ${seen.join(", ")}`);
      assert.ok(seen.every((p, i) => i === 0 || p >= seen[i - 1]), `progress never went back: ${seen.join(", ")}`);
      assert.deepEqual([...Deno.readFileSync(shot).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], "a PNG screenshot");
      console.log(`screenshot: ${shot}`);
      await waitFor(async () => !(await running(base)), 180_000, "the index job to end");
      // Without a reload: the finished job with its duration, freshness and the watch mode in words.
      const done = await until<string>(
        page,
        `[...document.querySelectorAll("#jobs tr")].find((r) => r.textContent.includes("published"))?.innerHTML`,
        30_000,
        "the published job in the page",
      );
      assert.match(done, /<td class="num duration">\d+(\.\d)? (ms|s)|\d+ min \d\d s<\/td>/, "the job's duration");
      assert.match(done, /<time datetime="[^"]+"[^>]*>(just now|\d+ s ago)<\/time>/, "a relative time");
      assert.ok(await page.eval(`window.sameLoad`), "the page was not reloaded");
      const row = await page.eval<string>(`document.querySelector("#projects tbody tr").innerHTML`);
      assert.match(row, /<td class="freshness">(fresh|syncing)<\/td>/, "the freshness column");
      assert.match(row, /<td class="watch">(events|polling|off)( · [^<]*)?( — [^<]*)?<\/td>/, "the watch state");
      assert.ok(!row.includes('{"mode"'), "no raw JSON in the page");
      await page.screenshot(artifacts, "status_page_done.png");
    });
  },
});

/** A repository whose root, one file's name and its code carry HTML that would run if inserted as markup. */
function hostileRepo(): { parent: string; repo: string; file: string; lines: string[] } {
  const parent = Deno.makeTempDirSync({ prefix: "cruxe-status-hostile-" });
  const repo = join(parent, `<img src=x onerror="document.title='root'">`);
  Deno.mkdirSync(repo);
  const file = `api/<img src=x onerror="document.title='name'">.go`;
  const lines = [
    "package api",
    "",
    `// <script>document.title = "code"</script><img src=x onerror="document.title='code'">`,
    "func RateLimitRequests(n int) int {",
    "\treturn n * 2",
    "}",
    "",
  ];
  Deno.mkdirSync(join(repo, "api"));
  Deno.writeTextFileSync(join(repo, file), lines.join("\n"));
  Deno.writeTextFileSync(
    join(repo, "api", "use.go"),
    "package api\n\nfunc Use() int { return RateLimitRequests(1) }\n",
  );
  Deno.symlinkSync("/etc/hostname", join(repo, "api", "leak.txt"));
  return { parent, repo, file, lines };
}

Deno.test({
  name:
    "status page in headless chromium: first paint has the data; a clicked search hit opens highlighted via open_file",
  ignore: !CHROMIUM && !Deno.env.get("CI"),
  fn: async () => {
    const { parent, repo, file, lines } = hostileRepo();
    await withServerAndBrowser(repo, parent, async (base, browser, artifacts) => {
      await waitFor(async () => !(await running(base)), 120_000, "the index job to end");
      // The first paint, scripts off: the tables are there, the hostile root is text.
      const served = await (await fetch(`${base}/ui?token=${TOKEN}`)).text();
      assert.ok(served.includes(`<code class="muted">${escapeForTest(repo)}</code>`), "the root, escaped, as served");
      const plain = await browser.open(`${base}/ui?token=${TOKEN}`, { scripts: false });
      const dom = await plain.html();
      const asText = repo.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
      assert.ok(dom.includes(`<code class="muted">${asText}</code>`), `the root, as text, in the projects: ${dom}`);
      assert.match(dom, /<td class="freshness">fresh<\/td>/, "the freshness column without scripts");
      assert.match(dom, /<td class="num">2<\/td>/, "the file count without scripts");
      assert.match(dom, /<td class="num duration">\d+(\.\d)? (ms|s)<\/td>/, "a job duration without scripts");
      assert.match(dom, /<td class="mono">index_repo<\/td><td class="num">1<\/td>/, "tool call counts");
      assert.doesNotMatch(dom, /<img/, "no markup from the repository");
      const still = await plain.screenshot(artifacts, "status_page_first_paint.png");
      assert.deepEqual([...Deno.readFileSync(still).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], "a PNG screenshot");
      console.log(`screenshot: ${still}`);
      // Search, then click the hit in the hostile file: open_file shows it around the line, the line highlighted.
      const page = await browser.open(`${base}/ui?token=${TOKEN}&q=RateLimitRequests`);
      const hits = await until<string[]>(
        page,
        `(() => { const a = [...document.querySelectorAll("#results a.loc")]; return a.length ? a.map((x) => x.textContent) : null; })()`,
        60_000,
        "search hits",
      );
      const hit = hits.find((h) => h.startsWith(`${file}:`));
      assert.ok(hit, `a hit in the hostile file: ${hits.join(", ")}`);
      const line = Number(hit.slice(file.length + 1));
      await page.eval(
        `[...document.querySelectorAll("#results a.loc")].find((a) => a.textContent === ${
          JSON.stringify(hit)
        }).id = "target"`,
      );
      await page.click("#target");
      const shown = await until<{ no: string; text: string; count: number }>(
        page,
        `(() => { const h = document.querySelector("#file .ln.hl"); return h && { no: h.querySelector(".no").textContent,
          text: h.querySelector(".tx").textContent, count: document.querySelectorAll("#file .ln.hl").length }; })()`,
        30_000,
        "the highlighted line",
      );
      assert.deepEqual(shown, { no: String(line), text: lines[line - 1], count: 1 }, "that line, highlighted, once");
      const codeLine = await page.eval<string>(`document.getElementById("L3").querySelector(".tx").textContent`);
      assert.equal(codeLine, lines[2], "code with markup is shown as text");
      assert.match(await page.eval<string>(`location.hash`), /^#file=/);
      const shot = await page.screenshot(artifacts, "status_page_open_hit.png");
      console.log(`screenshot: ${shot}`);
      // Nothing from the repository ran or became markup.
      assert.equal(await page.eval(`document.title`), "Cruxe");
      assert.equal(await page.eval(`document.images.length`), 0);
      assert.equal(await page.eval(`document.scripts.length`), 1);
      // The page opens files only as open_file does: an escape by `..` or by symlink is refused.
      for (const escape of ["../../../etc/passwd", "api/leak.txt"]) {
        await page.eval(`location.hash = ${JSON.stringify(`#file=${encodeURIComponent(escape)}&line=1`)}`);
        const refused = await until<string>(page, `document.querySelector("#file .err")?.textContent`, 30_000, escape);
        assert.match(refused, /^open_file: /, `${escape}: ${refused}`);
        assert.equal(await page.eval(`document.querySelectorAll("#file .ln").length`), 0, escape);
      }
      // The calls the page made are counted, with their latencies; the refused ones are among the errors.
      const live = await (await fetch(`${base}/ui/live`, { headers: auth })).text();
      assert.match(live, /<td class="mono">search_code<\/td><td class="num">1<\/td><td class="num">0<\/td>/);
      assert.match(live, /<td class="mono">open_file<\/td><td class="num">3<\/td><td class="num">2<\/td>/);
      assert.match(live, /<td class="num">\d+(\.\d)? ms<\/td><td class="num">\d+(\.\d)? ms<\/td>/, "p50 and p95");
      assert.match(live, /<td class="mono">open_file: forbidden<\/td>/, "the failed call listed");
    });
  },
});

/** The page's escaping, written out independently of the server's. */
function escapeForTest(s: string): string {
  return s.replaceAll("&", "&#38;").replaceAll("<", "&#60;").replaceAll(">", "&#62;").replaceAll('"', "&#34;")
    .replaceAll("'", "&#39;");
}
