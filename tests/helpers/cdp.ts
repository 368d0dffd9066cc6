/**
 * A headless Chromium driven over the DevTools protocol, for tests that click
 * in a page and read it back without reloading: launch with a fresh profile,
 * open a page, evaluate expressions, click an element with real mouse events,
 * take a screenshot. One browser WebSocket, page sessions attached flat.
 */
import { join } from "node:path";

/** Flags every test launch uses (no network beyond the page's own, no first-run work). */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** The installed Chromium command, if any. */
export const CHROMIUM = ["chromium", "chromium-browser", "google-chrome"].find((c) => {
  try {
    return new Deno.Command(c, { args: ["--version"], stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
});

type Pending = { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void };

/** A running browser; `close()` it in `finally`. */
export class Browser {
  private next = 0;
  private pending = new Map<number, Pending>();
  private closed: Promise<void>;
  private listeners = new Set<(method: string, sessionId?: string) => void>();

  private constructor(
    private child: Deno.ChildProcess,
    private ws: WebSocket,
    private profile: string,
    private drained: Promise<void>,
  ) {
    this.closed = new Promise((r) => ws.addEventListener("close", () => r()));
    ws.addEventListener("message", (ev) => {
      const msg = JSON.parse(ev.data as string);
      if (msg.method) {
        for (const l of [...this.listeners]) l(msg.method, msg.sessionId);
        return;
      }
      const p = msg.id !== undefined ? this.pending.get(msg.id) : undefined;
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${msg.error.message} (${msg.error.code})`));
      else p.resolve(msg.result ?? {});
    });
  }

  /** Starts Chromium with a fresh profile and connects to it (at most 30 s). */
  static async launch(): Promise<Browser> {
    const profile = Deno.makeTempDirSync({ prefix: "cruxe-chromium-" });
    const child = new Deno.Command(CHROMIUM!, {
      args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, "--remote-debugging-port=0", "--window-size=1200,900"],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let err = "";
    let url = "";
    const end = Date.now() + 30_000;
    while (!url && Date.now() < end) {
      const { value, done } = await reader.read();
      if (done) break;
      err += value;
      url = err.match(/DevTools listening on (ws:\/\/\S+)/)?.[1] ?? "";
    }
    const drained = (async () => {
      while (!(await reader.read().catch(() => ({ done: true }))).done) { /* keep the pipe open */ }
    })();
    if (!url) {
      child.kill("SIGKILL");
      await child.status;
      await drained;
      throw new Error(`chromium did not start: ${err}`);
    }
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => {
      ws.addEventListener("open", resolve, { once: true });
      ws.addEventListener("error", () => reject(new Error("cannot connect to chromium")), { once: true });
    });
    return new Browser(child, ws, profile, drained);
  }

  /** Sends one protocol command (to a page when `sessionId` is given) and resolves to its result. */
  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  /** Resolves on the next `method` event of page session `sessionId`. */
  event(method: string, sessionId: string): Promise<void> {
    return new Promise((resolve) => {
      const l = (m: string, s?: string) => {
        if (m !== method || s !== sessionId) return;
        this.listeners.delete(l);
        resolve();
      };
      this.listeners.add(l);
    });
  }

  /** Opens `url` in a new page and waits for its load event; `scripts: false` loads it with scripts off. */
  async open(url: string, opts: { scripts?: boolean } = {}): Promise<Page> {
    const { targetId } = await this.send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await this.send("Target.attachToTarget", { targetId, flatten: true });
    const page = new Page(this, sessionId as string);
    await page.send("Emulation.setDeviceMetricsOverride", {
      width: 1200,
      height: 900,
      deviceScaleFactor: 1,
      mobile: false,
    });
    if (opts.scripts === false) await page.send("Emulation.setScriptExecutionDisabled", { value: true });
    await page.send("Page.enable");
    const loaded = this.event("Page.loadEventFired", sessionId as string);
    await page.send("Page.navigate", { url });
    await loaded;
    return page;
  }

  /** Closes the connection, stops the browser and removes its profile. */
  async close(): Promise<void> {
    this.ws.close();
    await this.closed;
    try {
      this.child.kill("SIGKILL");
    } catch { /* gone */ }
    await this.child.status;
    await this.drained;
    Deno.removeSync(this.profile, { recursive: true });
  }
}

/** One page of a Browser. */
export class Page {
  constructor(private browser: Browser, private sessionId: string) {}

  /** Sends a protocol command to this page. */
  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return this.browser.send(method, params, this.sessionId);
  }

  /** The value of a JavaScript expression in the page (awaited when it is a promise). */
  async eval<T = unknown>(expression: string): Promise<T> {
    const r = await this.send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true }) as {
      result: { value?: T };
      exceptionDetails?: { text: string; exception?: { description?: string } };
    };
    if (r.exceptionDetails) {
      throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
    }
    return r.result.value as T;
  }

  /** The page's DOM as HTML (read through the protocol: works with scripts off). */
  async html(): Promise<string> {
    const { root } = await this.send("DOM.getDocument", { depth: -1 }) as { root: { nodeId: number } };
    const { outerHTML } = await this.send("DOM.getOuterHTML", { nodeId: root.nodeId });
    return outerHTML as string;
  }

  /** Clicks the centre of the element `selector` names with mouse events, as a person would. */
  async click(selector: string): Promise<void> {
    const box = await this.eval<{ x: number; y: number } | null>(`(() => {
      const e = document.querySelector(${JSON.stringify(selector)});
      if (!e) return null;
      e.scrollIntoView({ block: "center" });
      const r = e.getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    })()`);
    if (!box) throw new Error(`nothing to click: ${selector}`);
    for (const type of ["mouseMoved", "mousePressed", "mouseReleased"]) {
      await this.send("Input.dispatchMouseEvent", { type, ...box, button: "left", clickCount: 1 });
    }
  }

  /** Saves a PNG screenshot of the viewport under `dir` as `name`; returns its path. */
  async screenshot(dir: string, name: string): Promise<string> {
    const { data } = await this.send("Page.captureScreenshot", { format: "png" });
    const file = join(dir, name);
    Deno.writeFileSync(file, Uint8Array.from(atob(data as string), (c) => c.charCodeAt(0)));
    return file;
  }
}
