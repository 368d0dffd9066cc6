/**
 * The HTTP transport's status page, in a real headless browser (Debian's
 * `chromium`): it loads under the token, shows a running job's progress
 * moving, and a search returns `path:line` results; a screenshot is saved.
 * Also without a browser: the same Host/Origin checks and token as the MCP
 * endpoint, a self-only content policy, and `/` still serving MCP to clients.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { awaitHttpPort, CRUXE_FLAGS, REPO_ROOT, syntheticGoRepo, tempHomeDir, waitFor } from "./mcp_helpers.ts";

const CHROMIUM = ["chromium", "chromium-browser", "google-chrome"].find((c) => {
  try {
    return new Deno.Command(c, { args: ["--version"], stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
});
const TOKEN = "page-s3cret";
const dec = new TextDecoder();

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
    return Number(dec.decode(buf.subarray(0, n ?? 0)).match(/^HTTP\/1\.1 (\d+)/)?.[1] ?? 0);
  } finally {
    conn.close();
  }
}

/** Loads `url` in headless chromium, lets its scripts run, and returns the DOM (or takes a screenshot). */
async function browse(url: string, profile: string, screenshot?: string): Promise<string> {
  const args = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    `--user-data-dir=${profile}`,
    "--virtual-time-budget=3000",
    ...(screenshot ? [`--screenshot=${screenshot}`, "--window-size=1200,900"] : ["--dump-dom"]),
    url,
  ];
  const out = await new Deno.Command(CHROMIUM!, { args, stdout: "piped", stderr: "piped" }).output();
  assert.ok(out.success, dec.decode(out.stderr));
  return dec.decode(out.stdout);
}

const auth = { authorization: `Bearer ${TOKEN}` };

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
  name: "status page in headless chromium: projects, a running job's progress moving, search results, screenshot",
  // CI installs chromium (.ci/run); elsewhere the browser part needs it installed.
  ignore: !CHROMIUM && !Deno.env.get("CI"),
  fn: async () => {
    assert.ok(CHROMIUM, "chromium is not installed (.ci/run installs it)");
    const home = tempHomeDir();
    const repo = syntheticGoRepo(1500, 6);
    const profile = Deno.makeTempDirSync({ prefix: "cruxe-chromium-" });
    const artifacts = Deno.env.get("CRUXE_TEST_ARTIFACTS") ?? Deno.makeTempDirSync({ prefix: "cruxe-status-page-" });
    const srv = await startServer(home, repo);
    const base = `http://127.0.0.1:${srv.port}`;
    try {
      const started = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...auth },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "index_repo", arguments: {} },
        }),
      });
      assert.equal(started.status, 200);
      await started.body?.cancel();
      const running =
        async () => ((await (await fetch(`${base}/health`, { headers: auth })).json()).active_jobs.length > 0);
      // The page shows the job's progress; it moves between loads (bounded wait on the job, no fixed sleeps).
      const seen: number[] = [];
      let shot = "";
      while (await running() && new Set(seen).size < 2) {
        const dom = await browse(`${base}/ui?token=${TOKEN}`, profile);
        assert.match(dom, /version \d+\.\d+\.\d+/);
        assert.ok(dom.includes(repo), "the project is listed");
        const pct = dom.match(/data-pct="(\d+)"/)?.[1];
        if (pct !== undefined) {
          seen.push(Number(pct));
          if (!shot) {
            shot = join(artifacts, "status_page_indexing.png");
            await browse(`${base}/ui?token=${TOKEN}`, profile, shot);
          }
        }
      }
      assert.ok(new Set(seen).size >= 2, `progress moved while the job ran: ${seen.join(", ")}`);
      assert.ok(seen.every((p, i) => i === 0 || p >= seen[i - 1]), `progress never went back: ${seen.join(", ")}`);
      const png = Deno.readFileSync(shot);
      assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], "a PNG screenshot was saved");
      console.log(`screenshot: ${shot}`);
      await waitFor(async () => !(await running()), 180_000, "the index job to end");
      const results = await browse(`${base}/ui?token=${TOKEN}&q=Compute7x2`, profile);
      const loc = results.match(/<span class="loc">(pkg7\/file7\.go):(\d+)<\/span>/);
      assert.ok(loc, "search_code results as path:line");
      // The line named is the matched line of the file.
      const shown = Deno.readTextFileSync(join(repo, loc[1])).split("\n")[Number(loc[2]) - 1];
      assert.match(shown, /Compute7x2/, `line ${loc[2]} is the matched line`);
      assert.match(results, /published/, "the finished job is in the recent jobs");
      // The watch column says the live-index mode in words, not the status object's JSON.
      assert.match(results, /<td>(events|polling|off)( · [^<]*)?( — [^<]*)?<\/td>/, "the watch mode is shown");
      assert.ok(!results.includes('{"mode"'), "no raw JSON in the page");
      await browse(`${base}/ui?token=${TOKEN}&q=Compute7x2`, profile, join(artifacts, "status_page_search.png"));
    } finally {
      await srv.stop();
      Deno.removeSync(home, { recursive: true });
      Deno.removeSync(repo, { recursive: true });
      Deno.removeSync(profile, { recursive: true });
    }
  },
});
